package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"slices"
	"strings"
	"sync"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/clean"
	"github.com/vtsproject/vts/internal/engine/letter"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/job"
)

// minReadConf is the least confidence a block's reading needs to be translated. Below it the
// reading is mostly wrong characters, and lettering a translation of them would be garbage
// presented as a translation.
const minReadConf = 0.55

// minFreeConf is the same for text outside any bubble (narration on art, captions without a box).
const minFreeConf = 0.7

// cjkPage is the outcome of reading a page as CJK lettering.
type cjkPage struct {
	blocks   []*textBlock
	readings []reading
	lang     string // detected or given: ja, ko, zh-Hans, zh-Hant; "" when not CJK
	pa       *pageAnalysis
	// latin is true when, under auto, the lettering was found to be Latin: the Latin pipeline
	// reads and translates the page.
	latin bool
	// detection is the evidence behind the decision under auto; nil when the upload named the
	// language.
	detection *engine.Detection
}

// readCJK finds the lettering and establishes its language before reading it for good. Under
// auto the page is first read as Latin (see detect.go); unless that settles it, vertical columns
// are read with the vertical models, rows with the horizontal ones, and the script of what comes
// back (kana, Hangul, Han alone) decides among the candidates and against Latin.
func (e *Engine) readCJK(ctx context.Context, page *image.RGBA, p planned) (*cjkPage, error) {
	blocks, pa := findTextBlocks(page, true)
	mp := &cjkPage{blocks: blocks, pa: pa}
	if len(blocks) == 0 {
		return mp, nil
	}
	var lat *evidence
	if p.auto {
		mp.detection = &engine.Detection{}
	}
	// latinLook reads the page as Latin and, when decisive, reports whether that settles it.
	latinLook := func(decisive bool) (bool, error) {
		model, langs := e.latinModel(p)
		if model == "" {
			return false, nil
		}
		rs, err := e.readLatin(ctx, pa, blocks, model)
		if err != nil {
			return false, err
		}
		lat = &evidence{script: latinScript, langs: langs, readings: rs}
		lat.weigh(blocks)
		share := lat.score / letteringSize(blocks)
		if !decisive || share < decisiveLatin {
			return false, nil
		}
		mp.latin = true
		mp.detection.Reason = fmt.Sprintf("Latin: %.0f%% of the lettering read confidently as Latin words", 100*share)
		describe(mp.detection, lat)
		return true, nil
	}
	// Latin is set in rows, never in columns: a page whose lettering is mostly columns is read as
	// CJK first, and as Latin only if that does not settle it.
	latinFirst := p.auto && verticalShare(blocks) <= 0.5
	if latinFirst {
		if done, err := latinLook(true); done || err != nil {
			return mp, err
		}
	}
	has := func(name string) bool { return slices.Contains(e.installed, name) }
	modelsOf := func(lang string) func(vertical bool) string {
		return func(vertical bool) string {
			name := tessLang[lang]
			if vertical && has(name+"_vert") {
				name += "_vert"
			}
			if !has(name) {
				return ""
			}
			return name
		}
	}
	// Each candidate's models read the page, Japanese first: on a page of vertical Japanese (the
	// common case) that one pass both tells the script (kana) and is the final reading. Otherwise the
	// other candidates read it too, and the language whose own script comes back most, and most
	// confidently, wins: Korean's model is needed to see Hangul at all, and Chinese pages are
	// told simplified or traditional by which model reads them better.
	order := []string{"ja", "ko", "zh-Hans", "zh-Hant"}
	var evs []*evidence
	var best *evidence
	reason := ""
	for _, lang := range order {
		if !slices.Contains(p.cjk, lang) || modelsOf(lang)(false) == "" {
			continue
		}
		rs, err := e.readOriented(ctx, pa, blocks, modelsOf(lang))
		if err != nil {
			return nil, err
		}
		ev := &evidence{script: scriptOfCJK(lang), langs: []string{lang}, readings: rs}
		ev.weigh(blocks)
		evs = append(evs, ev)
		detected := detectCJK(blocks, rs)
		// Vertical columns with kana are Japanese beyond doubt (Korean is not set vertically,
		// and Chinese has no kana), however many shapes of art read as horizontal "lines".
		if lang == "ja" && (detectCJK(verticalOnly(blocks, rs)) == "ja" || (detected == "ja" && mostlyVertical(blocks))) &&
			(lat == nil || ev.score > lat.score) {
			best, reason = ev, "Japanese: kana in vertical columns"
			break
		}
		// A reading in another language's script is no evidence for this one: Chinese read by
		// the Japanese model comes back as kanji without kana.
		if ev.score > 0 && (detected == "" || sameScript(detected, lang)) && (best == nil || ev.score > best.score) {
			best = ev
		}
	}
	if p.auto && !latinFirst && reason == "" {
		if _, err := latinLook(false); err != nil {
			return nil, err
		}
	}
	if mp.detection != nil {
		describe(mp.detection, append(evs, lat)...)
	}
	latinWins := false
	switch {
	case reason != "":
	case best == nil && (lat == nil || lat.score == 0):
		if mp.detection != nil {
			mp.detection.Reason = "no script read with confidence"
		}
		return mp, nil
	case best == nil:
		latinWins, reason = true, "Latin: no Chinese, Japanese or Korean read with confidence"
	case lat == nil || best.score >= clearMargin*lat.score:
		reason = fmt.Sprintf("%s: its reading scored %.1f against Latin's %.1f", best.script, best.score, latinScore(lat))
	case lat.score >= clearMargin*best.score:
		latinWins, reason = true, fmt.Sprintf("Latin: its reading scored %.1f against %s's %.1f", lat.score, best.script, best.score)
	default:
		close := fmt.Sprintf("Latin %.1f against %s %.1f", lat.score, best.script, best.score)
		if isLatin, script, ok := e.secondLook(ctx, pa); ok {
			latinWins = isLatin
			reason = fmt.Sprintf("close (%s); the page's script detection saw %s", close, script)
		} else {
			latinWins = lat.score > best.score
			reason = fmt.Sprintf("close (%s); the higher score", close)
		}
	}
	if mp.detection != nil {
		mp.detection.Reason = reason
	}
	if latinWins {
		mp.latin = true
		return mp, nil
	}
	lang := best.langs[0]
	readings := best.readings
	mp.lang = lang
	mp.readings = readings
	if lang == "ko" || (lang != "ja" && !mostlyVertical(blocks)) {
		// Horizontal Korean and Chinese pages read left to right.
		byBlock := map[*textBlock]reading{}
		for i, b := range blocks {
			byBlock[b] = readings[i]
		}
		orderBlocks(blocks, false)
		for i, b := range blocks {
			mp.readings[i] = byBlock[b]
		}
	}
	return mp, nil
}

func latinScore(lat *evidence) float64 {
	if lat == nil {
		return 0
	}
	return lat.score
}

// looksLikeText reports whether what was found is lettering beyond doubt: several blocks, or
// one of several lines. A lone shape may be art, and a page of art is returned unchanged.
func (mp *cjkPage) looksLikeText() bool {
	return len(mp.blocks) >= 2 || (len(mp.blocks) == 1 && len(mp.blocks[0].Lines) >= 2)
}

// verticalOnly keeps the vertical blocks and their readings.
func verticalOnly(blocks []*textBlock, rs []reading) ([]*textBlock, []reading) {
	var vb []*textBlock
	var vr []reading
	for i, b := range blocks {
		if b.Vertical {
			vb, vr = append(vb, b), append(vr, rs[i])
		}
	}
	return vb, vr
}

// sameScript reports whether a detected script fits a language: Chinese text read by the
// Japanese model comes back as Han alone.
func sameScript(detected, lang string) bool {
	switch detected {
	case "zh":
		return lang == "zh-Hans" || lang == "zh-Hant"
	}
	return detected == lang
}

// detectCJK names the script of the confident readings, weighting each block by its lines.
func detectCJK(blocks []*textBlock, readings []reading) string {
	var counts scriptCounts
	for i, r := range readings {
		if r.Conf < minReadConf {
			continue
		}
		c := countScripts(r.Text)
		w := len(blocks[i].Lines)
		counts.Kana += c.Kana * w
		counts.Han += c.Han * w
		counts.Hangul += c.Hangul * w
		counts.Latin += c.Latin * w
		counts.Other += c.Other * w
	}
	return counts.cjkLanguage()
}

func mostlyVertical(blocks []*textBlock) bool {
	v := 0
	for _, b := range blocks {
		if b.Vertical {
			v++
		}
	}
	return v*2 > len(blocks)
}

// readOriented reads vertical blocks with model(true) (page segmentation 5, a vertical block, for
// each column) and horizontal ones with model(false) (7, a single line, for each row), in block
// order.
func (e *Engine) readOriented(ctx context.Context, pa *pageAnalysis, blocks []*textBlock, model func(vertical bool) string) ([]reading, error) {
	out := make([]reading, len(blocks))
	var wg sync.WaitGroup
	var errs [2]error
	// The two directions use different models, so they run as two processes at once.
	for d, vertical := range []bool{true, false} {
		var idx []int
		var sel []*textBlock
		for i, b := range blocks {
			if b.Vertical == vertical && worthReading(b) {
				idx = append(idx, i)
				sel = append(sel, b)
			}
		}
		lang := model(vertical)
		if len(sel) == 0 || lang == "" {
			continue
		}
		psm := 7 // one row
		if vertical {
			psm = 5
		}
		wg.Go(func() {
			rs, err := e.readBlocks(ctx, pa, sel, lang, psm, true)
			if err != nil {
				errs[d] = fmt.Errorf("reading lettering: %w", err)
				return
			}
			for k, i := range idx {
				out[i] = rs[k]
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	return out, nil
}

// worthReading leaves out what could never be lettered over (see translateCJK): outside a
// bubble, a line of fewer than three characters, which on manga pages is nearly always art.
func worthReading(b *textBlock) bool {
	if b.Bubble != nil {
		return true
	}
	return b.chars() >= 3
}

// cleanCJK strips spaces Tesseract puts between CJK characters and the noise it reads from the
// edges of a crop.
func cleanCJK(s string) string {
	var b strings.Builder
	rs := []rune(strings.TrimSpace(s))
	for i, r := range rs {
		if r == ' ' && i > 0 && i < len(rs)-1 && (isCJKText(string(rs[i-1])) || isCJKText(string(rs[i+1]))) {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// translateCJK translates the read blocks of mp, cleans and letters the page; it fills the
// transcript. It is an error a user reads when the language cannot be translated here or the
// text could not be read with confidence.
func (e *Engine) translateCJK(ctx context.Context, req engine.Request, p planned, page *image.RGBA, format string, mp *cjkPage, progress func(string)) (*engine.Response, *engine.Transcript, []byte, error) {
	tr := e.translatorFor(p.mode, mp.lang, p.dst)
	if tr == nil {
		return nil, nil, nil, engine.Permanent(needsTranslator(mp.lang, p.dst, p.mode.Translator), nil)
	}
	var keep []int
	var texts []string
	for i, r := range mp.readings {
		text := cleanCJK(r.Text)
		if r.Conf < minReadConf || !isCJKText(text) {
			continue
		}
		// Outside a bubble, art can pass for a character or two; there only a confident
		// reading of real length is taken for lettering, so art is never painted over.
		if b := mp.blocks[i]; b.Bubble == nil && (r.Conf < minFreeConf || len([]rune(text)) < 3) {
			continue
		}
		keep = append(keep, i)
		texts = append(texts, text)
	}
	if len(keep) == 0 {
		return nil, nil, nil, engine.Permanent(fmt.Sprintf("the %s text on this page could not be read with confidence", languageName(mp.lang)), nil)
	}
	progress("translate")
	treq := translator.Request{Src: mp.lang, Dst: p.dst, Texts: texts, CustomPrompt: req.CustomPrompt,
		Glossary: parseGlossary(req.Glossary)}
	treq.Previous = previousExchange(req.Previous)
	if ir, ok := tr.(translator.ImageReader); ok && ir.ReadsImages() {
		for _, i := range keep {
			treq.Images = append(treq.Images, cropPNG(page, mp.blocks[i].Box.Inset(-mp.blocks[i].Char/2)))
		}
	}
	res, err := tr.Translate(ctx, treq)
	if err != nil {
		return nil, nil, nil, translationError(tr.Name(), err)
	}
	progress("render")
	ts := &engine.Transcript{Width: page.Bounds().Dx(), Height: page.Bounds().Dy(), SourceLang: mp.lang, TargetLang: p.dst, Engine: "ocr"}
	upper := req.Lettering == string(job.Upper)
	if upper {
		ts.Lettering = req.Lettering // kept, so that lettering the page again keeps the capitals
	}
	translated := map[int]string{}
	sources := map[int]string{}
	for k, i := range keep {
		translated[i] = strings.TrimSpace(res.Translations[k])
		sources[i] = texts[k]
		if k < len(res.Sources) && strings.TrimSpace(res.Sources[k]) != "" {
			sources[i] = strings.TrimSpace(res.Sources[k])
		}
	}
	// Clean every translated block first, so that lettering never lands on a neighbour's
	// glyphs, then keep a copy of the clean page for teams that letter by hand.
	for i, b := range mp.blocks {
		if translated[i] != "" {
			e.eraseBlock(page, mp.pa, b)
		}
	}
	cleaned, err := encodeLike(page, format)
	if err != nil {
		return nil, nil, nil, err
	}
	n := 0
	for i, b := range mp.blocks {
		tb := engine.TranscriptBlock{
			Box: rectOf(b.Box), Kind: "free", Vertical: b.Vertical, Lang: mp.lang,
			Source: cleanCJK(mp.readings[i].Text), Confidence: round2(mp.readings[i].Conf),
		}
		if s, ok := sources[i]; ok {
			tb.Source = s
		}
		if b.Bubble != nil {
			tb.Kind = "bubble"
		}
		if text := translated[i]; text != "" {
			tb.Translation = text
			tb.Shape = e.letterBlock(page, b, text, p.dst, upper)
			n++
		}
		if tb.Shape == nil {
			tb.Shape = corners(b.Box)
		}
		ts.Blocks = append(ts.Blocks, tb)
	}
	return &engine.Response{Blocks: n}, ts, cleaned, nil
}

func languageName(code string) string {
	if name := translator.LanguageName(code); name != "" {
		return name
	}
	return code
}

// eraseBlock removes a block's lettering, furigana included.
func (e *Engine) eraseBlock(img *image.RGBA, pa *pageAnalysis, b *textBlock) {
	t := clean.Target{Box: b.Box, Char: b.Char, Ink: &region{Box: b.Box, Mask: b.ink}, Bubble: b.Bubble}
	if b.Bubble != nil {
		t.Paper = bubblePaper(img, b.Bubble, b)
	}
	clean.Block(img, pa.gray, pa.paper, t)
}

// letterBlock letters text for block b and returns the outline of the area it used.
func (e *Engine) letterBlock(img *image.RGBA, b *textBlock, text, lang string, upper bool) []engine.Point {
	t := letter.Target{Box: b.Box, Char: b.Char, Paper: b.Paper, Vertical: b.Vertical, Upper: upper}
	if b.Bubble != nil {
		t.Paper = bubblePaper(img, b.Bubble, b)
		// A column of CJK keeps a wider margin from the outline than lines across.
		margin := max(2, b.Char/4)
		if isCJK(lang) && b.Vertical {
			margin = max(2, b.Char/3)
		}
		t.Area = b.Bubble.Erode(margin)
	}
	var pts []engine.Point
	for _, p := range e.fonts.Block(img, t, text, lang) {
		pts = append(pts, engine.Point{X: p.X, Y: p.Y})
	}
	return pts
}

func rectOf(r image.Rectangle) engine.Rect {
	return engine.Rect{X: r.Min.X, Y: r.Min.Y, W: r.Dx(), H: r.Dy()}
}

func corners(r image.Rectangle) []engine.Point {
	return []engine.Point{{X: r.Min.X, Y: r.Min.Y}, {X: r.Max.X, Y: r.Min.Y}, {X: r.Max.X, Y: r.Max.Y}, {X: r.Min.X, Y: r.Max.Y}}
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

// cropPNG encodes a part of the page for a model that reads images.
func cropPNG(page *image.RGBA, r image.Rectangle) []byte {
	var buf bytes.Buffer
	_ = png.Encode(&buf, page.SubImage(r.Intersect(page.Bounds())))
	return buf.Bytes()
}
