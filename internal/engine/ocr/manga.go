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
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/read"
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
	// latin is true when, under auto, the lettering was found to be Latin: the Latin reader
	// reads the page.
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
		page.Order(blocks, false)
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

// mangaReader reads manga lettering, for Japanese, Korean and Chinese: bubbles and columns found
// in the pixels (find.Manga), each block read on its own, emptied with its bubble's paper or
// inpainted, and lettered into its bubble's interior.
type mangaReader struct {
	e *Engine
	// pa is the page's levels, for erasing.
	pa *page.Analysis
	// detection is the evidence behind the decision under auto, for the Latin reader when the
	// lettering was found to be Latin.
	detection *engine.Detection
}

// read answers the page model when the lettering is CJK; a nil page, for the Latin reader or
// unchanged, when it is not; an error a user reads when the language cannot be translated here
// or the text could not be read with confidence. Every block found is in the page, each with its
// status.
func (r *mangaReader) read(ctx context.Context, img *image.RGBA, p planned) (*page.Page, error) {
	mp, err := r.e.readCJK(ctx, img, p)
	if err != nil {
		return nil, err
	}
	r.pa, r.detection = mp.pa, mp.detection
	switch {
	case mp.lang != "":
	case mp.latin && len(p.candidates) == 0:
		return nil, engine.Permanent(fmt.Sprintf("the text on this page is in the Latin script, which cannot be translated to %s here", languageName(p.dst)), nil)
	case !mp.latin && len(p.candidates) == 0 && mp.looksLikeText():
		// Lettering was found, but not in a script we can read with confidence: an
		// honest failure (refunded) rather than a page returned as if translated.
		return nil, engine.Permanent("the text on this page could not be read with confidence in "+strings.Join(p.cjk, ", "), nil)
	default:
		return nil, nil
	}
	if r.e.translatorFor(p.mode, mp.lang, p.dst) == nil {
		return nil, engine.Permanent(needsTranslator(mp.lang, p.dst, p.mode.Translator), nil)
	}
	pg := &page.Page{Image: img, SourceLang: mp.lang, TargetLang: p.dst, Engine: "ocr", Detection: mp.detection}
	dialogue := dialogueChar(mp.blocks, mp.readings)
	sfx := soundEffects(mp.blocks, mp.readings, dialogue)
	readable := 0
	for i, b := range mp.blocks {
		rd := mp.readings[i]
		if speck(b, rd.Conf, dialogue) {
			continue // art, not lettering
		}
		b.ID, b.Kind, b.Lang, b.Status = page.ID(len(pg.Blocks)), page.Free, mp.lang, page.Read
		switch {
		case sfx[i]:
			b.Kind = page.SFX
		case b.Bubble != nil:
			b.Kind = page.Bubble
		}
		b.Source, b.Confidence = read.CleanCJK(rd.Text), round2(rd.Conf)
		if why := unreadable(b, rd); why != "" {
			b.Status, b.Reason = page.Skipped, why
		} else {
			readable++
		}
		pg.Blocks = append(pg.Blocks, *b)
	}
	if readable == 0 {
		return nil, engine.Permanent(fmt.Sprintf("the %s text on this page could not be read with confidence", languageName(mp.lang)), nil)
	}
	return pg, nil
}

// erase empties each translated block: a bubble with its paper, art inpainted; furigana too.
func (r *mangaReader) erase(pg *page.Page) {
	for i := range pg.Blocks {
		if b := &pg.Blocks[i]; b.Status == page.Translated {
			t := clean.Target{Box: b.Box, Char: b.Char, Ink: b.Ink, Bubble: b.Bubble}
			if b.Bubble != nil {
				t.Paper = page.Paper(pg.Image, b.Bubble, b.Box, b.Paper)
			}
			clean.Block(pg.Image, r.pa.Gray, r.pa.Paper, t)
		}
	}
}

// proofread: a manga page is proofread and often lettered by hand, so its cleaned page is kept.
func (r *mangaReader) proofread() bool { return true }

// unreadable says why a block's reading may not be translated, or "" when it may.
func unreadable(b *page.Block, r page.Reading) string {
	switch {
	case r.Text == "" && !b.WorthReading():
		return "too small to be lettering outside a bubble"
	case r.Conf < detect.MinReadConf:
		return "read without confidence"
	case !lang.HasCJK(b.Source):
		return "not read as Chinese, Japanese or Korean"
	case b.Bubble == nil && (r.Conf < minFreeConf && !sentenceLike(b.Source) || len([]rune(b.Source)) < 3):
		// Outside a bubble, art can pass for a character or two; there only a confident
		// reading of real length, or one that reads as a sentence, is taken for lettering, so
		// art is never painted over.
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

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// cropPNG encodes a part of the page for a model that reads images.
func cropPNG(img *image.RGBA, r image.Rectangle) []byte {
	var buf bytes.Buffer
	_ = png.Encode(&buf, img.SubImage(r.Intersect(img.Bounds())))
	return buf.Bytes()
}
