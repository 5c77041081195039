package page

import (
	"cmp"
	"slices"
)

// Order sorts blocks into reading order: rows of blocks top to bottom (blocks whose
// vertical extents overlap by half share a row), and within a row right to left for Japanese,
// left to right otherwise.
func Order(blocks []*Block, rtl bool) {
	slices.SortFunc(blocks, func(a, b *Block) int { return cmp.Compare(a.Box.Min.Y, b.Box.Min.Y) })
	var rows [][]*Block
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
			rows = append(rows, []*Block{bl})
		}
	}
	out := blocks[:0]
	for _, row := range rows {
		slices.SortFunc(row, func(a, b *Block) int {
			if rtl {
				return cmp.Compare(b.Box.Max.X, a.Box.Max.X)
			}
			return cmp.Compare(a.Box.Min.X, b.Box.Min.X)
		})
		out = append(out, row...)
	}
}
