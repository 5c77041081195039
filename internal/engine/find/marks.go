package find

import (
	"image"

	"github.com/vtsproject/vts/internal/engine/page"
)

// exclamationAtFoot gives back to a column of tb the ！ that ends it, found among the pieces of
// its paper area: a bar about a character's height or less, on the column's axis, right under
// its foot, over a dot. Read, the column ends in its ！; erased, so does the mark.
func exclamationAtFoot(g *image.Gray, tb *page.Block, pieces []blob) {
	if !tb.Vertical || len(pieces) < 2 {
		return
	}
	c := tb.Char
	for k, l := range tb.Lines {
		axis2 := l.Min.X + l.Max.X
		for i, bar := range pieces {
			bw, bh := bar.Box.Dx(), bar.Box.Dy()
			gap := bar.Box.Min.Y - l.Max.Y
			if gap < 0 || gap*2 > c || bh*10 < c*3 || bh*10 > c*11 || bw*100 > c*35 || bh < 2*bw ||
				abs(bar.Box.Min.X+bar.Box.Max.X-axis2)*4 > c*2 {
				continue
			}
			for j, dot := range pieces {
				dw, dh := dot.Box.Dx(), dot.Box.Dy()
				dgap := dot.Box.Min.Y - bar.Box.Max.Y
				if j == i || dgap < 1 || dgap*100 > c*35 || dw*100 > c*35 || dh*100 > c*35 ||
					abs(dot.Box.Min.X+dot.Box.Max.X-bar.Box.Min.X-bar.Box.Max.X)*10 > c*2*2 {
					continue
				}
				addInk(g, tb, k, bar, dot)
				return
			}
		}
	}
}

// addInk grows tb's ink mask, box and line k by the pieces given.
func addInk(g *image.Gray, tb *page.Block, k int, pieces ...blob) {
	box := tb.Box
	for _, p := range pieces {
		box = box.Union(p.Box)
		tb.Lines[k] = tb.Lines[k].Union(p.Box)
	}
	m := page.NewMask(box)
	for y := tb.Box.Min.Y; y < tb.Box.Max.Y; y++ {
		for x := tb.Box.Min.X; x < tb.Box.Max.X; x++ {
			if tb.InkAt(x, y) {
				m.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = true
			}
		}
	}
	markPix(m, g.Stride, pieces...)
	tb.Box, tb.Ink = box, m
}

// markPix sets in m the ink of the pieces, whose pixels are indices into an image of the given
// stride.
func markPix(m *page.Mask, stride int, pieces ...blob) {
	for _, p := range pieces {
		for _, px := range p.pix {
			m.Mask[(px/stride-m.Box.Min.Y)*m.Box.Dx()+px%stride-m.Box.Min.X] = true
		}
	}
}

// inkOf reports whether o's ink holds nearly all of b's.
func inkOf(o, b *page.Block) bool {
	n, held := 0, 0
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if b.InkAt(x, y) {
				n++
				if o.InkAt(x, y) {
					held++
				}
			}
		}
	}
	return n > 0 && held*10 >= n*9
}
