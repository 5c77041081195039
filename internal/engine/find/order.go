package find

import (
	"cmp"
	"image"
	"slices"
	"sort"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// Reading order and furigana: what the finder settles once the blocks are found.

// Order sorts blocks into reading order: rows of blocks top to bottom (blocks whose
// vertical extents overlap by half share a row), and within a row right to left for Japanese,
// left to right otherwise.
func Order(blocks []*page.Block, rtl bool) {
	slices.SortFunc(blocks, func(a, b *page.Block) int { return cmp.Compare(a.Box.Min.Y, b.Box.Min.Y) })
	var rows [][]*page.Block
	for _, bl := range blocks {
		placed := false
		for i := range rows {
			last := rows[i][0]
			ov := min(last.Box.Max.Y, bl.Box.Max.Y) - max(last.Box.Min.Y, bl.Box.Min.Y)
			if ov*2 >= min(last.Box.Dy(), bl.Box.Dy()) {
				rows[i] = append(rows[i], bl)
				placed = true
				break
			}
		}
		if !placed {
			rows = append(rows, []*page.Block{bl})
		}
	}
	out := blocks[:0]
	for _, row := range rows {
		slices.SortFunc(row, func(a, b *page.Block) int {
			if rtl {
				return cmp.Compare(b.Box.Max.X, a.Box.Max.X)
			}
			return cmp.Compare(a.Box.Min.X, b.Box.Min.X)
		})
		out = append(out, row...)
	}
}

// separateRuby finds furigana set tight against their column, too close for the projection to
// split off: small marks entirely to the right of the column's body. They leave the reading mask
// (erasing takes them with the rest of the bubble).
func separateRuby(b *page.Block, lines []image.Rectangle, size int) {
	w := b.Box.Dx()
	for li, l := range lines {
		sub := &raster.Bitmap{W: l.Dx(), H: l.Dy(), On: make([]bool, l.Dx()*l.Dy())}
		for y := l.Min.Y; y < l.Max.Y; y++ {
			for x := l.Min.X; x < l.Max.X; x++ {
				sub.On[(y-l.Min.Y)*sub.W+x-l.Min.X] = b.InkAt(x, y)
			}
		}
		cl := raster.Label(sub, true)
		var rights []int
		tallest := 0
		for _, c := range cl.Comps {
			if max(c.Box.Dx(), c.Box.Dy())*100 >= size*45 {
				rights, tallest = append(rights, c.Box.Max.X), max(tallest, c.Box.Dy())
			}
		}
		// One piece is body enough when it runs the column's length: kanji under one reading touch.
		if len(rights) == 0 || (len(rights) == 1 && tallest*4 < sub.H*3) {
			continue
		}
		sort.Ints(rights)
		body, char := rights[len(rights)*7/10], size
		if (sub.W-body)*3 >= body {
			char = min(char, body) // furigana sticking out a third of it widened the column
		}
		// Vertical punctuation (、。) and small kana also sit right of the body, but alone;
		// furigana come as a run of marks stacked within a character of each other, spread
		// along their kanji. Dakuten and handakuten are smaller still, and a pair of them
		// stacked must not pass for a run of furigana.
		beside := func(c raster.Component) bool {
			return c.Box.Min.X >= body-1 && max(c.Box.Dx(), c.Box.Dy())*100 < char*50
		}
		small := func(c raster.Component) bool { return beside(c) && max(c.Box.Dx(), c.Box.Dy())*100 >= char*24 }
		isRuby := func(c raster.Component) bool {
			return small(c) && slices.ContainsFunc(cl.Comps, func(o raster.Component) bool {
				return o.Box != c.Box && small(o) && boxGap(c.Box, o.Box) < char*2/3 && o.Box.Min.X < c.Box.Max.X && c.Box.Min.X < o.Box.Max.X
			})
		}
		// Within a run of furigana, the specks beside the body are furigana blur or JPEG broke.
		var run, keep image.Rectangle
		for _, c := range cl.Comps {
			if isRuby(c) {
				run = run.Union(c.Box.Inset(-char / 2))
			}
		}
		for k, c := range cl.Comps {
			if isRuby(c) || (beside(c) && c.Box.In(run)) {
				id := int32(k + 1)
				for y := c.Box.Min.Y; y < c.Box.Max.Y; y++ {
					for x := c.Box.Min.X; x < c.Box.Max.X; x++ {
						if cl.ID[y*sub.W+x] == id {
							b.Ink.Mask[(l.Min.Y+y-b.Box.Min.Y)*w+l.Min.X+x-b.Box.Min.X] = false
						}
					}
				}
				b.Ruby = append(b.Ruby, c.Box.Add(l.Min))
				continue
			}
			keep = keep.Union(c.Box.Add(l.Min))
		}
		if !run.Empty() && !keep.Empty() {
			lines[li] = keep
		}
	}
}
