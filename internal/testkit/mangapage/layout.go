package mangapage

import (
	"image"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
)

// layout sets d's text at size into a trimmed mask with its origin at the ink's top-left.
func (g *generator) layout(kind string, d dialogue, fnt *sfnt.Font, size float64, style balloonStyle) (*item, error) {
	rng := g.rng
	face, err := newFace(fnt, size)
	if err != nil {
		return nil, err
	}
	defer face.Close()
	it := &item{Kind: kind, D: d}
	var m *image.Alpha
	switch {
	case g.lang == "ja" && (kind != KindCaption || rng.Float64() < 0.5):
		s := parseJA(d.Source)
		it.Text, it.Vertical = s.text(), true
		maxLen := 5 + rng.IntN(6)
		if style == styleSpiky {
			maxLen = 4 + rng.IntN(4)
		}
		every := rng.Float64() < 0.35
		cols := columns(s, maxLen, every)
		for len(cols) > 5 {
			maxLen++
			cols = columns(s, maxLen, every)
		}
		if m, err = g.setColumns(s, cols, fnt, face, size); err != nil {
			return nil, err
		}
	case g.lang == "ja":
		// A horizontal caption.
		s := parseJA(d.Source)
		it.Text = s.text()
		m = setHorizontal(wrapLines(s, 8+rng.IntN(8)), face, size, size*1.35)
	default:
		s := parsePlain(d.Source, g.lang != "ko")
		it.Text = d.Source
		m = setHorizontal(wrapLines(s, g.lineLength(s)), face, size, size*uniform(rng, 1.2, 1.45))
	}
	m = trim(m, 1)
	it.Mask = moved(m, m.Rect.Min.Mul(-1))
	return it, nil
}

// setColumns sets s in vertical columns cols with face (of font fnt, at size), furigana
// beside the kanji.
func (g *generator) setColumns(s script, cols [][2]int, fnt *sfnt.Font, face font.Face, size float64) (*image.Alpha, error) {
	rng := g.rng
	var kanji font.Face
	if g.kanji != nil && fnt == g.face {
		var err error
		if kanji, err = newFace(g.kanji, size); err != nil {
			return nil, err
		}
		defer kanji.Close()
	}
	rs := size * uniform(rng, 0.42, 0.52)
	rface, err := newFace(fnt, rs)
	if err != nil {
		return nil, err
	}
	defer rface.Close()
	return setVertical(s, cols, vstyle{
		Face: face, Kanji: kanji, Size: size, Ruby: rface, RubySize: rs,
		Pitch: size * uniform(rng, 1.0, 1.1), Gap: size * uniform(rng, 0.12, 0.35),
		Centered: rng.Float64() < 0.3, TCY: rng.Float64() < 0.5,
	}), nil
}

// lineLength is how many characters a horizontal line holds: balloons are about as wide as
// tall.
func (g *generator) lineLength(s script) int {
	n := len(s.Glyphs)
	l := int(math.Ceil(math.Sqrt(float64(n) * uniform(g.rng, 2, 4))))
	if g.lang == "ko" {
		l += 3
	}
	return max(4, l)
}
