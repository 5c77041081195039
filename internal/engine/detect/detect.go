// Package detect is the stage that decides a page's script and language under "auto": every
// candidate script reads the same blocks and is weighed on the same evidence.
package detect

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/lang"
)

// Deciding a page's script under "auto". Every script the page could be in is read from the
// same blocks of lettering and weighed on the same evidence: the reading's confidence, times how
// well the characters read fit that script (Latin words with vowels; Hangul syllables that form
// words; kana and kanji; Han), times how well their number fits the ink (Latin glyphs are narrow,
// CJK glyphs square), summed over blocks weighted by their size. Latin goes first because it is
// the cheapest look and the commonest page: a page whose lines read confidently as Latin words is
// Latin without reading it in Chinese, Japanese or Korean. A close decision takes a second,
// independent look (Tesseract's script detection over the whole page), never the candidates'
// order.

const latinScript = "Latin"

// decisiveLatin is the share of a page's lettering (in estimated characters) that must read
// confidently as Latin words for the page to be Latin without a CJK reading. A manga page's
// horizontal shapes, read as Latin, come to a few percent at most.
const decisiveLatin = 0.5

// clearMargin is how many times the runner-up's score a script needs to win without a second
// look.
const clearMargin = 1.5

// evidence is one script's reading of the page's blocks.
type evidence struct {
	script   string
	langs    []string
	readings []page.Reading
	score    float64
	conf     float64
}

// weigh scores the readings on the measure shared by every script.
func (ev *evidence) weigh(blocks []*page.Block) {
	var confSum, n float64
	ev.score, ev.conf = 0, 0
	for i, r := range ev.readings {
		if r.Conf < MinReadConf || r.Text == "" {
			continue
		}
		est := blocks[i].Chars()
		f := scriptFit(ev.script, r.Text, est)
		if f == 0 {
			continue
		}
		w := float64(est)
		ev.score += w * r.Conf * f
		confSum += w * r.Conf
		n += w
	}
	if n > 0 {
		ev.conf = confSum / n
	}
}

func (ev *evidence) candidate() engine.DetectionCandidate {
	return engine.DetectionCandidate{Script: ev.script, Langs: ev.langs, Score: round2(ev.score), Confidence: round2(ev.conf)}
}

// scriptFit is how well text, read from a block of about est characters, fits script: the share
// of what was read that belongs to the script and forms words in it, times how well the number
// of those characters fits the ink.
func scriptFit(script, text string, est int) float64 {
	own, all := scriptChars(script, text)
	if own == 0 || all == 0 {
		return 0
	}
	purity := float64(own) / float64(all)
	ratio := float64(own) / float64(max(est, 1))
	pitch := 1.0
	if script == latinScript {
		// A line of Latin holds about two letters per line height in lower case and 1.4 in
		// capitals; square CJK glyphs read as Latin give one or fewer.
		pitch = min(1, ratio/1.2)
	} else {
		switch {
		case ratio > 1.6:
			// Far more "characters" than square glyphs fit: narrow Latin glyphs read one by one.
			pitch = 1.6 / ratio
		case ratio < 0.5:
			pitch = ratio / 0.5
		}
	}
	return purity * pitch
}

// scriptChars counts, in text, the characters of script that form words in it (own) and all
// characters but spaces and punctuation (all).
func scriptChars(script, text string) (own, all int) {
	for _, r := range text {
		if !unicode.IsSpace(r) && !unicode.IsPunct(r) {
			all++
		}
	}
	switch script {
	case latinScript:
		for _, tok := range strings.FieldsFunc(text, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) {
			if latinWord(tok) {
				own += utf8.RuneCountInString(tok)
			}
		}
	case "Hangul":
		// Korean is written in syllables that join into words; Latin or art read by the Korean
		// model comes back as digits, loose jamo and lone syllables.
		// A lone syllable is a word (너, 왜) only beside words of several.
		run, lone, words := 0, 0, 0
		flush := func() {
			switch {
			case run >= 2:
				own += run
				words++
			case run == 1:
				lone++
			}
			run = 0
		}
		for _, r := range text {
			if r >= 0xAC00 && r <= 0xD7A3 {
				run++
			} else {
				flush()
			}
		}
		flush()
		if words > 0 || all <= 3 {
			own += lone
		}
	case "Japanese":
		for _, r := range text {
			if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) || r == 'ー' {
				own++
			}
		}
	case "Han":
		for _, r := range text {
			if unicode.Is(unicode.Han, r) {
				own++
			}
		}
	}
	return own, all
}

// latinWord reports whether tok could be a word of a Latin-script language: Latin letters only,
// and a vowel unless it is one of the one-letter words.
func latinWord(tok string) bool {
	n := 0
	for _, r := range tok {
		if !unicode.Is(unicode.Latin, r) {
			return false
		}
		n++
	}
	if n == 1 {
		return strings.ContainsRune("aAeEiIoOuUyY", []rune(tok)[0])
	}
	return strings.ContainsAny(strings.ToLower(tok), "aeiouyáéíóúàèìòùâêîôûäëïöüãõåæœ")
}

// scriptOfCJK names the script a CJK language's lettering is read in.
func scriptOfCJK(lang string) string {
	switch lang {
	case "ja":
		return "Japanese"
	case "ko":
		return "Hangul"
	}
	return "Han"
}

// LatinModel is the Tesseract model that reads a page's lettering as Latin under auto: the Latin
// candidates' models together (at most three, to bound the pass), or English's alone when no
// Latin language can be translated, so a Latin page is still never taken for CJK. models maps
// the installed languages to their Tesseract data; installed is all the data Tesseract has.
func LatinModel(candidates []string, models map[string]string, installed []string) (model string, langs []string) {
	var ms []string
	for _, c := range candidates {
		m := models[c]
		if lang.Script(c) != latinScript || m == "" || slices.Contains(ms, m) || len(ms) == 3 {
			continue
		}
		ms, langs = append(ms, m), append(langs, c)
	}
	if len(ms) == 0 && slices.Contains(installed, "eng") {
		return "eng", []string{"en"}
	}
	return strings.Join(ms, "+"), langs
}

// verticalShare is the share of the page's lettering set in columns.
func verticalShare(blocks []*page.Block) float64 {
	v, all := 0, 0
	for _, b := range blocks {
		if b.WorthReading() {
			all += b.Chars()
			if b.Vertical {
				v += b.Chars()
			}
		}
	}
	if all == 0 {
		return 0
	}
	return float64(v) / float64(all)
}

// letteringSize is the page's lettering in estimated characters: what every script's score is a
// share of.
func letteringSize(blocks []*page.Block) float64 {
	n := 0
	for _, b := range blocks {
		if b.WorthReading() {
			n += b.Chars()
		}
	}
	return float64(n)
}

// secondLook settles a close decision between Latin and a CJK script with Tesseract's own script
// detection over the whole page: a look independent of the readings that came out close. It
// reports whether the page is Latin, and ok false when the look could not tell.
func secondLook(ctx context.Context, r Reader, o Options, pa *page.Analysis) (latin bool, script string, ok bool) {
	if !o.HasOSD {
		return false, "", false
	}
	script, err := r.Script(ctx, pa.Gray)
	if err != nil {
		o.Log.DebugContext(ctx, "script detection failed; the higher score decides", "err", err)
		return false, "", false
	}
	switch script {
	case latinScript:
		return true, script, true
	case "Japanese", "Katakana", "Hiragana", "Han", "Hangul":
		return false, script, true
	}
	return false, script, false
}

// describe fills the detection's candidates, best first.
func describe(d *engine.Detection, evs ...*evidence) {
	for _, ev := range evs {
		if ev != nil {
			d.Candidates = append(d.Candidates, ev.candidate())
		}
	}
	slices.SortStableFunc(d.Candidates, func(a, b engine.DetectionCandidate) int { return cmp.Compare(b.Score, a.Score) })
}

// LatinDetection completes, for a page the Latin pipeline translated as lang, the evidence of
// the script decision (nil when no CJK candidate was read) with how lang was told from the other
// Latin-script candidates.
func LatinDetection(d *engine.Detection, lang string, cands []string) *engine.Detection {
	out := &engine.Detection{}
	if d != nil {
		*out = *d
	}
	which := fmt.Sprintf("%s among %s by their common words", lang, strings.Join(cands, ", "))
	if len(cands) == 1 {
		which = lang + ", the one Latin-script language that can be translated here"
	}
	if out.Reason == "" {
		out.Reason = which
	} else {
		out.Reason += "; " + which
	}
	return out
}

// Reason is the reason for logs, "" when there was no detection.
func Reason(d *engine.Detection) string {
	if d == nil {
		return ""
	}
	return d.Reason
}
