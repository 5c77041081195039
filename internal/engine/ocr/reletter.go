package ocr

import (
	"context"
	"fmt"
	"image"
	"slices"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/clean"
	"github.com/vtsproject/vts/internal/engine/letter"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/imageio"
)

// Letter letters a cleaned page from its transcript alone (Edit with no block kept, none added,
// none retranslated): the page in the cleaned page's format, and which blocks were lettered.
func (e *Engine) Letter(ctx context.Context, cleaned []byte, ts *engine.Transcript) ([]byte, *engine.Transcript, error) {
	resp, err := e.Edit(ctx, engine.EditRequest{Cleaned: cleaned, Transcript: ts})
	if err != nil {
		return nil, nil, err
	}
	return resp.Image, resp.Transcript, nil
}

// Edit implements engine.Editor: the named blocks translated again, kept ones restored, missed
// ones painted over (clean.ForEdit), the rest with a translation lettered; removed ones not.
func (e *Engine) Edit(ctx context.Context, req engine.EditRequest) (*engine.Response, error) {
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
	var source *image.RGBA
	if slices.ContainsFunc(ts.Blocks, func(b engine.TranscriptBlock) bool { return b.Status == engine.StatusKeep }) {
		orig, _, err := imageio.Decode(req.Source)
		if err != nil {
			return nil, engine.Permanent("the source page is needed to keep a block as it was", err)
		}
		source = toRGBA(orig, img.Bounds().Size()) // the cleaned page is at the job's resolution
	}
	lettered, at := ts, []int(nil) // at: where each block given to the letterer sits in ts.Blocks
	lettered.Blocks, at = clean.ForEdit(img, source, req.Machine, ts.Blocks)
	// The cleaned page has no lettering: what the transcript says was lettered is lettered again
	// if it still has a translation, and is skipped if an edit removed it (ForEdit leaves such a
	// block out, so it is marked here).
	for i := range ts.Blocks {
		if b := &ts.Blocks[i]; !slices.Contains(at, i) && (b.Status == string(page.Lettered) || b.Status == string(page.Translated)) {
			b.Status, b.Reason = string(page.Skipped), "no translation to letter"
		}
	}
	p := page.FromTranscript(img, &lettered)
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
	var idx []int
	var texts []string
	for i, b := range ts.Blocks {
		if slices.Contains(req.Retranslate, b.ID) {
			idx, texts = append(idx, i), append(texts, b.Source)
		}
	}
	res, err := tr.Translate(ctx, translator.Request{Src: ts.SourceLang, Dst: ts.TargetLang, Texts: texts,
		CustomPrompt: req.CustomPrompt, Glossary: parseGlossary(req.Glossary)})
	if err != nil {
		return translationError(tr.Name(), err)
	}
	for k, i := range idx { // a translator answers one translation per text, or an error
		ts.Blocks[i].Translation, ts.Blocks[i].Status = res.Translations[k], string(page.Translated)
	}
	return nil
}
