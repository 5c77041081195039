package letter

import (
	"image"
	"image/color"
	"math"
	"strings"
	"unicode"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// letterer sets one translation into a box, as a letterer fills a bubble: the largest size that
// fits, lines centred, the block centred vertically.
type letterer struct {
	fnt  *sfnt.Font
	cjk  bool
	text string
}

// layout is a fitted arrangement of lines at one size.
type layout struct {
	face       font.Face
	lines      []string
	widths     []fixed.Int26_6
	lineHeight fixed.Int26_6
}

func (l *letterer) face(size float64) font.Face {
	face, err := opentype.NewFace(l.fnt, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil
	}
	return face
}

// tokens splits text into wrap units: words for spaced scripts, and single characters for CJK,
// where a line may break between any two characters.
func (l *letterer) tokens() []string {
	if !l.cjk {
		return strings.Fields(l.text)
	}
	var toks []string
	for _, w := range strings.Fields(l.text) {
		var latin strings.Builder
		for _, r := range w {
			if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || unicode.IsPunct(r) {
				if latin.Len() > 0 {
					toks = append(toks, latin.String())
					latin.Reset()
				}
				toks = append(toks, string(r))
				continue
			}
			latin.WriteRune(r)
		}
		if latin.Len() > 0 {
			toks = append(toks, latin.String())
		}
	}
	return toks
}

// wrap breaks the text into lines no wider than width at the given face; ok is false when a
// single unit is wider than the box or the lines are taller than height.
func (l *letterer) wrap(face font.Face, toks []string, width, height int) (layout, bool) {
	lay := layout{face: face, lineHeight: face.Metrics().Height}
	sep := " "
	if l.cjk {
		sep = ""
	}
	maxW := fixed.I(width)
	cur := ""
	flush := func() {
		lay.lines = append(lay.lines, cur)
		lay.widths = append(lay.widths, font.MeasureString(face, cur))
	}
	for _, t := range toks {
		if font.MeasureString(face, t) > maxW {
			return lay, false
		}
		cand := t
		if cur != "" {
			s := sep
			if l.cjk && !isCJKRune(t) && !strings.HasSuffix(cur, " ") {
				s = ""
			}
			cand = cur + s + t
		}
		if font.MeasureString(face, cand) <= maxW {
			cur = cand
			continue
		}
		flush()
		cur = t
	}
	if cur != "" {
		flush()
	}
	return lay, lay.lineHeight.Mul(fixed.I(len(lay.lines))) <= fixed.I(height)
}

func isCJKRune(s string) bool {
	for _, r := range s {
		return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
	}
	return false
}

// minFontPx is the smallest lettering drawn; below it text is unreadable anyway, so a
// translation that does not fit at this size overflows its box instead of shrinking further.
const minFontPx = 9

// fit binary-searches the largest font size in [minFontPx, maxSize] whose wrapped lines fit in
// box.
func (l *letterer) fit(box image.Rectangle, maxSize float64) layout {
	toks := l.tokens()
	lo, hi := float64(minFontPx), max(maxSize, minFontPx)
	var best layout
	if lay, ok := l.wrap(l.face(hi), toks, box.Dx(), box.Dy()); ok {
		return lay
	}
	for range 12 {
		mid := (lo + hi) / 2
		lay, ok := l.wrap(l.face(mid), toks, box.Dx(), box.Dy())
		if ok {
			lo, best = mid, lay
		} else {
			hi = mid
		}
		if hi-lo < 0.5 {
			break
		}
	}
	if best.face == nil {
		// Nothing fits: letter at the minimum size and let long words overflow.
		best, _ = l.wrap(l.face(lo), toks, 1<<20, 1<<20)
		best = l.rewrapLoose(best.face, toks, box.Dx())
	}
	return best
}

// rewrapLoose wraps greedily at width, letting a single over-long unit take its own line.
func (l *letterer) rewrapLoose(face font.Face, toks []string, width int) layout {
	lay := layout{face: face, lineHeight: face.Metrics().Height}
	sep := " "
	if l.cjk {
		sep = ""
	}
	cur := ""
	for _, t := range toks {
		cand := t
		if cur != "" {
			cand = cur + sep + t
		}
		if cur == "" || font.MeasureString(face, cand) <= fixed.I(width) {
			cur = cand
			continue
		}
		lay.lines = append(lay.lines, cur)
		lay.widths = append(lay.widths, font.MeasureString(face, cur))
		cur = t
	}
	if cur != "" {
		lay.lines = append(lay.lines, cur)
		lay.widths = append(lay.widths, font.MeasureString(face, cur))
	}
	return lay
}

// draw letters lay centred in box.
func (lay layout) draw(dst *image.RGBA, box image.Rectangle, ink color.Color) {
	if lay.face == nil || len(lay.lines) == 0 {
		return
	}
	m := lay.face.Metrics()
	total := lay.lineHeight.Mul(fixed.I(len(lay.lines)))
	// Centre the ink, not the line boxes: ascent+descent minus the last line's gap.
	top := fixed.I(box.Min.Y) + (fixed.I(box.Dy())-total)/2
	d := font.Drawer{Dst: dst, Src: image.NewUniform(ink), Face: lay.face}
	for i, s := range lay.lines {
		x := fixed.I(box.Min.X) + (fixed.I(box.Dx())-lay.widths[i])/2
		y := top + lay.lineHeight.Mul(fixed.I(i)) + (lay.lineHeight-m.Ascent-m.Descent)/2 + m.Ascent
		d.Dot = fixed.Point26_6{X: x, Y: y}
		d.DrawString(s)
	}
}

// luminance is the relative luminance of c in [0,1], as WCAG defines contrast.
func luminance(c color.RGBA) float64 {
	lin := func(v uint8) float64 {
		f := float64(v) / 255
		if f <= 0.04045 {
			return f / 12.92
		}
		return math.Pow((f+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

func contrast(a, b color.RGBA) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// InkFor keeps the original lettering colour when it still reads well on the background, and
// otherwise takes black or white, whichever contrasts more.
func InkFor(original, bg color.RGBA, haveOriginal bool) color.RGBA {
	if haveOriginal && contrast(original, bg) >= 3 {
		return original
	}
	black, white := color.RGBA{0, 0, 0, 255}, color.RGBA{255, 255, 255, 255}
	if contrast(white, bg) > contrast(black, bg) {
		return white
	}
	return black
}
