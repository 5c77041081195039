package find

import (
	"image"
	"slices"

	"github.com/vtsproject/vts/internal/engine/balloon"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// pass is how detectBlocks looks at a page for its paper areas.
type pass int

const (
	onPaper    pass = iota // the paper: what the blur leaves near the page's paper level
	onNegative             // the page's negative: light lettering on dark boxes
	onTone                 // balloons filled with a light tone, as light as a 40 % grey
)

// lightMin is the level from which the blurred page is paper for the pass look.
//
// A balloon filled with a light screentone, scanned and shared as JPEG, is a fine grey the blur
// leaves darker than paper: no paper area, or one its dots riddle, where the lettering is
// chained to them. Looked at again as paper down to a 40 % grey, with every pixel of ink kept
// out (so that a thin outline still closes the balloon) and plain paper too (so that the gutter
// does not join it to the page; detectBlocks), it is a paper area whose dots are not holes,
// being far lighter than ink, and its lettering stands alone as on white paper.
func lightMin(pa *page.Analysis, look pass) uint8 {
	if look == onTone {
		return uint8(max(110, int(pa.Paper)-90))
	}
	return uint8(max(140, int(pa.Paper)-45))
}

// tonedBlocks finds the lettering in balloons filled with a light tone (blur is g's paperBlur),
// and returns what replaces, among the blocks found on paper, those in such a balloon: the
// lettering found there once the tone is taken for paper.
func tonedBlocks(g, blur *image.Gray, pa *page.Analysis) func(blocks, loose []*page.Block) ([]*page.Block, []*page.Block) {
	found, _ := detectBlocks(g, blur, pa, onTone)
	b := g.Bounds()
	var toned []*page.Block
	for _, tb := range found {
		if tb.Bubble != nil && balloon.Sized(tb.Bubble.Box, b) && balloon.Margined(tb) && balloon.TonedAround(g, blur, pa, tb) {
			toned = append(toned, tb)
		}
	}
	return func(blocks, loose []*page.Block) ([]*page.Block, []*page.Block) {
		// Tone taken for paper makes paper areas of toned art too, where its lines may cluster
		// like lettering. A page's dialogue is lettered in one size: where the balloons found
		// on paper tell it, what is far from it is art.
		if inBalloon := slices.DeleteFunc(slices.Clone(blocks), func(o *page.Block) bool { return o.Bubble == nil }); len(inBalloon) >= 3 {
			med := raster.Median(inBalloon, func(o *page.Block) int { return o.Char })
			toned = slices.DeleteFunc(toned, func(tb *page.Block) bool { return tb.Char*5 < med*3 || tb.Char*5 > med*8 })
		}
		if len(toned) == 0 {
			return blocks, loose
		}
		inToned := func(o *page.Block) bool {
			c := o.Box.Min.Add(o.Box.Max).Div(2)
			return slices.ContainsFunc(toned, func(tb *page.Block) bool { return tb.Bubble.Has(c.X, c.Y) })
		}
		// The lettering found in the tone replaces what the first look found there; a balloon
		// that look found around all of it stays its bubble (its body cut at the frame, without
		// the tail the tone also fills).
		for _, tb := range toned {
			c := tb.Box.Min.Add(tb.Box.Max).Div(2)
			for _, o := range blocks {
				if o.Bubble != nil && o.Bubble.Has(c.X, c.Y) && tb.Bubble.Has(o.Box.Min.X/2+o.Box.Max.X/2, o.Box.Min.Y/2+o.Box.Max.Y/2) && tb.InkWithin(o.Bubble) {
					tb.Bubble = o.Bubble
					break
				}
			}
		}
		return append(slices.DeleteFunc(blocks, inToned), toned...), slices.DeleteFunc(loose, inToned)
	}
}
