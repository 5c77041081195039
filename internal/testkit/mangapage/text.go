package mangapage

import (
	"image"
	"image/draw"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
)

// ruby is a run of base glyphs [Start, End) with its reading.
type ruby struct {
	Start, End int
	Kana       string
}

// script is a line parsed out of the dialogue table's markup.
type script struct {
	Glyphs []rune
	// Breaks holds the glyph indices a column or line may start at.
	Breaks map[int]bool
	Rubies []ruby
}

// parseJA reads "/" breaks and {base|reading} furigana.
func parseJA(src string) script {
	s := script{Breaks: map[int]bool{}}
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRuneInString(src[i:])
		switch r {
		case '/':
			s.Breaks[len(s.Glyphs)] = true
			i += n
		case '{':
			end := strings.IndexByte(src[i:], '}')
			body := src[i+1 : i+end]
			base, kana, _ := strings.Cut(body, "|")
			start := len(s.Glyphs)
			s.Glyphs = append(s.Glyphs, []rune(base)...)
			s.Rubies = append(s.Rubies, ruby{Start: start, End: len(s.Glyphs), Kana: kana})
			i += end + 1
		default:
			s.Glyphs = append(s.Glyphs, r)
			i += n
		}
	}
	return s
}

// parsePlain reads Korean and Chinese: Korean breaks after spaces, Chinese anywhere.
func parsePlain(src string, anywhere bool) script {
	s := script{Glyphs: []rune(src), Breaks: map[int]bool{}}
	for i, r := range s.Glyphs {
		if anywhere || (i > 0 && s.Glyphs[i-1] == ' ' && r != ' ') {
			s.Breaks[i] = true
		}
	}
	return s
}

func (s script) text() string { return string(s.Glyphs) }

// noStart are the characters a column may not begin with (kinsoku shori).
const noStart = "。、，．！？!?ー…‥〜～っゃゅょぁぃぅぇぉッャュョァィゥェォ」』）】"

func inRuby(s script, i int) bool {
	for _, r := range s.Rubies {
		if i > r.Start && i < r.End {
			return true
		}
	}
	return false
}

// columns splits s into runs of at most maxLen glyphs, breaking at the marked phrase breaks
// when it can; everyBreak starts a new run at each break, as letterers often do.
func columns(s script, maxLen int, everyBreak bool) [][2]int {
	var segs [][2]int
	start := 0
	for i := 1; i <= len(s.Glyphs); i++ {
		if i == len(s.Glyphs) || s.Breaks[i] {
			segs = append(segs, [2]int{start, i})
			start = i
		}
	}
	var cols [][2]int
	cur := [2]int{0, 0}
	for _, sg := range segs {
		n := sg[1] - sg[0]
		curLen := cur[1] - cur[0]
		// A closing mark stays with what it closes, even past the column's length.
		closing := strings.ContainsRune(noStart, s.Glyphs[sg[0]]) || s.Glyphs[sg[0]] == ' '
		if curLen > 0 && (curLen+n > maxLen || everyBreak) && !(closing && curLen+n <= maxLen+2) {
			cols = append(cols, cur)
			cur = [2]int{sg[0], sg[0]}
		}
		cur[1] = sg[1]
		// A phrase longer than a column is cut where kinsoku and furigana allow.
		for cur[1]-cur[0] > maxLen {
			cut := cur[0] + maxLen
			for cut > cur[0]+1 && (strings.ContainsRune(noStart, s.Glyphs[cut]) || inRuby(s, cut)) {
				cut--
			}
			cols = append(cols, [2]int{cur[0], cut})
			cur[0] = cut
		}
	}
	if cur[1] > cur[0] {
		cols = append(cols, cur)
	}
	return cols
}

// vstyle is how a block of vertical Japanese is set.
type vstyle struct {
	Face     font.Face
	Kanji    font.Face // for kanji when set: the "antique" style, gothic kanji among mincho kana
	Size     float64   // em in pixels
	Ruby     font.Face
	RubySize float64
	Pitch    float64 // advance from one character to the next, down a column
	Gap      float64 // space between columns, besides furigana
	Centered bool    // columns centred vertically rather than hung from the top
	TCY      bool    // "！？" and "！！" set side by side in one cell (tate-chu-yoko)
}

const (
	smallKana  = "っゃゅょぁぃぅぇぉゎッャュョァィゥェォヮヵヶ"
	shiftPunct = "。、，．"
	// Rotated about the cell centre (brackets keep their side of the cell).
	rotCell = "「」『』（）【】〈〉《》〔〕"
	// Rotated and centred (long vowel mark, waves, ellipses, dashes).
	rotCentre = "ー―〜～…‥－—"
)

type cell struct{ glyphs []rune }

func cellsOf(s script, c [2]int, tcy bool) ([]cell, []int) {
	var cells []cell
	var first []int // cell index of each glyph
	for i := c[0]; i < c[1]; i++ {
		r := s.Glyphs[i]
		if tcy && i+1 < c[1] && (r == '！' || r == '？') && (s.Glyphs[i+1] == '！' || s.Glyphs[i+1] == '？') {
			cells = append(cells, cell{[]rune{r, s.Glyphs[i+1]}})
			first = append(first, len(cells)-1, len(cells)-1)
			i++
			continue
		}
		cells = append(cells, cell{[]rune{r}})
		first = append(first, len(cells)-1)
	}
	return cells, first
}

// setVertical letters s in columns top to bottom, right to left, into a coverage mask whose
// origin is the block's top-left.
func setVertical(s script, cols [][2]int, st vstyle) *image.Alpha {
	rubyW := 0.0
	if len(s.Rubies) > 0 {
		rubyW = st.RubySize * 1.05
	}
	slot := st.Size + rubyW + st.Gap
	maxCells := 0
	colCells := make([][]cell, len(cols))
	colFirst := make([][]int, len(cols))
	for i, c := range cols {
		colCells[i], colFirst[i] = cellsOf(s, c, st.TCY)
		maxCells = max(maxCells, len(colCells[i]))
	}
	pad := int(st.Size)
	w := int(math.Ceil(slot*float64(len(cols))-st.Gap)) + 2*pad
	h := int(math.Ceil(st.Pitch*float64(maxCells))) + 2*pad
	dst := image.NewAlpha(image.Rect(0, 0, w, h))
	for ci, c := range cols {
		right := float64(w-pad) - slot*float64(ci)
		x := right - rubyW - st.Size
		y0 := float64(pad)
		if st.Centered {
			y0 += (float64(maxCells) - float64(len(colCells[ci]))) * st.Pitch / 2
		}
		for k, cl := range colCells[ci] {
			face := st.Face
			if st.Kanji != nil && unicode.Is(unicode.Han, cl.glyphs[0]) {
				face = st.Kanji
			}
			drawCell(dst, face, cl, x, y0+float64(k)*st.Pitch, st.Size)
		}
		// Furigana beside the kanji runs of this column.
		for _, rb := range s.Rubies {
			if rb.Start < c[0] || rb.Start >= c[1] {
				continue
			}
			top := y0 + float64(colFirst[ci][rb.Start-c[0]])*st.Pitch
			bottom := y0 + float64(colFirst[ci][min(rb.End, c[1])-1-c[0]]+1)*st.Pitch
			kana := []rune(rb.Kana)
			span := float64(len(kana)) * st.RubySize
			ry := (top+bottom)/2 - span/2
			if span < bottom-top && len(kana) > 1 {
				// Spread the reading over the base run.
				step := (bottom - top) / float64(len(kana))
				for j, r := range kana {
					drawCell(dst, st.Ruby, cell{[]rune{r}}, x+st.Size+rubyW*0.05, top+float64(j)*step+(step-st.RubySize)/2, st.RubySize)
				}
				continue
			}
			for j, r := range kana {
				drawCell(dst, st.Ruby, cell{[]rune{r}}, x+st.Size+rubyW*0.05, ry+float64(j)*st.RubySize, st.RubySize)
			}
		}
	}
	return dst
}

// drawCell letters one vertical cell whose top-left is (x, y).
func drawCell(dst *image.Alpha, face font.Face, c cell, x, y, size float64) {
	if len(c.glyphs) == 2 {
		// Tate-chu-yoko: two half-width marks side by side.
		half := map[rune]rune{'！': '!', '？': '?'}
		for i, r := range c.glyphs {
			hr := half[r]
			adv, _ := face.GlyphAdvance(hr)
			cx := x + size*(0.28+0.44*float64(i))
			drawGlyph(dst, face, hr, cx-fx(adv)/2, y+0.88*size)
		}
		return
	}
	r := c.glyphs[0]
	adv, ok := face.GlyphAdvance(r)
	if !ok {
		return
	}
	gx := x + (size-fx(adv))/2
	base := y + 0.88*size
	switch {
	case strings.ContainsRune(shiftPunct, r):
		drawGlyph(dst, face, r, gx+0.56*size, base-0.56*size)
	case strings.ContainsRune(smallKana, r):
		drawGlyph(dst, face, r, gx+0.1*size, base-0.13*size)
	case strings.ContainsRune(rotCell, r), strings.ContainsRune(rotCentre, r):
		pad := int(size)
		tmp := image.NewAlpha(image.Rect(int(x)-pad, int(y)-pad, int(x+size)+pad, int(y+size)+pad))
		drawGlyph(tmp, face, r, gx, base)
		centre := pt{x + size/2, y + size/2}
		from := centre
		if strings.ContainsRune(rotCentre, r) {
			if b := inkBounds(tmp); !b.Empty() {
				from = pt{float64(b.Min.X+b.Max.X) / 2, float64(b.Min.Y+b.Max.Y) / 2}
			}
		}
		m := rotation(from, math.Pi/2)
		m.C += centre.X - from.X
		m.F += centre.Y - from.Y
		over(dst, transformAlpha(tmp, m, dst.Rect))
	default:
		drawGlyph(dst, face, r, gx, base)
	}
}

func fx(v fixed.Int26_6) float64 { return float64(v) / 64 }

// drawGlyph draws r with its origin (left end of the baseline) at (x, y).
func drawGlyph(dst *image.Alpha, face font.Face, r rune, x, y float64) {
	dot := fixed.Point26_6{X: fixed.Int26_6(math.Round(x * 64)), Y: fixed.Int26_6(math.Round(y * 64))}
	dr, mask, mp, _, ok := face.Glyph(dot, r)
	if !ok {
		return
	}
	draw.DrawMask(dst, dr, image.Opaque, image.Point{}, mask, mp, draw.Over)
}

// setHorizontal letters lines left to right, each centred, into a mask whose origin is the
// block's top-left.
func setHorizontal(lines []string, face font.Face, size, leading float64) *image.Alpha {
	widths := make([]float64, len(lines))
	maxW := 0.0
	for i, l := range lines {
		widths[i] = fx(font.MeasureString(face, l))
		maxW = math.Max(maxW, widths[i])
	}
	pad := int(size)
	w := int(math.Ceil(maxW)) + 2*pad
	h := int(math.Ceil(leading*float64(len(lines)-1)+size)) + 2*pad
	dst := image.NewAlpha(image.Rect(0, 0, w, h))
	for i, l := range lines {
		x := float64(pad) + (maxW-widths[i])/2
		y := float64(pad) + leading*float64(i) + 0.88*size
		for _, r := range l {
			drawGlyph(dst, face, r, x, y)
			adv, _ := face.GlyphAdvance(r)
			x += fx(adv)
		}
	}
	return dst
}

// wrapLines splits s into lines of at most maxLen glyphs at its breaks.
func wrapLines(s script, maxLen int) []string {
	var out []string
	for _, c := range columns(s, maxLen, false) {
		out = append(out, strings.TrimSpace(string(s.Glyphs[c[0]:c[1]])))
	}
	return out
}

// trim crops a mask to its ink plus margin pixels.
func trim(a *image.Alpha, margin int) *image.Alpha {
	b := inkBounds(a)
	if b.Empty() {
		return a
	}
	b = b.Inset(-margin).Intersect(a.Rect)
	out := image.NewAlpha(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		copy(out.Pix[out.PixOffset(b.Min.X, y):out.PixOffset(b.Max.X, y)], a.Pix[a.PixOffset(b.Min.X, y):a.PixOffset(b.Max.X, y)])
	}
	return out
}

// moved returns a with its bounds translated by d (the pixels stay; only coordinates change).
func moved(a *image.Alpha, d image.Point) *image.Alpha {
	c := *a
	c.Rect = a.Rect.Add(d)
	return &c
}
