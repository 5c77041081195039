package lines

import (
	"image"
	"slices"

	"github.com/vtsproject/vts/internal/engine/raster"
)

// Rows of horizontal lettering told apart from the shapes chained to them.
//
// Chinese and Korean lettering set in rows, in a balloon open to the art or on a panel's white,
// is clustered with whatever its strokes come near: a tone's dots under it, the stubs of speed
// lines, a burst's spikes, a figure's hair. Measured with them, the block is a row as tall as
// the art (你到底是谁？ over a shirt's dots was one row 119 pixels tall for characters of 25), or
// no block at all. Its characters still say what they are: pieces of one size whose tops and
// feet line up, side by side, standing on paper (find/rows.go). A CJK character is set in a
// square, and its pieces (亻 and 尔 of 你, the syllable blocks of Hangul) reach from near the
// top of the square to near its foot, where the art's pieces beside them do not.

// Rows returns the rows of lettering among boxes (the pieces of a cluster of ink), each as the
// indices of the boxes it holds: the pieces that line up and those that lie within the row (the
// dot of a ！, the strokes of 二), none for art alone. Characters are minChar to maxChar tall.
func Rows(boxes []image.Rectangle, minChar, maxChar int) [][]int {
	// Pieces that could span a character's height, or a run of characters joined (small
	// lettering whose strokes touch).
	var tall []int
	for i, b := range boxes {
		if h := b.Dy(); h >= minChar && h <= maxChar && b.Dx()*5 >= h {
			tall = append(tall, i)
		}
	}
	slices.SortFunc(tall, func(a, b int) int { return boxes[a].Min.X - boxes[b].Min.X })
	// bridged says whether a piece lies in the gap between a and b, in their band, and fills
	// half of it: a character lower than its neighbours (一, ー, a small kana) stands there.
	bridged := func(a, b image.Rectangle) bool {
		gap := image.Rect(a.Max.X, min(a.Min.Y, b.Min.Y), b.Min.X, max(a.Max.Y, b.Max.Y))
		return slices.ContainsFunc(boxes, func(c image.Rectangle) bool {
			return c.In(gap.Inset(-1)) && c.Dx()*2 >= gap.Dx()
		})
	}
	// Pieces of one size, top and foot in line, side by side (a character's pieces may overlap
	// a little, never by half), set solid or with a character between.
	inLine := func(i, j int) bool {
		a, b := boxes[i], boxes[j]
		if b.Min.X < a.Min.X {
			a, b = b, a
		}
		h, gap := max(a.Dy(), b.Dy()), b.Min.X-a.Max.X
		return gap <= h*8/5 && min(a.Dy(), b.Dy())*5 >= h*4 && raster.Abs(a.Min.Y-b.Min.Y)*5 <= h && raster.Abs(a.Max.Y-b.Max.Y)*5 <= h &&
			min(a.Max.X, b.Max.X)-max(a.Min.X, b.Min.X) < min(a.Dx(), b.Dx())/2 &&
			(gap <= h*2/5 || bridged(a, b))
	}
	// A piece's neighbour is at most 8/5 of the taller one's height away, and the shorter is
	// four fifths of the taller: twice its own height reaches it.
	span := func(i int) (int, int) { return boxes[i].Min.X, boxes[i].Max.X + 2*boxes[i].Dy() }
	var rows, short []image.Rectangle
	for _, set := range raster.Cluster(tall, span, inLine) {
		var band image.Rectangle
		for _, k := range set {
			band = band.Union(boxes[k])
		}
		// Columns side by side line up across too, a column's gap apart: where the pieces
		// stand as close above one another as beside, the lettering is columns (rows are set
		// solid along them, leading between them).
		if stacked(boxes, tall, set) {
			continue
		}
		// Two characters and a half long at least: the two halves of one character (亻 and 尔)
		// are none, nor two characters of columns side by side. A lone piece is a run of
		// characters joined only at the small sizes whose strokes blur together: a larger one
		// is art (a tone's dots run together, a figure's hair).
		if band.Dx()*2 < band.Dy()*5 || len(set) < 2 && band.Dy() > 4*minChar {
			short = append(short, band)
		} else {
			rows = append(rows, band)
		}
	}
	// A line of one character (谁？ under 你到底是) is a row where it stands a line above or
	// below a row of its size, within its length.
	for _, band := range short {
		if slices.ContainsFunc(rows, func(r image.Rectangle) bool {
			h := r.Dy()
			gap := max(band.Min.Y-r.Max.Y, r.Min.Y-band.Max.Y)
			return raster.Abs(band.Dy()-h)*5 <= h && gap >= 0 && gap*5 <= h*4 && band.Min.X >= r.Min.X-h && band.Max.X <= r.Max.X+h
		}) {
			rows = append(rows, band)
		}
	}
	var out [][]int
	for _, band := range rows {
		// The marks that end or open the row (！, 「) stand in a character's square of their
		// own, apart from its neighbours.
		within := band.Inset(-max(1, band.Dy()/8))
		within.Min.X, within.Max.X = band.Min.X-band.Dy()*3/4, band.Max.X+band.Dy()*3/4
		var row []int
		for k, b := range boxes {
			if b.In(within) {
				row = append(row, k)
			}
		}
		out = append(out, row)
	}
	return out
}

// stacked reports whether half the pieces of a row (set, of the tall pieces) or more have a tall
// piece of their size right above or below them no further than the row's pieces stand apart.
func stacked(boxes []image.Rectangle, tall, set []int) bool {
	if len(set) < 2 {
		return false
	}
	byX := slices.Clone(set)
	slices.SortFunc(byX, func(a, b int) int { return boxes[a].Min.X - boxes[b].Min.X })
	gaps := make([]int, 0, len(byX)-1)
	for k := 1; k < len(byX); k++ {
		gaps = append(gaps, max(0, boxes[byX[k]].Min.X-boxes[byX[k-1]].Max.X))
	}
	slices.Sort(gaps)
	along := gaps[len(gaps)/2]
	n := 0
	for _, i := range set {
		a := boxes[i]
		if slices.ContainsFunc(tall, func(j int) bool {
			b := boxes[j]
			gap := max(b.Min.Y-a.Max.Y, a.Min.Y-b.Max.Y)
			return !slices.Contains(set, j) && gap >= 0 && gap <= along &&
				min(a.Max.X, b.Max.X)-max(a.Min.X, b.Min.X) >= min(a.Dx(), b.Dx())/2 && b.Dy()*5 >= a.Dy()*3
		}) {
			n++
		}
	}
	return n*2 >= len(set)
}
