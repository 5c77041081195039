package detect

import (
	"context"
	"fmt"
	"image"
	"log/slog"
	"slices"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/lang"
)

// MinReadConf is the least confidence a block's reading needs to count: as evidence of its
// script, and for being translated. Below it the reading is mostly wrong characters, and
// lettering a translation of them would be garbage presented as a translation.
const MinReadConf = 0.55

// Reader reads a page's blocks for detection: the read stage, wired by the pipeline.
type Reader interface {
	// Latin reads the horizontal blocks as Latin with a Tesseract model ("eng+spa").
	Latin(ctx context.Context, pa *page.Analysis, blocks []*page.Block, model string) ([]page.Reading, error)
	// Oriented reads vertical blocks with model(true) and horizontal ones with model(false).
	Oriented(ctx context.Context, pa *page.Analysis, blocks []*page.Block, model func(vertical bool) string) ([]page.Reading, error)
	// Script names the writing system that dominates the image (Tesseract's OSD).
	Script(ctx context.Context, g *image.Gray) (string, error)
}

// Options is what detection may choose from.
type Options struct {
	// Auto is true when the upload left the source language to detection.
	Auto bool
	// CJK are the Chinese, Japanese and Korean candidates.
	CJK []string
	// LatinModel reads the page as Latin under auto (see LatinModel), for LatinLangs; "" when
	// no Latin look is possible.
	LatinModel string
	LatinLangs []string
	// Installed is Tesseract's language data, vertical models included ("jpn_vert").
	Installed []string
	// HasOSD says whether Tesseract's script detection is installed, for close decisions.
	HasOSD bool
	Log    *slog.Logger
}

// Result is the decision on a page's blocks.
type Result struct {
	// Readings are the blocks' readings in the decided language, in block order.
	Readings []page.Reading
	// Lang is the detected or given CJK language: ja, ko, zh-Hans, zh-Hant; "" when not CJK.
	Lang string
	// Latin is true when, under auto, the lettering was found to be Latin: the Latin pipeline
	// reads and translates the page.
	Latin bool
	// Detection is the evidence behind the decision under auto; nil when the upload named the
	// language.
	Detection *engine.Detection
}

// tessLang maps the service's language codes to Tesseract's traineddata names.
var tessLang = lang.TesseractNames()

// CJK establishes the language of the lettering found on a page before it is read for good.
// Under auto the page is first read as Latin (see detect.go); unless that settles it, vertical
// columns are read with the vertical models, rows with the horizontal ones, and the script of
// what comes back (kana, Hangul, Han alone) decides among the candidates and against Latin.
func CJK(ctx context.Context, r Reader, pa *page.Analysis, blocks []*page.Block, o Options) (*Result, error) {
	mp := &Result{}
	if len(blocks) == 0 {
		return mp, nil
	}
	var lat *evidence
	if o.Auto {
		mp.Detection = &engine.Detection{}
	}
	// latinLook reads the page as Latin and, when decisive, reports whether that settles it.
	latinLook := func(decisive bool) (bool, error) {
		model, langs := o.LatinModel, o.LatinLangs
		if model == "" {
			return false, nil
		}
		rs, err := r.Latin(ctx, pa, blocks, model)
		if err != nil {
			return false, err
		}
		lat = &evidence{script: latinScript, langs: langs, readings: rs}
		lat.weigh(blocks)
		share := lat.score / letteringSize(blocks)
		if !decisive || share < decisiveLatin {
			return false, nil
		}
		mp.Latin = true
		mp.Detection.Reason = fmt.Sprintf("Latin: %.0f%% of the lettering read confidently as Latin words", 100*share)
		describe(mp.Detection, lat)
		return true, nil
	}
	// Latin is set in rows, never in columns: a page whose lettering is mostly columns is read as
	// CJK first, and as Latin only if that does not settle it.
	latinFirst := o.Auto && verticalShare(blocks) <= 0.5
	if latinFirst {
		if done, err := latinLook(true); done || err != nil {
			return mp, err
		}
	}
	has := func(name string) bool { return slices.Contains(o.Installed, name) }
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
		if !slices.Contains(o.CJK, lang) || modelsOf(lang)(false) == "" {
			continue
		}
		rs, err := r.Oriented(ctx, pa, blocks, modelsOf(lang))
		if err != nil {
			return nil, err
		}
		ev := &evidence{script: scriptOfCJK(lang), langs: []string{lang}, readings: rs}
		ev.weigh(blocks)
		evs = append(evs, ev)
		detected := detectCJK(blocks, rs)
		// Vertical columns with kana are Japanese beyond doubt (Korean is not set vertically,
		// and Chinese has no kana), however many shapes of art read as horizontal "lines". Two
		// blocks of them at least: a lone small shape in a Chinese page's balloon may read as two
		// kana (ルル) with some confidence.
		if lang == "ja" && (kanaColumns(verticalOnly(blocks, rs)) || (detected == "ja" && MostlyVertical(blocks))) &&
			(lat == nil || ev.score > lat.score) {
			best, reason = ev, "Japanese: kana in vertical columns"
			break
		}
		// A reading in another language's script is no evidence for this one: Chinese read by
		// the Japanese model comes back as kanji without kana. Most characters are written
		// alike in simplified and traditional Chinese, and on a page of them the two models
		// read within a hair of each other (45.86 for traditional against 45.80 on a simplified
		// page of our corpus): traditional must read clearly better, by a hundredth.
		beats := best == nil || ev.score > best.score
		if lang == "zh-Hant" && best != nil && best.langs[0] == "zh-Hans" {
			beats = ev.score > best.score*1.01
		}
		if ev.score > 0 && (detected == "" || sameScript(detected, lang)) && beats {
			best = ev
		}
	}
	if o.Auto && !latinFirst && reason == "" {
		if _, err := latinLook(false); err != nil {
			return nil, err
		}
	}
	if mp.Detection != nil {
		describe(mp.Detection, append(evs, lat)...)
	}
	latinWins := false
	switch {
	case reason != "":
	case best == nil && (lat == nil || lat.score == 0):
		if mp.Detection != nil {
			mp.Detection.Reason = "no script read with confidence"
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
		if isLatin, script, ok := secondLook(ctx, r, o, pa); ok {
			latinWins = isLatin
			reason = fmt.Sprintf("close (%s); the page's script detection saw %s", close, script)
		} else {
			latinWins = lat.score > best.score
			reason = fmt.Sprintf("close (%s); the higher score", close)
		}
	}
	if mp.Detection != nil {
		mp.Detection.Reason = reason
	}
	if latinWins {
		mp.Latin = true
		return mp, nil
	}
	mp.Lang = best.langs[0]
	mp.Readings = best.readings
	return mp, nil
}

func latinScore(lat *evidence) float64 {
	if lat == nil {
		return 0
	}
	return lat.score
}

// kanaColumns reports whether the blocks' confident readings are Japanese, with kana in two
// blocks or more.
func kanaColumns(blocks []*page.Block, rs []page.Reading) bool {
	n := 0
	for _, r := range rs {
		if r.Conf >= MinReadConf && lang.CountScripts(r.Text).Kana > 0 {
			n++
		}
	}
	return n >= 2 && detectCJK(blocks, rs) == "ja"
}

// verticalOnly keeps the vertical blocks and their readings.
func verticalOnly(blocks []*page.Block, rs []page.Reading) ([]*page.Block, []page.Reading) {
	var vb []*page.Block
	var vr []page.Reading
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
func detectCJK(blocks []*page.Block, readings []page.Reading) string {
	var counts lang.ScriptCounts
	for i, r := range readings {
		if r.Conf < MinReadConf {
			continue
		}
		c := lang.CountScripts(r.Text)
		w := len(blocks[i].Lines)
		counts.Kana += c.Kana * w
		counts.Han += c.Han * w
		counts.Hangul += c.Hangul * w
		counts.Latin += c.Latin * w
		counts.Other += c.Other * w
	}
	return counts.CJKLanguage()
}

// MostlyVertical reports whether most blocks are columns.
func MostlyVertical(blocks []*page.Block) bool {
	v := 0
	for _, b := range blocks {
		if b.Vertical {
			v++
		}
	}
	return v*2 > len(blocks)
}
