package ocr

import (
	"cmp"
	"context"
	"fmt"
	"image"
	"image/color"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/draw"

	"github.com/vtsproject/vts/internal/engine"
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
	readings []reading
	score    float64
	conf     float64
}

// weigh scores the readings on the measure shared by every script.
func (ev *evidence) weigh(blocks []*textBlock) {
	var confSum, n float64
	ev.score, ev.conf = 0, 0
	for i, r := range ev.readings {
		if r.Conf < minReadConf || r.Text == "" {
			continue
		}
		est := blocks[i].chars()
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

// latinModel is the Tesseract model that reads a page's lettering as Latin under auto: the Latin
// candidates' models together (at most three, to bound the pass), or English's alone when no
// Latin language can be translated, so a Latin page is still never taken for CJK.
func (e *Engine) latinModel(p planned) (model string, langs []string) {
	var models []string
	for _, c := range p.candidates {
		m := e.langs[c]
		if scriptOf(c) != latinScript || m == "" || slices.Contains(models, m) || len(models) == 3 {
			continue
		}
		models, langs = append(models, m), append(langs, c)
	}
	if len(models) == 0 && slices.Contains(e.installed, "eng") {
		return "eng", []string{"en"}
	}
	return strings.Join(models, "+"), langs
}

// readLatin reads the page's horizontal blocks with model in one pass (Latin is never set in
// columns, and a page that is Latin reads well the first time). Each block is read whole, as a
// uniform block of text (page segmentation 6), at its own size or larger: the finder's rows are
// cut for square CJK glyphs, and on a photographed page a slight tilt can run a paragraph's
// lines into one "row" that Tesseract, given the block, still reads line by line.
func (e *Engine) readLatin(ctx context.Context, pa *pageAnalysis, blocks []*textBlock, model string) ([]reading, error) {
	out := make([]reading, len(blocks))
	var idx []int
	var crops []*image.Gray
	for i, b := range blocks {
		if !b.Vertical && worthReading(b) {
			idx, crops = append(idx, i), append(crops, latinCrop(pa.gray, b))
		}
	}
	if len(crops) == 0 {
		return out, nil
	}
	rs, err := e.tess.readMany(ctx, crops, model, 6)
	if err != nil {
		return nil, fmt.Errorf("reading lettering as Latin: %w", err)
	}
	for k, i := range idx {
		out[i] = rs[k]
	}
	return out, nil
}

// latinLinePx is the least line height a Latin crop is read at; smaller lettering is enlarged.
const latinLinePx = 32

// latinCrop renders b's lettering black on white, enlarged when its lines are small, padded.
func latinCrop(g *image.Gray, b *textBlock) *image.Gray {
	src := image.NewGray(b.Box)
	for i := range src.Pix {
		src.Pix[i] = 255
	}
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if b.inkAt(x, y) {
				src.SetGray(x, y, color.Gray{})
			}
		}
	}
	scale := max(1, float64(latinLinePx)/float64(max(b.Char, 1)))
	w, h := int(float64(b.Box.Dx())*scale), int(float64(b.Box.Dy())*scale)
	pad := latinLinePx
	out := image.NewGray(image.Rect(0, 0, w+2*pad, h+2*pad))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	draw.CatmullRom.Scale(out, image.Rect(pad, pad, pad+w, pad+h), src, src.Bounds(), draw.Src, nil)
	return out
}

// verticalShare is the share of the page's lettering set in columns.
func verticalShare(blocks []*textBlock) float64 {
	v, all := 0, 0
	for _, b := range blocks {
		if worthReading(b) {
			all += b.chars()
			if b.Vertical {
				v += b.chars()
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
func letteringSize(blocks []*textBlock) float64 {
	n := 0
	for _, b := range blocks {
		if worthReading(b) {
			n += b.chars()
		}
	}
	return float64(n)
}

// secondLook settles a close decision between Latin and a CJK script with Tesseract's own script
// detection over the whole page: a look independent of the readings that came out close. It
// reports whether the page is Latin, and ok false when the look could not tell.
func (e *Engine) secondLook(ctx context.Context, pa *pageAnalysis) (latin bool, script string, ok bool) {
	if !e.hasOSD {
		return false, "", false
	}
	script, err := e.tess.script(ctx, pa.gray)
	if err != nil {
		e.log.DebugContext(ctx, "script detection failed; the higher score decides", "err", err)
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

// latinDetection completes, for a page the Latin pipeline translated as lang, the evidence of
// the script decision (nil when no CJK candidate was read) with how lang was told from the other
// Latin-script candidates.
func latinDetection(d *engine.Detection, lang string, cands []string) *engine.Detection {
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

// detectionReason is the reason for logs, "" when there was no detection.
func detectionReason(d *engine.Detection) string {
	if d == nil {
		return ""
	}
	return d.Reason
}
