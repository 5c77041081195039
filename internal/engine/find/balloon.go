package find

import (
	"image"
	"slices"

	"github.com/vtsproject/vts/internal/engine/page"
)

// mergeColumns joins, on a paper area that runs on, the blocks that are columns (or rows) of one
// free speech set wider apart than the clustering joins: of one size (within a fifth) and
// direction, side by side within half a character more than their own width, and level with
// each other; or one line carried on after the gap a letterer leaves between two phrases. made
// holds each block's blobs, and is given back merged alongside.
func mergeColumns(g *image.Gray, out []*page.Block, made [][]blob, pa *page.Analysis, minChar, maxChar int) ([]*page.Block, [][]blob) {
	// span is r's extent across the lines and along them.
	span := func(r image.Rectangle, vertical bool) (across, along [2]int) {
		if vertical {
			return [2]int{r.Min.X, r.Max.X}, [2]int{r.Min.Y, r.Max.Y}
		}
		return [2]int{r.Min.Y, r.Max.Y}, [2]int{r.Min.X, r.Max.X}
	}
	same := func(a, b *page.Block) bool {
		c := max(a.Char, b.Char)
		if a.Vertical != b.Vertical || min(a.Char, b.Char)*5 < c*4 {
			return false
		}
		ax, ay := span(a.Box, a.Vertical)
		bx, by := span(b.Box, b.Vertical)
		across := max(ax[0], bx[0]) - min(ax[1], bx[1]) // the gap between the lines
		along := min(ay[1], by[1]) - max(ay[0], by[0])  // how far they run side by side
		if across <= c*3/2 && along*2 >= min(ay[1]-ay[0], by[1]-by[0]) {
			return true
		}
		// A phrase's gap breaks a line of free text wider than the clustering joins (さよなら、
		// then また a character below): the piece after it is one line on the axis of a line of
		// the other, a character's length away at most.
		piece, rest := a, b
		if len(piece.Lines) != 1 {
			piece, rest = b, a
		}
		if len(piece.Lines) != 1 {
			return false
		}
		px, py := span(piece.Lines[0], piece.Vertical)
		for _, l := range rest.Lines {
			lx, ly := span(l, rest.Vertical)
			over := min(px[1], lx[1]) - max(px[0], lx[0])
			gap := max(py[0], ly[0]) - min(py[1], ly[1])
			if over*2 >= min(px[1]-px[0], lx[1]-lx[0]) && gap >= 0 && gap <= c {
				return true
			}
		}
		return false
	}
	for merged := true; merged; {
		merged = false
		for i := 0; i < len(out) && !merged; i++ {
			for j := i + 1; j < len(out) && !merged; j++ {
				if !same(out[i], out[j]) {
					continue
				}
				grp := append(slices.Clone(made[i]), made[j]...)
				if tb := makeBlock(g, grp, pa, minChar, maxChar, 2); tb != nil {
					out[i], made[i] = tb, grp
					out, made = slices.Delete(out, j, j+1), slices.Delete(made, j, j+1)
					merged = true
				}
			}
		}
	}
	return out, made
}
