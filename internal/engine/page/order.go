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

// DropContained removes specks found inside another block's bubble (a stray mark of punctuation
// that clustered alone), erasing a bubble cleans all of its interior anyway, and those whose ink
// the lettering of a bubble holds (a mark another finder took for lettering of its own, which the
// bubble's block took back).
func DropContained(blocks []*Block) []*Block {
	var out []*Block
next:
	for _, b := range blocks {
		for _, o := range blocks {
			if o == b || o.Bubble == nil || b.Box.Dx()*b.Box.Dy() >= o.Box.Dx()*o.Box.Dy() || len(b.Lines) != 1 {
				continue
			}
			if b.Box.In(o.Box) && b.InkHeldBy(o) || b.Box.In(o.Bubble.Box) && o.Bubble.Has((b.Box.Min.X+b.Box.Max.X)/2, (b.Box.Min.Y+b.Box.Max.Y)/2) {
				continue next
			}
		}
		out = append(out, b)
	}
	return out
}
