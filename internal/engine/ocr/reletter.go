package ocr

import (
	"context"
	"fmt"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/letter"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/imageio"
)

// Letter letters a cleaned page (the Response's Cleaned) from its transcript alone, as edited by
// a proofreader: no reading, no translation. It returns the lettered page in the cleaned page's
// format and the transcript saying which blocks were lettered.
func (e *Engine) Letter(ctx context.Context, cleaned []byte, ts *engine.Transcript) ([]byte, *engine.Transcript, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if !e.fonts.CanWrite(ts.TargetLang) {
		return nil, nil, engine.Permanent(fmt.Sprintf("no font can letter %q", ts.TargetLang), nil)
	}
	src, info, err := imageio.Decode(cleaned)
	if err != nil {
		return nil, nil, engine.Permanent("the cleaned page could not be read", err)
	}
	img := toRGBA(src, src.Bounds().Size())
	p := page.FromTranscript(img, ts)
	// The cleaned page has no lettering: what the transcript says was lettered is lettered again
	// if it still has a translation, and is skipped if an edit removed it.
	for i := range p.Blocks {
		if p.Blocks[i].Status == page.Lettered {
			p.Blocks[i].Status = page.Translated
		}
	}
	letter.Letter(p, e.fonts)
	for i := range p.Blocks {
		if b := &p.Blocks[i]; b.Status == page.Translated {
			b.Status, b.Reason = page.Skipped, "no translation to letter"
		}
	}
	data, err := encodeLike(img, info.Format)
	if err != nil {
		return nil, nil, err
	}
	out := p.Transcript()
	out.Width, out.Height = ts.Width, ts.Height
	return data, out, nil
}
