package find

import (
	"image"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// A webtoon strip is analysed in overlapping tiles (Manga); these bring a tile's blocks onto
// the page.

// move moves a block found in a tile to page coordinates.
func move(b *page.Block, d image.Point) {
	b.Box = b.Box.Add(d)
	b.Ink.Box = b.Ink.Box.Add(d)
	for i := range b.Lines {
		b.Lines[i] = b.Lines[i].Add(d)
	}
	for i := range b.Ruby {
		b.Ruby[i] = b.Ruby[i].Add(d)
	}
	if b.Bubble != nil {
		b.Bubble.Box = b.Bubble.Box.Add(d)
	}
}

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
