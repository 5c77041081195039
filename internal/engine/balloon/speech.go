package balloon

import (
	"image"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// Speeches sorts the blocks idx of one balloon's paper into speeches, as lists of indices into
// blocks. A balloon holds one speech, but two balloons drawn over each other (each without an
// outline, or touching at one end, or joined by the white of a face between them) share their
// paper: blocks the paper joins in a straight line from centre to centre, two characters apart
// at most, are one speech; a line that leaves the paper (crossing the art between two
// balloons), or a wider gap, parts them.
func Speeches(filled *page.Mask, blocks []*page.Block, idx []int) [][]int {
	span := func(i int) (int, int) {
		return blocks[i].Box.Min.X - 2*blocks[i].Char, blocks[i].Box.Max.X + 2*blocks[i].Char
	}
	return raster.Cluster(idx, span, func(i, j int) bool {
		a, b := blocks[i].Box.Min.Add(blocks[i].Box.Max).Div(2), blocks[j].Box.Min.Add(blocks[j].Box.Max).Div(2)
		if raster.Gap(blocks[i].Box, blocks[j].Box) > 2*max(blocks[i].Char, blocks[j].Char) {
			return false
		}
		steps := max(raster.Abs(b.X-a.X), raster.Abs(b.Y-a.Y), 1)
		for k := 0; k <= steps; k++ {
			if !filled.Has(a.X+(b.X-a.X)*k/steps, a.Y+(b.Y-a.Y)*k/steps) {
				return false
			}
		}
		return true
	})
}

// Share gives each block of blocks, the speeches of balloons that share the paper area
// filled, the part of it nearer its lettering than any other's, as its balloon: its erasing and
// lettering stay out of the other's.
func Share(filled *page.Mask, blocks []*page.Block) {
	near := make([]image.Rectangle, len(blocks))
	for k, tb := range blocks {
		near[k] = tb.Box
	}
	for k, m := range filled.Share(near) {
		blocks[k].Bubble = m
	}
}
