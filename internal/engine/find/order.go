package find

import (
	"cmp"
	"image"
	"slices"
	"sort"

	"github.com/vtsproject/vts/internal/engine/page"
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
func separateRuby(b *page.Block, g *image.Gray) {
	w := b.Box.Dx()
	for li, l := range b.Lines {
		sub := &bitmap{w: l.Dx(), h: l.Dy(), on: make([]bool, l.Dx()*l.Dy())}
		for y := l.Min.Y; y < l.Max.Y; y++ {
			for x := l.Min.X; x < l.Max.X; x++ {
				sub.on[(y-l.Min.Y)*sub.w+x-l.Min.X] = b.InkAt(x, y)
			}
		}
		cl := label(sub, true)
		var rights []int
		for _, c := range cl.comps {
			if max(c.Box.Dx(), c.Box.Dy())*100 >= b.Char*45 {
				rights = append(rights, c.Box.Max.X)
			}
		}
		if len(rights) < 2 {
			continue
		}
		sort.Ints(rights)
		body := rights[len(rights)*7/10]
		// Vertical punctuation (、。) and small kana also sit right of the body, but alone;
		// furigana come as a run of marks stacked within a character of each other.
		// Dakuten and handakuten are smaller still, and a pair of them stacked must not pass
		// for a run of furigana.
		small := func(c component) bool {
			size := max(c.Box.Dx(), c.Box.Dy()) * 100
			return c.Box.Min.X >= body-1 && size < b.Char*50 && size >= b.Char*24
		}
		isRuby := func(k int) bool {
			c := cl.comps[k]
			if !small(c) {
				return false
			}
			for j, o := range cl.comps {
				if j != k && small(o) && boxGap(c.Box, o.Box) < b.Char/3 && o.Box.Min.X < c.Box.Max.X && c.Box.Min.X < o.Box.Max.X {
					return true
				}
			}
			return false
		}
		removed := false
		var keep image.Rectangle
		for k, c := range cl.comps {
			if isRuby(k) {
				id := int32(k + 1)
				for y := c.Box.Min.Y; y < c.Box.Max.Y; y++ {
					for x := c.Box.Min.X; x < c.Box.Max.X; x++ {
						if cl.id[y*sub.w+x] == id {
							b.Ink.Mask[(l.Min.Y+y-b.Box.Min.Y)*w+l.Min.X+x-b.Box.Min.X] = false
						}
					}
				}
				b.Ruby = append(b.Ruby, c.Box.Add(l.Min))
				removed = true
				continue
			}
			keep = keep.Union(c.Box.Add(l.Min))
		}
		if removed && !keep.Empty() {
			b.Lines[li] = keep
		}
	}
}
