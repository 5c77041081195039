package find

import (
	"cmp"
	"slices"

	"github.com/vtsproject/vts/internal/engine/page"
)

// Reading order: what the finder settles once the blocks are found.

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
