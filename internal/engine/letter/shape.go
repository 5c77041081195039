package letter

import (
	"image"
	"image/color"
	"image/draw"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/vtsproject/vts/internal/engine/page"
)

// Lettering into a bubble's shape. A translation into English is longer than the Japanese and
// runs across, not down, so it takes the bubble's interior, not the narrow column box: every line
// is as wide as the bubble is at that height, lines are centred, and the block is centred on the
// bubble. The size is the largest that fits; when even the smallest readable size does not fit,
// the leading tightens, then long words are hyphenated, and only then does the size go lower.

// shapeLine is one set line: its text, and where its centre sits.
type shapeLine struct {
	text  string
	cx    int
	width fixed.Int26_6
}

type shapeLayout struct {
	face     font.Face
	lines    []shapeLine
	lineH    fixed.Int26_6
	top      fixed.Int26_6
	overflow bool
}

// spanAt is the run of the area containing x on row y, or the widest run when x is outside.
func spanAt(area *page.Mask, x, y int) (int, int) {
	if y < area.Box.Min.Y || y >= area.Box.Max.Y {
		return 0, 0
	}
	row := area.Mask[(y-area.Box.Min.Y)*area.Box.Dx():][:area.Box.Dx()]
	lx := x - area.Box.Min.X
	if lx < 0 || lx >= len(row) || !row[lx] {
		return area.RowSpan(y)
	}
	a, b := lx, lx
	for a > 0 && row[a-1] {
		a--
	}
	for b < len(row) && row[b] {
		b++
	}
	return area.Box.Min.X + a, area.Box.Min.X + b
}

// bandSpan is the horizontal room all rows of [y0, y1) share around x.
func bandSpan(area *page.Mask, x, y0, y1 int) (int, int) {
	lo, hi := -1<<30, 1<<30
	for _, y := range []int{y0, (y0 + y1) / 2, y1 - 1} {
		a, b := spanAt(area, x, y)
		lo, hi = max(lo, a), min(hi, b)
	}
	if hi <= lo {
		return x, x
	}
	return lo, hi
}

// centroid is the mean position of the area's pixels.
func centroid(area *page.Mask) image.Point {
	var sx, sy, n int
	w := area.Box.Dx()
	for i, on := range area.Mask {
		if on {
			sx += i % w
			sy += i / w
			n++
		}
	}
	if n == 0 {
		return image.Pt((area.Box.Min.X+area.Box.Max.X)/2, (area.Box.Min.Y+area.Box.Max.Y)/2)
	}
	return image.Pt(area.Box.Min.X+sx/n, area.Box.Min.Y+sy/n)
}

// setting is how lines are set: the leading, whether words may be hyphenated, and the margin
// kept at each end of a line, in line heights.
type setting struct {
	leading float64
	hyph    bool
	margin  float64
}

// roomy is the margin a line keeps from the area's edge at each end; tight lets a line use all
// of the area (itself kept clear of the outline) before a word is broken.
const (
	roomy = 1.0 / 6
	tight = 0.0
)

// lineHeight is the height of a line of face set at s's leading.
func (s setting) lineHeight(face font.Face) fixed.Int26_6 {
	m := face.Metrics()
	return fixed.Int26_6(float64(m.Ascent+m.Descent) * s.leading)
}

// band is the line of height lineH whose top is top in area: the centre of the room the area
// has there around center, and that room's width less s's margin at each end.
func (s setting) band(area *page.Mask, center image.Point, top, lineH fixed.Int26_6) (cx int, room float64) {
	y0 := top.Floor()
	x0, x1 := bandSpan(area, center.X, y0, y0+lineH.Ceil())
	return (x0 + x1) / 2, float64(x1-x0) - 2*s.margin*float64(lineH.Ceil())
}

// tryShape sets toks at one face and setting in area, returning false when they do not fit.
// Each line may take squeeze (at most 1) of the room its band of the area has, less the
// setting's margin at each end.
func tryShape(face font.Face, toks []string, area *page.Mask, center image.Point, s setting, squeeze float64) (shapeLayout, bool) {
	lineH := s.lineHeight(face)
	if lineH <= 0 {
		return shapeLayout{}, false
	}
	maxLines := area.Box.Dy() / max(1, lineH.Ceil())
	for n := 1; n <= maxLines; n++ {
		top := fixed.I(center.Y) - lineH.Mul(fixed.I(n))/2
		lay := shapeLayout{face: face, lineH: lineH, top: top}
		queue := append([]string(nil), toks...)
		ok := true
		for k := 0; k < n && len(queue) > 0; k++ {
			cx, room := s.band(area, center, top+lineH.Mul(fixed.I(k)), lineH)
			maxW := fixed.Int26_6(max(0, room*squeeze) * 64)
			cur := ""
			for len(queue) > 0 {
				cand := queue[0]
				if cur != "" {
					cand = cur + " " + queue[0]
				}
				if font.MeasureString(face, cand) <= maxW {
					cur = cand
					queue = queue[1:]
					continue
				}
				if cur == "" && s.hyph {
					head, tail := splitToFit(face, queue[0], maxW)
					if head != "" {
						cur = head
						queue[0] = tail
					}
				}
				break
			}
			if cur == "" {
				ok = false
				break
			}
			lay.lines = append(lay.lines, shapeLine{text: cur, cx: cx, width: font.MeasureString(face, cur)})
		}
		if ok && len(queue) == 0 {
			// Centre the lines actually used.
			used := len(lay.lines)
			lay.top = fixed.I(center.Y) - lineH.Mul(fixed.I(used))/2
			return lay, true
		}
	}
	return shapeLayout{}, false
}

// maxRebreak is the most words rebreak tries every way of breaking.
const maxRebreak = 10

// rebreak sets toks in n lines of area with no short word alone on a line, trying every way
// of breaking them, and keeps the one whose fullest line has the most room to spare: filling
// each line in turn sets "Hey, are / you / listening?" where a letterer sets "Hey, / are you /
// listening?". It reports false when none fits, or the text has more than maxRebreak words.
func rebreak(face font.Face, toks []string, area *page.Mask, center image.Point, s setting, n int) (shapeLayout, bool) {
	if len(toks) > maxRebreak || n < 2 || n > len(toks) {
		return shapeLayout{}, false
	}
	lineH := s.lineHeight(face)
	lay := shapeLayout{face: face, lineH: lineH, top: fixed.I(center.Y) - lineH.Mul(fixed.I(n))/2}
	cx, maxW := make([]int, n), make([]fixed.Int26_6, n)
	for k := range n {
		var room float64
		cx[k], room = s.band(area, center, lay.top+lineH.Mul(fixed.I(k)), lineH)
		maxW[k] = fixed.Int26_6(max(0, room) * 64)
	}
	var best []shapeLine
	bestLoad := 2.0
	lines := make([]shapeLine, 0, n)
	var place func(k, start int, load float64)
	place = func(k, start int, load float64) {
		if k == n {
			if cand := (shapeLayout{face: face, lines: lines}); start == len(toks) && load < bestLoad && !stacked(cand, len(toks)) {
				best, bestLoad = slices.Clone(lines), load
			}
			return
		}
		for end := start + 1; end <= len(toks)-(n-1-k); end++ {
			text := strings.Join(toks[start:end], " ")
			w := font.MeasureString(face, text)
			if w > maxW[k] {
				break
			}
			lines = append(lines, shapeLine{text: text, cx: cx[k], width: w})
			place(k+1, end, max(load, float64(w)/float64(maxW[k])))
			lines = lines[:k]
		}
	}
	place(0, 0, 0)
	lay.lines = best
	return lay, best != nil
}

// splitToFit hyphenates word so that its head (with the hyphen) fits maxW, keeping three
// letters before the break and two after it, and three characters with its marks: a short
// word ("Eek!", "Quiet!") is never broken. It cuts where a syllable ends if it can
// (syllableEnd); else after a vowel that a consonant follows, where a syllable often ends
// (pro-tect, every-thing); anywhere else only in a long word, and when neither fits (sch-ool
// reads as a misprint; a smaller size is better).
func splitToFit(face font.Face, word string, maxW fixed.Int26_6) (string, string) {
	runes := []rune(word)
	afterVowel := func(cut int) bool {
		return vowel(runes[cut-1]) && unicode.IsLetter(runes[cut]) && !vowel(runes[cut])
	}
	tiers := []func(int) bool{func(cut int) bool { return syllableEnd(runes, cut) }, afterVowel}
	if letters(runes) >= minBreakAnywhere {
		tiers = append(tiers, func(int) bool { return true })
	}
	for _, good := range tiers {
		for cut := len(runes) - 3; cut >= 3; cut-- {
			if letters(runes[:cut]) < 3 || letters(runes[cut:]) < 2 || !good(cut) {
				continue
			}
			if head := string(runes[:cut]) + "-"; font.MeasureString(face, head) <= maxW {
				return head, string(runes[cut:])
			}
		}
	}
	return "", word
}

// compoundHeads are the English words that start compounds most often in dialogue (someone,
// anything, everywhere, without, whatever), where the break falls between the two words.
var compoundHeads = map[string]bool{
	"some": true, "any": true, "every": true, "with": true, "what": true, "where": true,
	"when": true, "there": true, "here": true, "over": true, "under": true, "out": true,
	"down": true, "back": true, "after": true,
}

// minBreakAnywhere is the fewest letters a word has that may be broken where no syllable ends.
const minBreakAnywhere = 8

// letters counts the letters among rs, not its marks.
func letters(rs []rune) int {
	n := 0
	for _, r := range rs {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// vowel reports whether r is a vowel of a Latin-script language (y taken for one).
func vowel(r rune) bool {
	return strings.ContainsRune("aeiouyàáâäèéêëìíîïòóôöùúûü", unicode.ToLower(r))
}

// syllableEnd reports whether a reader of a Latin-script language expects a syllable to end
// before runes[cut]: after the first word of a compound (some-one, every-thing), before a
// common ending (strong-er, fight-ing), or between two consonants that are neither one sound
// (t-h, n-g, c-k) nor the start of a syllable (under-stand, not unders-tand): hap-pen, win-dow.
// A cut anywhere else (stro-nger, som-eone) makes the reader stumble.
func syllableEnd(runes []rune, cut int) bool {
	a, b := unicode.ToLower(runes[cut-1]), unicode.ToLower(runes[cut])
	if !unicode.IsLetter(a) || !unicode.IsLetter(b) {
		return false
	}
	if compoundHeads[strings.ToLower(string(runes[:cut]))] {
		return true
	}
	if !strings.ContainsFunc(string(runes[:cut]), vowel) {
		return false // str-ing
	}
	tail := strings.ToLower(strings.TrimRightFunc(string(runes[cut:]), func(r rune) bool { return !unicode.IsLetter(r) }))
	switch tail {
	case "ing", "ings":
		return a != 'h' // some-thing, not someth-ing
	case "er", "ers", "est", "ly", "ful", "less", "ness", "ment", "tion", "tions", "able":
		return true
	case "ed": // a syllable of its own only after t or d: want-ed, not tir-ed
		return a == 't' || a == 'd'
	}
	if vowel(a) || vowel(b) {
		return false
	}
	switch string([]rune{a, b}) {
	case "th", "ch", "sh", "ph", "wh", "gh", "ck", "ng", "qu", // one sound
		"st", "sp", "sc", "sk", "pl", "pr", "bl", "br", "cl", "cr", "dr", "fl", "fr", "gl", "gr", "tr": // a syllable's start: under-stand
		return false
	}
	return true
}

// fitShape finds the largest size in [minReadable, maxSize] that fits text into area, trying
// normal then tight leading (with no short word alone on a line of a column: see stacked and
// rebreak, and then without that rule), then lines without their margin, then hyphenation,
// and only then sizes down to half of minReadable; the lines it found are then balanced (see
// balance).
//
// The lines are centred on the area's centroid when it lies near, within a character of the
// source's lettering (near is that grown box); otherwise on the lettering's centre, in a
// square of the area about it: a bubble whose paper runs on past its balloon (a balloon open
// at one side to a panel's white) has its centroid out on that paper, where the art is.
func (l *letterer) fitShape(area *page.Mask, near image.Rectangle, maxSize, minReadable float64) shapeLayout {
	toks := strings.Fields(l.text)
	center := centroid(area)
	if c := near.Min.Add(near.Max).Div(2); !near.Empty() && !center.In(near) && area.Has(c.X, c.Y) {
		// The paper that ran on is no room to letter into either: the area is kept to a
		// square about the source as wide as the source is long, even on either side.
		center = c
		half := max(near.Dx(), near.Dy()) / 2
		r := min(half, c.X-area.Box.Min.X, area.Box.Max.X-c.X)
		area = area.Within(image.Rect(c.X-r, c.Y-half, c.X+r, c.Y+half))
	}
	search := func(lo, hi float64, s setting, strict bool) (shapeLayout, bool) {
		try := func(size float64) (shapeLayout, bool) {
			lay, ok := tryShape(l.face(size), toks, area, center, s, 1)
			if ok && strict && stacked(lay, len(toks)) {
				lay, ok = rebreak(lay.face, toks, area, center, s, len(lay.lines))
			}
			return lay, ok && (!strict || !stacked(lay, len(toks)))
		}
		var best shapeLayout
		found := false
		if lay, ok := try(hi); ok {
			return lay, true
		}
		for range 10 {
			if hi-lo < 0.5 {
				break
			}
			mid := (lo + hi) / 2
			if lay, ok := try(mid); ok {
				lo, best, found = mid, lay, true
			} else {
				hi = mid
			}
		}
		if !found {
			if lay, ok := try(lo); ok {
				return lay, true
			}
		}
		return best, found
	}
	maxSize = max(maxSize, minReadable)
	for _, step := range []struct {
		lo     float64
		s      setting
		strict bool
	}{
		{minReadable, setting{1.15, false, roomy}, true},
		{minReadable, setting{0.95, false, roomy}, true},
		{minReadable, setting{1.15, false, roomy}, false},
		{minReadable, setting{0.95, false, roomy}, false},
		// A word that does not fit its line is set closer to the balloon's edge before it is
		// broken: a letterer lets "school" touch the margin, never sets "sch-ool".
		{minReadable, setting{0.95, false, tight}, false},
		{minReadable, setting{0.95, true, tight}, false},
		{minReadable / 2, setting{0.95, true, tight}, false},
	} {
		if lay, ok := search(step.lo, maxSize, step.s, step.strict); ok {
			return balance(lay, toks, area, center, step.s)
		}
	}
	// Nothing fits even at half the readable size: set it at the readable size across the
	// bubble's widest row and let it run over, rather than print what nobody can read.
	face := l.face(minReadable)
	box := area.Box
	lay := l.rewrapLoose(face, toks, box.Dx())
	out := shapeLayout{face: face, lineH: lay.lineHeight, overflow: true}
	out.top = fixed.I(center.Y) - lay.lineHeight.Mul(fixed.I(len(lay.lines)))/2
	for i, s := range lay.lines {
		out.lines = append(out.lines, shapeLine{text: s, cx: center.X, width: lay.widths[i]})
	}
	return out
}

// balance evens out the lines of lay: greedy filling leaves a long first line and a short last
// one ("I told you / so"), where a letterer sets lines of like length. It finds the narrowest
// room that still takes the text in as many lines, at the same size.
func balance(lay shapeLayout, toks []string, area *page.Mask, center image.Point, s setting) shapeLayout {
	n := len(lay.lines)
	if n < 2 {
		return lay
	}
	lo, hi := 0.4, 1.0
	for range 7 {
		mid := (lo + hi) / 2
		if cand, ok := tryShape(lay.face, toks, area, center, s, mid); ok && len(cand.lines) == n && !hyphenated(cand) && (stacked(lay, len(toks)) || !stacked(cand, len(toks))) {
			lay, hi = cand, mid
		} else {
			lo = mid
		}
	}
	return lay
}

// stacked reports whether a layout of a text of words words sets them one to a line in a
// column with a short word alone on its line ("Fine, / I / guess / I'll"), which reads badly: a
// smaller size that pairs the words is better lettering. Longer words one to a line are how a
// tall, narrow balloon is lettered ("Looks / like the / train / already / left."), and so is
// a short word that a mark ends, a call or a cry ("Hey, / are you / listening?").
func stacked(lay shapeLayout, words int) bool {
	if words < 4 {
		return false
	}
	single, short := 0, false
	for _, ln := range lay.lines {
		if !strings.Contains(ln.text, " ") {
			single++
			word := []rune(ln.text)
			short = short || letters(word) <= 3 && !strings.ContainsRune(",!?…", word[len(word)-1])
		}
	}
	return short && single >= 2 && single*2 >= len(lay.lines)
}

// hyphenated reports whether a layout broke a word: balancing must not break one that the
// fitted layout kept whole.
func hyphenated(lay shapeLayout) bool {
	for _, ln := range lay.lines {
		if strings.HasSuffix(ln.text, "-") {
			return true
		}
	}
	return false
}

// bounds is the box the layout's lines take, their descenders included.
func (lay shapeLayout) bounds() image.Rectangle {
	var r image.Rectangle
	if lay.face == nil {
		return r
	}
	over := lay.face.Metrics().Height.Ceil() / 4 // what glyphs reach past their line's cell
	for i, ln := range lay.lines {
		y0 := lay.top + lay.lineH.Mul(fixed.I(i))
		line := image.Rect((fixed.I(ln.cx) - ln.width/2).Floor(), y0.Floor(), (fixed.I(ln.cx) + ln.width/2).Ceil(), (y0 + lay.lineH).Ceil())
		r = r.Union(line.Inset(-over))
	}
	return r
}

// draw letters the layout.
func (lay shapeLayout) draw(dst draw.Image, ink color.Color) {
	if lay.face == nil {
		return
	}
	m := lay.face.Metrics()
	d := font.Drawer{Dst: dst, Src: image.NewUniform(ink), Face: lay.face}
	for i, ln := range lay.lines {
		y := lay.top + lay.lineH.Mul(fixed.I(i)) + (lay.lineH-m.Ascent-m.Descent)/2 + m.Ascent
		d.Dot = fixed.Point26_6{X: fixed.I(ln.cx) - ln.width/2, Y: y}
		d.DrawString(ln.text)
	}
}

// drawVertical letters CJK text top to bottom in columns right to left inside box, at the
// largest size that fits, as vertical bubbles are lettered.
func (l *letterer) drawVertical(dst *image.RGBA, box image.Rectangle, maxSize float64, ink color.Color) {
	runes := []rune(strings.Join(strings.Fields(l.text), ""))
	n := len(runes)
	if n == 0 {
		return
	}
	size := maxSize
	for ; size > minFontPx; size *= 0.92 {
		perCol := int(float64(box.Dy()) / (size * 1.05))
		if perCol < 1 {
			continue
		}
		cols := (n + perCol - 1) / perCol
		if float64(cols)*size*1.3 <= float64(box.Dx()) {
			break
		}
	}
	face := l.face(size)
	if face == nil {
		return
	}
	perCol := max(1, int(float64(box.Dy())/(size*1.05)))
	cols := (n + perCol - 1) / perCol
	pitch := size * 1.3
	right := float64(box.Min.X+box.Max.X)/2 + float64(cols)*pitch/2
	rows := min(n, perCol)
	top := float64(box.Min.Y+box.Max.Y)/2 - float64(rows)*size*1.05/2
	m := face.Metrics()
	d := font.Drawer{Dst: dst, Src: image.NewUniform(ink), Face: face}
	for i, r := range runes {
		c, k := i/perCol, i%perCol
		adv, _ := face.GlyphAdvance(r)
		x := right - float64(c)*pitch - pitch/2 - float64(adv.Round())/2
		y := top + float64(k)*size*1.05
		d.Dot = fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(y*64) + m.Ascent}
		d.DrawString(string(r))
	}
}
