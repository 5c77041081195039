package ocr

import (
	"context"
	"fmt"
	"image"
	"image/draw"
	"slices"
	"strings"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/letter"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/imageio"
)

// Letter letters a cleaned page (the Response's Cleaned) from its transcript alone, as edited by
// a proofreader: no reading, no translation. It returns the lettered page in the cleaned page's
// format and the transcript saying which blocks were lettered.
func (e *Engine) Letter(ctx context.Context, cleaned []byte, ts *engine.Transcript) ([]byte, *engine.Transcript, error) {
	resp, err := e.Edit(ctx, engine.EditRequest{Cleaned: cleaned, Transcript: ts})
	if err != nil {
		return nil, nil, err
	}
	return resp.Image, resp.Transcript, nil
}

// Edit implements engine.Editor: the blocks named in Retranslate are translated again from
// their source; blocks kept get their source pixels back; blocks the machine did not erase are
// painted over with their surroundings' paper; every other block with a translation is lettered
// into its shape. Removed blocks are not lettered.
func (e *Engine) Edit(ctx context.Context, req engine.EditRequest) (*engine.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ts := *req.Transcript
	ts.Blocks = slices.Clone(req.Transcript.Blocks)
	if !e.fonts.CanWrite(ts.TargetLang) {
		return nil, engine.Permanent(fmt.Sprintf("no font can letter %q", ts.TargetLang), nil)
	}
	if len(req.Retranslate) > 0 {
		if err := e.retranslate(ctx, req, &ts); err != nil {
			return nil, err
		}
	}
	src, info, err := imageio.Decode(req.Cleaned)
	if err != nil {
		return nil, engine.Permanent("the cleaned page could not be read", err)
	}
	img := toRGBA(src, src.Bounds().Size())
	if err := e.restoreKept(img, req.Source, ts.Blocks); err != nil {
		return nil, err
	}
	erased := map[string]bool{}
	if req.Machine != nil {
		// A block the machine translated was erased; one it skipped, or found and could not
		// read, was left as it was (a transcript without statuses says so by its translation).
		for _, b := range engine.NameBlocks(req.Machine.Blocks) {
			erased[b.ID] = b.Status != string(page.Skipped) && b.Status != string(page.Found) &&
				(b.Status != "" || b.Translation != "")
		}
	}
	var lettered engine.Transcript = ts
	lettered.Blocks = nil
	var at []int // where each block given to the letterer sits in ts.Blocks
	for i, b := range ts.Blocks {
		if b.Status == engine.StatusKeep || b.Status == engine.StatusRemoved || strings.TrimSpace(b.Translation) == "" {
			continue
		}
		if req.Machine != nil && !erased[b.ID] {
			paintOver(img, b.Box)
		}
		if b.Status == string(page.Skipped) {
			b.Status = string(page.Translated) // a person filled it in
		}
		lettered.Blocks = append(lettered.Blocks, b)
		at = append(at, i)
	}
	p := page.FromTranscript(img, &lettered)
	letter.Letter(p, e.fonts)
	data, err := encodeLike(img, info.Format)
	if err != nil {
		return nil, err
	}
	for k, b := range p.Transcript().Blocks {
		ts.Blocks[at[k]] = b
	}
	return &engine.Response{Image: data, Format: info.Format, Blocks: len(at), Transcript: &ts}, nil
}

// retranslate asks the translator again for the named blocks, from their source.
func (e *Engine) retranslate(ctx context.Context, req engine.EditRequest, ts *engine.Transcript) error {
	p, err := e.plan(ts.SourceLang, ts.TargetLang, req.Mode)
	if err != nil {
		return engine.Permanent("this translation is not available", err)
	}
	tr := e.translatorFor(p.mode, ts.SourceLang, ts.TargetLang)
	if tr == nil {
		return engine.Permanent(fmt.Sprintf("%s→%s cannot be translated here", ts.SourceLang, ts.TargetLang), nil)
	}
	var idx []int
	var texts []string
	var shout []bool
	for i, b := range ts.Blocks {
		if slices.Contains(req.Retranslate, b.ID) {
			text, loud := unshout(b.Source)
			idx, texts, shout = append(idx, i), append(texts, text), append(shout, loud)
		}
	}
	if len(texts) == 0 {
		return nil
	}
	res, err := tr.Translate(ctx, translator.Request{Src: ts.SourceLang, Dst: ts.TargetLang, Texts: texts,
		CustomPrompt: req.CustomPrompt, Glossary: parseGlossary(req.Glossary)})
	if err != nil {
		return translationError(tr.Name(), err)
	}
	if len(res.Translations) != len(texts) {
		return fmt.Errorf("translating with %s: %d answers for %d texts", tr.Name(), len(res.Translations), len(texts))
	}
	for k, i := range idx {
		out := res.Translations[k]
		if shout[k] {
			out = strings.ToUpper(out)
		}
		ts.Blocks[i].Translation, ts.Blocks[i].Status = out, string(page.Translated)
	}
	return nil
}

// restoreKept puts the source page's pixels back over every kept block: its box and its shape's
// bounds, which hold the lettering the machine erased.
func (e *Engine) restoreKept(img *image.RGBA, source []byte, blocks []engine.TranscriptBlock) error {
	var kept []image.Rectangle
	for _, b := range blocks {
		if b.Status != engine.StatusKeep {
			continue
		}
		r := image.Rect(b.Box.X, b.Box.Y, b.Box.X+b.Box.W, b.Box.Y+b.Box.H)
		for _, pt := range b.Shape {
			r = r.Union(image.Rect(pt.X, pt.Y, pt.X+1, pt.Y+1))
		}
		kept = append(kept, r.Inset(-2).Intersect(img.Bounds()))
	}
	if len(kept) == 0 {
		return nil
	}
	if source == nil {
		return engine.Permanent("the source page is needed to keep a block as it was", nil)
	}
	src, _, err := imageio.Decode(source)
	if err != nil {
		return engine.Permanent("the source page could not be read", err)
	}
	// The cleaned page is at the job's resolution: the source is scaled to it.
	orig := toRGBA(src, img.Bounds().Size())
	for _, r := range kept {
		draw.Draw(img, r, orig, r.Min, draw.Src)
	}
	return nil
}

// paintOver covers a box the machine left lettered (a block it missed, or skipped) with the
// paper around it, so that the person's translation is not set over the original.
func paintOver(img *image.RGBA, box engine.Rect) {
	r := image.Rect(box.X, box.Y, box.X+box.W, box.Y+box.H).Intersect(img.Bounds())
	if r.Empty() {
		return
	}
	inner, paper := page.Background(img, r)
	draw.Draw(img, inner, image.NewUniform(paper), image.Point{}, draw.Src)
}
