package ocr

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"strings"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/clean"
	"github.com/vtsproject/vts/internal/engine/detect"
	"github.com/vtsproject/vts/internal/engine/find"
	"github.com/vtsproject/vts/internal/engine/letter"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/read"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/lang"
)

// minFreeConf is the same for text outside any bubble (narration on art, captions without a box).
const minFreeConf = 0.7

// cjkPage is the outcome of reading a page as CJK lettering.
type cjkPage struct {
	blocks   []*page.Block
	readings []page.Reading
	lang     string // detected or given: ja, ko, zh-Hans, zh-Hant; "" when not CJK
	pa       *page.Analysis
	// latin is true when, under auto, the lettering was found to be Latin: the Latin pipeline
	// reads and translates the page.
	latin bool
	// detection is the evidence behind the decision under auto; nil when the upload named the
	// language.
	detection *engine.Detection
}

// readCJK finds the lettering and establishes its language (the detect stage) before reading it
// for good.
func (e *Engine) readCJK(ctx context.Context, img *image.RGBA, p planned) (*cjkPage, error) {
	blocks, pa := find.Manga(img, true)
	mp := &cjkPage{blocks: blocks, pa: pa}
	if len(blocks) == 0 {
		return mp, nil
	}
	model, langs := detect.LatinModel(p.candidates, e.langs, e.installed)
	res, err := detect.CJK(ctx, e.tess, pa, blocks, detect.Options{Auto: p.auto, CJK: p.cjk, LatinModel: model, LatinLangs: langs,
		Installed: e.installed, HasOSD: e.hasOSD, Log: e.log})
	if res != nil {
		mp.readings, mp.lang, mp.latin, mp.detection = res.Readings, res.Lang, res.Latin, res.Detection
	}
	if err != nil || mp.lang == "" {
		return mp, err
	}
	if mp.lang == "ko" || (mp.lang != "ja" && !detect.MostlyVertical(blocks)) {
		// Horizontal Korean and Chinese pages read left to right.
		byBlock := map[*page.Block]page.Reading{}
		for i, b := range blocks {
			byBlock[b] = mp.readings[i]
		}
		find.Order(blocks, false)
		for i, b := range blocks {
			mp.readings[i] = byBlock[b]
		}
	}
	return mp, nil
}

// looksLikeText reports whether what was found is lettering beyond doubt: several blocks, or
// one of several lines. A lone shape may be art, and a page of art is returned unchanged.
func (mp *cjkPage) looksLikeText() bool {
	return len(mp.blocks) >= 2 || (len(mp.blocks) == 1 && len(mp.blocks[0].Lines) >= 2)
}

// translateCJK translates the read blocks of mp, cleans and letters the page; it returns the
// page model with every block found, each with its status. It is an error a user reads when the
// language cannot be translated here or the text could not be read with confidence.
func (e *Engine) translateCJK(ctx context.Context, req engine.Request, p planned, img *image.RGBA, format string, mp *cjkPage, progress func(string)) (*page.Page, []byte, error) {
	tr := e.translatorFor(p.mode, mp.lang, p.dst)
	if tr == nil {
		return nil, nil, engine.Permanent(needsTranslator(mp.lang, p.dst, p.mode.Translator), nil)
	}
	pg := &page.Page{Image: img, Name: req.Filename, SourceLang: mp.lang, TargetLang: p.dst, Engine: "ocr", Detection: mp.detection}
	upper := req.Lettering == string(job.Upper)
	if upper {
		pg.Lettering = req.Lettering // kept, so that lettering the page again keeps the capitals
	}
	var keep []int
	var texts []string
	sfx := soundEffects(mp.blocks)
	for i, b := range mp.blocks {
		r := mp.readings[i]
		b.ID, b.Kind, b.Lang, b.Status = page.ID(i), page.Free, mp.lang, page.Read
		switch {
		case sfx[i]:
			b.Kind = page.SFX
		case b.Bubble != nil:
			b.Kind = page.Bubble
		}
		b.Source, b.Confidence = read.CleanCJK(r.Text), round2(r.Conf)
		if why := unreadable(b, r); why != "" {
			b.Status, b.Reason = page.Skipped, why
			continue
		}
		keep = append(keep, i)
		texts = append(texts, b.Source)
	}
	if len(keep) == 0 {
		return nil, nil, engine.Permanent(fmt.Sprintf("the %s text on this page could not be read with confidence", languageName(mp.lang)), nil)
	}
	progress("translate")
	treq := translator.Request{Src: mp.lang, Dst: p.dst, Texts: texts, CustomPrompt: req.CustomPrompt,
		Glossary: parseGlossary(req.Glossary)}
	treq.Previous = previousExchange(req.Previous)
	if ir, ok := tr.(translator.ImageReader); ok && ir.ReadsImages() {
		for _, i := range keep {
			treq.Images = append(treq.Images, cropPNG(img, mp.blocks[i].Box.Inset(-mp.blocks[i].Char/2)))
		}
	}
	res, err := tr.Translate(ctx, treq)
	if err != nil {
		return nil, nil, translationError(tr.Name(), err)
	}
	progress("render")
	for k, i := range keep {
		b := mp.blocks[i]
		if k < len(res.Sources) && strings.TrimSpace(res.Sources[k]) != "" {
			b.Source = strings.TrimSpace(res.Sources[k])
		}
		translated(b, res.Translations[k])
		if b.Kind == page.SFX && b.Status == page.Translated {
			b.Status, b.Reason = page.Skipped, reasonSFX // its translation in the transcript only
		}
	}
	// Clean every translated block first, so that lettering never lands on a neighbour's
	// glyphs, then keep a copy of the clean page for teams that letter by hand.
	for _, b := range mp.blocks {
		if b.Status == page.Translated {
			e.eraseBlock(img, mp.pa, b)
		}
	}
	cleaned, err := encodeLike(img, format)
	if err != nil {
		return nil, nil, err
	}
	for _, b := range mp.blocks {
		if b.Status == page.Translated {
			b.Shape, b.Status = e.letterBlock(img, b, b.Translation, p.dst, upper), page.Lettered
		}
		if len(b.Shape) == 0 {
			b.Shape = page.Corners(b.Box)
		}
		pg.Blocks = append(pg.Blocks, *b)
	}
	return pg, cleaned, nil
}

// unreadable says why a block's reading may not be translated, or "" when it may.
func unreadable(b *page.Block, r page.Reading) string {
	switch {
	case r.Text == "" && !b.WorthReading():
		return "too small to be lettering outside a bubble"
	case r.Conf < detect.MinReadConf:
		return "read without confidence"
	case !lang.HasCJK(b.Source):
		return "not read as Chinese, Japanese or Korean"
	case b.Bubble == nil && (r.Conf < minFreeConf || len([]rune(b.Source)) < 3):
		// Outside a bubble, art can pass for a character or two; there only a confident
		// reading of real length is taken for lettering, so art is never painted over.
		return "outside a bubble, too short or unsure to be lettering"
	}
	return ""
}

// translated records a block's translation: translated, or skipped when none came back.
func translated(b *page.Block, text string) {
	b.Translation = strings.TrimSpace(text)
	b.Status = page.Translated
	if b.Translation == "" {
		b.Status, b.Reason = page.Skipped, "the translator gave no translation"
	}
}

func languageName(code string) string {
	if name := translator.LanguageName(code); name != "" {
		return name
	}
	return code
}

// eraseBlock removes a block's lettering, furigana included.
func (e *Engine) eraseBlock(img *image.RGBA, pa *page.Analysis, b *page.Block) {
	t := clean.Target{Box: b.Box, Char: b.Char, Ink: b.Ink, Bubble: b.Bubble}
	if b.Bubble != nil {
		t.Paper = page.Paper(img, b.Bubble, b.Box, b.Paper)
	}
	clean.Block(img, pa.Gray, pa.Paper, t)
}

// letterBlock letters text for block b and returns the outline of the area it used.
func (e *Engine) letterBlock(img *image.RGBA, b *page.Block, text, lang string, upper bool) []image.Point {
	t := letter.Target{Box: b.Box, Char: b.Char, Paper: b.Paper, Vertical: b.Vertical, Upper: upper}
	if b.Bubble != nil {
		t.Paper = page.Paper(img, b.Bubble, b.Box, b.Paper)
		// A column of CJK keeps a wider margin from the outline than lines across.
		margin := max(2, b.Char/4)
		if isCJK(lang) && b.Vertical {
			margin = max(2, b.Char/3)
		}
		t.Area = b.Bubble.Erode(margin)
	}
	return e.fonts.Block(img, t, text, lang)
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// cropPNG encodes a part of the page for a model that reads images.
func cropPNG(img *image.RGBA, r image.Rectangle) []byte {
	var buf bytes.Buffer
	_ = png.Encode(&buf, img.SubImage(r.Intersect(img.Bounds())))
	return buf.Bytes()
}
