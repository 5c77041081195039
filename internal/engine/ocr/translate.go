package ocr

import (
	"context"
	"fmt"
	"image"
	"slices"
	"strings"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/detect"
	"github.com/vtsproject/vts/internal/engine/letter"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/glossary"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/job"
)

// A reader is what Translate does differently for one family of scripts: how the lettering is
// found and read, and how it is erased. Everything else is one sequence for every script: the
// blocks it reads are translated in one call, cleaned, lettered by the lettering stage
// (letter.Letter, as a page is lettered again from its transcript) and answered.
type reader interface {
	// read finds and reads the lettering of img: the page model, its blocks in reading order
	// each read (page.Read) or skipped with why, in a language e.translatorFor serves. It
	// answers a nil page when there is nothing to translate and the page comes back as it was,
	// and an error a user reads when the page cannot be translated here.
	read(ctx context.Context, img *image.RGBA, p planned) (*page.Page, error)
	// erase removes the lettering of the page's translated blocks from its image, and records
	// on each what the lettering stage needs that only the source showed.
	erase(pg *page.Page)
	// proofread reports whether the page is made to be proofread: its cleaned page is kept, and
	// its transcript answered even when nothing was lettered. Otherwise such a page comes back
	// unchanged.
	proofread() bool
}

// Translate implements engine.Engine.
func (e *Engine) Translate(ctx context.Context, req engine.Request) (*engine.Response, error) {
	p, err := e.plan(req.SourceLang, req.TargetLang, req.Mode)
	if err != nil {
		return nil, engine.Permanent("this translation is not available", err)
	}
	src, info, err := imageio.Decode(req.Image)
	if err != nil {
		return nil, engine.Permanent("the image could not be read", err)
	}
	size, err := targetSize(src.Bounds(), req.Resolution)
	if err != nil {
		return nil, engine.Permanent("the resolution is not offered", err)
	}
	format := req.Format
	if format == "" {
		format = info.Format
	}
	img := toRGBA(src, size)
	src = nil // the decoded source can be collected while OCR runs

	progress := func(stage string) {
		if req.Progress != nil {
			req.Progress(stage)
		}
	}

	progress("ocr")
	pg, rd, err := e.readPage(ctx, img, p)
	if err != nil {
		return nil, err
	}
	if pg == nil {
		return e.unchanged(req, img, format)
	}
	pg.Name = req.Filename
	if req.Lettering == job.Upper {
		pg.Lettering = string(req.Lettering) // kept, so that lettering the page again keeps the capitals
	}
	progress("translate")
	if err := e.translateBlocks(ctx, req, p, pg); err != nil {
		return nil, err
	}
	progress("render")
	// Clean every translated block first, so that lettering never lands on a neighbour's
	// glyphs, then keep a copy of the clean page for teams that letter by hand.
	rd.erase(pg)
	var cleaned chan encoded
	if rd.proofread() {
		// The copy is encoded while the page is lettered and encoded: on a large page each
		// encoding takes as long as the lettering, and there is a second core for it.
		clean := &image.RGBA{Pix: slices.Clone(img.Pix), Stride: img.Stride, Rect: img.Rect}
		cleaned = make(chan encoded, 1)
		go func() {
			data, err := encodeLike(clean, format)
			cleaned <- encoded{data, err}
		}()
	}
	n := letter.Letter(pg, e.fonts)
	for i := range pg.Blocks {
		if b := &pg.Blocks[i]; len(b.Shape) == 0 {
			b.Shape = page.Corners(b.Box)
		}
	}
	e.log.DebugContext(ctx, "ocr engine translated page", "file", req.Filename, "lang", pg.SourceLang, "blocks", n, "detection", detect.Reason(pg.Detection))
	if n == 0 && !rd.proofread() {
		return e.unchanged(req, img, format)
	}
	resp, err := respond(pg, format)
	if err != nil {
		return nil, err
	}
	if cleaned != nil {
		c := <-cleaned
		if c.err != nil {
			return nil, c.err
		}
		resp.Cleaned = c.data
	}
	return resp, nil
}

// encoded is an image encoded elsewhere, or why it could not be.
type encoded struct {
	data []byte
	err  error
}

// readPage finds and reads the page with the reader the plan picks: manga lettering whenever a
// CJK source is possible, and Latin text when the page is not in CJK (under auto, when manga
// lettering was found to be Latin, or none was found) and a Latin source is possible. A nil page
// means there is nothing to translate.
func (e *Engine) readPage(ctx context.Context, img *image.RGBA, p planned) (*page.Page, reader, error) {
	var detection *engine.Detection
	if len(p.cjk) > 0 {
		m := &mangaReader{e: e}
		pg, err := m.read(ctx, img, p)
		if err != nil || pg != nil {
			return pg, m, err
		}
		detection = m.detection
	}
	if len(p.candidates) == 0 {
		return nil, nil, nil
	}
	l := &latinReader{e: e, detection: detection}
	pg, err := l.read(ctx, img, p)
	return pg, l, err
}

// translateBlocks translates the read blocks of pg in one translator call, in reading order, and
// records each translation: translated, or skipped when none came back (or, for a sound effect,
// kept in the transcript only).
func (e *Engine) translateBlocks(ctx context.Context, req engine.Request, p planned, pg *page.Page) error {
	tr := e.translatorFor(p.mode, pg.SourceLang, p.dst)
	treq := translator.Request{Src: pg.SourceLang, Dst: p.dst, CustomPrompt: req.CustomPrompt,
		Glossary: parseGlossary(req.Glossary), Previous: previousExchange(req.Previous)}
	// A model that reads images reads CJK lettering again from each block's crop, where
	// Tesseract is weakest.
	ir, ok := tr.(translator.ImageReader)
	crops := ok && ir.ReadsImages() && isCJK(pg.SourceLang)
	var keep []int
	var shout []bool
	for i := range pg.Blocks {
		b := &pg.Blocks[i]
		if b.Status != page.Read {
			continue
		}
		text, loud := b.Source, false
		if !isCJK(b.Lang) {
			// Capitals are shouting only in scripts that have them.
			text, loud = unshout(text)
		}
		keep, shout = append(keep, i), append(shout, loud)
		treq.Texts = append(treq.Texts, text)
		if crops {
			treq.Images = append(treq.Images, cropPNG(pg.Image, b.Box.Inset(-b.Char/2)))
		}
	}
	res, err := tr.Translate(ctx, treq)
	if err != nil {
		return translationError(tr.Name(), err)
	}
	for k, i := range keep { // a translator answers one translation per text, or an error
		b := &pg.Blocks[i]
		if k < len(res.Sources) && strings.TrimSpace(res.Sources[k]) != "" {
			b.Source = strings.TrimSpace(res.Sources[k])
		}
		text := res.Translations[k]
		if shout[k] {
			text = strings.ToUpper(text)
		}
		translated(b, text)
		if b.Kind == page.SFX && b.Status == page.Translated {
			b.Status, b.Reason = page.Skipped, reasonSFX // its translation in the transcript only
		}
	}
	return nil
}

// respond encodes the lettered page and its transcript, the page model's serialized form.
func respond(pg *page.Page, format string) (*engine.Response, error) {
	data, err := encodeLike(pg.Image, format)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, b := range pg.Blocks {
		if b.Status == page.Lettered {
			n++
		}
	}
	return &engine.Response{Image: data, Format: format, Blocks: n, Transcript: pg.Transcript()}, nil
}

// unchanged answers a page without text to translate: the upload itself when no resizing was
// asked for, so a text-free page comes back byte for byte.
func (e *Engine) unchanged(req engine.Request, img *image.RGBA, format string) (*engine.Response, error) {
	if req.Resolution == "" || req.Resolution == job.Original {
		return &engine.Response{Image: req.Image, Format: format}, nil
	}
	data, err := encodeLike(img, format)
	if err != nil {
		return nil, err
	}
	return &engine.Response{Image: data, Format: format}, nil
}

func encodeLike(img *image.RGBA, format string) ([]byte, error) {
	data, err := imageio.EncodeBytes(img, format)
	if err != nil {
		return nil, fmt.Errorf("encoding translated page as %s: %w", format, err)
	}
	return data, nil
}

// parseGlossary reads the job's glossary, validated at upload; what cannot be read is dropped
// rather than failing a page that has already been paid for.
func parseGlossary(text string) []glossary.Entry {
	entries, _ := glossary.Parse(text)
	return entries
}

// previousExchange turns the previous page's transcript into translator context.
func previousExchange(prev *engine.Transcript) *translator.Exchange {
	if prev == nil {
		return nil
	}
	ex := &translator.Exchange{}
	for _, b := range prev.Blocks {
		if b.Translation != "" {
			ex.Source = append(ex.Source, b.Source)
			ex.Translation = append(ex.Translation, b.Translation)
		}
	}
	if len(ex.Source) == 0 {
		return nil
	}
	return ex
}
