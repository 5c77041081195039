package find

import (
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// A webtoon strip is analysed in overlapping tiles (Manga), whose blocks are moved onto the page
// (page.Block.Move) and gathered here.

// addUnlessSeen adds a block found in a tile unless an overlapping tile found it already; of the
// two, the one with more lettering (the one not cut by a tile's edge) stays.
func addUnlessSeen(blocks []*page.Block, tb *page.Block) []*page.Block {
	for i, o := range blocks {
		if raster.OverlapRatio(o.Box, tb.Box) > 0.5 {
			if area(tb.Box) > area(o.Box) {
				blocks[i] = tb
			}
			return blocks
		}
	}
	return append(blocks, tb)
}
