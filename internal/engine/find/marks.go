package find

import (
	"image"

	"github.com/vtsproject/vts/internal/engine/marks"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// loneWithDots is the lettering of a balloon that holds one character and the … after it (嘘…,
// え…), which makeBlock refuses as too short: a lone shape is more often art. The dots say it is
// not: a shape the size of a character followed by a …, set either way, is a speech.
func loneWithDots(g *image.Gray, grp []blob, pa *page.Analysis, minChar, maxChar int, pieces []blob) *page.Block {
	tb := makeBlock(g, grp, pa, minChar, maxChar, 1)
	if tb == nil || len(tb.Lines) != 1 || len(tb.Ruby) > 0 {
		return nil
	}
	ps := piecesOf(pieces)
	for _, vertical := range []bool{true, false} {
		tb.Vertical = vertical
		marks.Dots(g, pa, tb, ps)
		if tb.Chars() >= 2 {
			return tb
		}
	}
	return nil
}

// piecesOf are the blobs as the marks package sees them.
func piecesOf(bs []blob) []marks.Piece {
	out := make([]marks.Piece, len(bs))
	for i, b := range bs {
		out[i] = marks.Piece{Box: b.Box, Pix: b.pix}
	}
	return out
}

// markPix sets in m the ink of the pieces, whose pixels are indices into an image of the given
// stride.
func markPix(m *page.Mask, stride int, pieces ...blob) {
	for _, p := range pieces {
		raster.MarkPix(m.Mask, m.Box, stride, p.pix)
	}
}
