// Package marks gives back to the lines of a block the small marks that the finder's clustering
// left apart from them: the … 。 ！ ？ that end a line, too small, too thin or set too far from
// its last character to join it, and the characters of one thin stroke (ー, 一) that passed for
// speed lines. Read, a line then ends in its marks; erased, so do they. And it recognises the
// marks that end a line by their shape (column.go), for the reader to cut them from what
// Tesseract reads and add them to its reading.
package marks

import (
	"image"
	"slices"

	"github.com/vtsproject/vts/internal/engine/lines"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// Piece is a dark shape of the page's paper area that holds the block: its box and its ink,
// as indices into the page's pixels.
type Piece struct {
	Box image.Rectangle
	Pix []int
}

// AtEnd gives back to the lines of tb the marks among pieces that end them: a … (and the ？ or
// ！ after it), a ！ under a column's foot, a 。 or the dot of a ！ or ？.
func AtEnd(g *image.Gray, pa *page.Analysis, tb *page.Block, pieces []Piece) {
	pieces = append(slices.Clone(pieces), grey(g, pa, tb, pieces)...)
	Dots(g, pa, tb, pieces)
	exclamationAtFoot(g, tb, pieces)
	ringsAtEnd(g, tb, pieces)
}

// exclamationAtFoot gives back to a column of tb the ！ that ends it, found among the pieces of
// its paper area: a bar about a character's height or less, on the column's axis, right under
// its foot, over a dot. Read, the column ends in its ！; erased, so does the mark.
func exclamationAtFoot(g *image.Gray, tb *page.Block, pieces []Piece) {
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
				raster.Abs(bar.Box.Min.X+bar.Box.Max.X-axis2)*4 > c*2 {
				continue
			}
			for j, dot := range pieces {
				dw, dh := dot.Box.Dx(), dot.Box.Dy()
				dgap := dot.Box.Min.Y - bar.Box.Max.Y
				if j == i || dgap < 1 || dgap*100 > c*35 || dw*100 > c*35 || dh*100 > c*35 ||
					raster.Abs(dot.Box.Min.X+dot.Box.Max.X-bar.Box.Min.X-bar.Box.Max.X)*10 > c*2*2 {
					continue
				}
				addInk(g, tb, k, bar, dot)
				return
			}
		}
	}
}

// ringsAtEnd gives back to a line of tb its 。 (a ring, inked or in grey, within its breadth and
// half a character after it at most) and to a column the dot of its ！ or ？ (under its bar's or
// hook's foot, a stroke): thin strokes of small lettering, hardly a pixel as dark as ink, left out.
func ringsAtEnd(g *image.Gray, tb *page.Block, pieces []Piece) {
	c := tb.Char
	for k, l := range tb.Lines {
		// Its ink's lowest quarter character: a stroke, thin and inked on every row (no dot, no 。).
		foot, rows := image.Rectangle{}, 0
		for y := l.Max.Y - c/4; tb.Vertical && y < l.Max.Y; y++ {
			for x := l.Min.X; x < l.Max.X; x++ {
				if tb.InkAt(x, y) {
					foot = foot.Union(image.Rect(x, y, x+1, y+1))
				}
			}
			if foot.Max.Y == y+1 {
				rows++
			}
		}
		for _, p := range pieces {
			w, h, gap, within := p.Box.Dx(), p.Box.Dy(), p.Box.Min.Y-l.Max.Y, p.Box.Min.X >= l.Min.X-c/8 && p.Box.Max.X <= l.Max.X+c/8
			if !tb.Vertical {
				gap, within = p.Box.Min.X-l.Max.X, p.Box.Min.Y >= l.Min.Y-c/8 && p.Box.Max.Y <= l.Max.Y+c/8
			}
			if gap < 0 || gap*2 > c || max(w, h)*100 < c*8 || w*2 > c || h*2 > c || w*10 < h*6 || h*10 < w*6 || !within {
				continue
			}
			dot := gap >= 1 && gap*100 <= c*35 && rows == c/4 && foot.Dx()*10 <= c*3 && p.Box.Min.X >= foot.Min.X-c/8 && p.Box.Max.X <= foot.Max.X+c/8
			if dot || min(w, h)*100 >= c*12 && (raster.Enclosed(p.Box, func(x, y int) bool { return !slices.Contains(p.Pix, y*g.Stride+x) }) || raster.RingInGrey(g, p.Box)) {
				addInk(g, tb, k, p)
				break
			}
		}
	}
}

// Bars gives back to the lines of tb the characters of one thin stroke among bars, which
// passed for speed lines (lines.Bars: the ー of キャー！, 一).
func Bars(g *image.Gray, tb *page.Block, bars []Piece) {
	boxes := make([]image.Rectangle, len(bars))
	for i, b := range bars {
		boxes[i] = b.Box
	}
	for k, idx := range lines.Bars(tb.Lines, tb.Vertical, tb.Char, boxes) {
		for _, i := range idx {
			addInk(g, tb, k, bars[i])
		}
	}
}

// Dots gives back to a line of tb the … (or ‥) that ends it, found among the pieces of its
// paper area: two to six small round dots in a row on the line's axis, the first close after
// its end (below a column, right of a row), and the ？ or ！ that may follow them, which the
// dots' gap kept from the line too. Read, the line ends in its …; erased, so do the dots.
func Dots(g *image.Gray, pa *page.Analysis, tb *page.Block, pieces []Piece) {
	c := tb.Char
	if c <= 0 {
		return
	}
	// Six dots and a mark after them reach less than seven characters past a line's end: the
	// rest of a large paper area's pieces (a panel's grain) are not looked at line by line.
	reach := tb.Box.Inset(-7 * c)
	pieces = slices.DeleteFunc(slices.Clone(pieces), func(p Piece) bool { return !p.Box.Overlaps(reach) })
	v := tb.Vertical
	for k, l := range tb.Lines {
		lo, hi := across(l, v)
		axis2 := lo + hi
		_, lineEnd := along(l, v)
		end := lineEnd
		var dots []Piece
		size := 0
		for {
			next, nextEnd := -1, 0 // the nearest dot after end
			for i, p := range pieces {
				a0, a1 := along(p.Box, v)
				c0, c1 := across(p.Box, v)
				w, h := p.Box.Dx(), p.Box.Dy()
				if gap := a0 - end; gap < 0 || gap*10 > c*6 || w*10 > c*3 || h*10 > c*3 || max(w, h)*10 < c || w > 2*h+1 || h > 2*w+1 ||
					raster.Abs(c0+c1-axis2)*5 > c*2 || size > 0 && (max(w, h) > 2*size || 2*max(w, h) < size) {
					continue
				}
				if next < 0 || a1 < nextEnd {
					next, nextEnd = i, a1
				}
			}
			if next < 0 || len(dots) == 6 {
				break
			}
			d := pieces[next]
			dots = append(dots, d)
			size = max(size, d.Box.Dx(), d.Box.Dy())
			_, end = along(d.Box, v)
		}
		// They are all there is after the line's end, and mostly as dark as lettering: a
		// tone's specks or a textured paper's grain strew others about, lighter.
		strewn := 0
		for _, p := range pieces {
			a0, _ := along(p.Box, v)
			c0, c1 := across(p.Box, v)
			if a0 >= lineEnd && a0 < end && c0 < hi && c1 > lo {
				strewn++
			}
		}
		// dark counts the dots with a pixel nearly as dark as lettering: a grain's specks are
		// lighter (a dot of two pixels, blurred, a little lighter than the threshold of ink).
		dark := 0
		for _, d := range dots {
			if slices.ContainsFunc(d.Pix, func(px int) bool { return nearlyInk(g, pa, px) }) {
				dark++
			}
		}
		// Dots so small that they are drawn grey (the … of a column of 14 px characters) are
		// lighter than that, but three or more at one pitch are no grain: one dark is enough.
		need := (len(dots) + 1) / 2
		if len(dots) >= 3 {
			var pitch []int
			for i := 1; i < len(dots); i++ {
				a0, a1 := along(dots[i-1].Box, v)
				b0, b1 := along(dots[i].Box, v)
				pitch = append(pitch, b0+b1-a0-a1)
			}
			if slices.Max(pitch)-slices.Min(pitch) <= max(2, slices.Min(pitch)/5) {
				need = 1
			}
		}
		if len(dots) < 2 || strewn > len(dots) || dark < need {
			continue
		}
		// A ？ or ！ after the dots: the pieces on the axis that start within half a character
		// of the last dot and fit together in one character's cell.
		var mark []Piece
		cell := image.Rectangle{}
		for _, p := range pieces {
			a0, a1 := along(p.Box, v)
			c0, c1 := across(p.Box, v)
			if a0 < end || (a0-end)*2 > c || (a1-end)*10 > c*13 || raster.Abs(c0+c1-axis2) > c || c0 < lo-c/2 || c1 > hi+c/2 {
				continue
			}
			mark, cell = append(mark, p), cell.Union(p.Box)
		}
		if len(mark) > 0 && len(mark) <= 2 {
			if m0, m1 := along(cell, v); (m1-m0)*10 >= c*4 {
				dots = append(dots, mark...)
			}
		}
		addInk(g, tb, k, dots...)
	}
}

// addInk grows tb's ink mask, box and line k by the pieces given.
func addInk(g *image.Gray, tb *page.Block, k int, pieces ...Piece) {
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
	for _, p := range pieces {
		raster.MarkPix(m.Mask, m.Box, g.Stride, p.Pix)
	}
	tb.Box, tb.Ink = box, m
}

// grey are the marks on the axis after the end of each line of tb that pieces lack: the dots of
// a … so small and light (in lettering a dozen pixels tall, drawn grey) that the blurred copy of
// the page the paper areas were found in took them for paper. They are looked for in the sharp
// page, within two characters after the line's end and a quarter of one either side of it, where
// there are six pieces or fewer (not a tone, not a paper's grain): each small, on the line's
// axis, apart from all else there, and with a pixel nearly as dark as lettering.
func grey(g *image.Gray, pa *page.Analysis, tb *page.Block, pieces []Piece) []Piece {
	c := tb.Char
	var out []Piece
	for _, l := range tb.Lines {
		win := image.Rect(l.Min.X-c/4, l.Max.Y, l.Max.X+c/4, l.Max.Y+2*c)
		if !tb.Vertical {
			win = image.Rect(l.Max.X, l.Min.Y-c/4, l.Max.X+2*c, l.Max.Y+c/4)
		}
		win = win.Intersect(g.Bounds())
		if win.Dx() < 3 || win.Dy() < 3 {
			continue
		}
		w := win.Dx()
		bm := &raster.Bitmap{W: w, H: win.Dy(), On: make([]bool, w*win.Dy())}
		for y := win.Min.Y; y < win.Max.Y; y++ {
			for x := win.Min.X; x < win.Max.X; x++ {
				bm.On[(y-win.Min.Y)*w+x-win.Min.X] = g.Pix[y*g.Stride+x] < pa.InkSoft && !tb.InkAt(x, y)
			}
		}
		ll := raster.Label(bm, true)
		if len(ll.Comps) > 6 {
			continue // a tone's dots or a paper's grain, not six dots and a mark
		}
		lo, hi := across(l, tb.Vertical)
		for k, comp := range ll.Comps {
			b := comp.Box
			box := b.Add(win.Min)
			c0, c1 := across(box, tb.Vertical)
			if b.Min.X == 0 || b.Min.Y == 0 || b.Max.X == w || b.Max.Y == ll.H || max(b.Dx(), b.Dy())*2 > c || raster.Abs(c0+c1-lo-hi)*5 > c*2 ||
				slices.ContainsFunc(pieces, func(p Piece) bool { return p.Box.Overlaps(box) }) {
				continue
			}
			p := Piece{Box: box}
			dark := false
			for _, i := range ll.Pix(int32(k + 1)) {
				px := (win.Min.Y+i/w)*g.Stride + win.Min.X + i%w
				p.Pix = append(p.Pix, px)
				dark = dark || nearlyInk(g, pa, px)
			}
			if dark {
				out = append(out, p)
			}
		}
	}
	return out
}

// nearlyInk reports whether pixel px of g is nearly as dark as lettering: darker than halfway
// between the page's ink threshold and its soft one. A paper's grain is lighter.
func nearlyInk(g *image.Gray, pa *page.Analysis, px int) bool {
	return 2*int(g.Pix[px]) < int(pa.InkMax)+int(pa.InkSoft)
}

// across is r's extent across a line of the direction given (its x for a column), along (below)
// its extent along it.
func across(r image.Rectangle, vertical bool) (int, int) {
	if vertical {
		return r.Min.X, r.Max.X
	}
	return r.Min.Y, r.Max.Y
}

func along(r image.Rectangle, vertical bool) (int, int) { return across(r, !vertical) }
