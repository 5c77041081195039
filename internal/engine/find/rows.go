package find

import (
	"image"

	"github.com/vtsproject/vts/internal/engine/lines"
	"github.com/vtsproject/vts/internal/engine/page"
)

// rowsOf is the rows of horizontal lettering among grp (lines.Rows), each a block, and the blobs
// of each. Rows of like shapes are looked for among the art's too (hatching, a tone's dots run
// together): the lettering's stand on paper, a third of a character all round.
func rowsOf(g *image.Gray, grp []blob, pa *page.Analysis, minChar, maxChar int) (rows []*page.Block, blobs [][]blob) {
	boxes := make([]image.Rectangle, len(grp))
	for i, b := range grp {
		boxes[i] = b.Box
	}
	for _, idx := range lines.Rows(boxes, minChar, maxChar) {
		row := make([]blob, len(idx))
		for k, i := range idx {
			row[k] = grp[i]
		}
		if tb := makeBlock(g, row, pa, minChar, maxChar, 2); tb != nil && !tb.Vertical && len(tb.Lines) == 1 && tb.Char >= 2*minChar && onPaperAround(g, pa, tb) {
			rows, blobs = append(rows, tb), append(blobs, row)
		}
	}
	return rows, blobs
}

// onPaperAround reports whether the band a third of tb's characters wide around its box is
// paper, but for a twentieth of it: what the art brings near a balloon's lettering lies further.
func onPaperAround(g *image.Gray, pa *page.Analysis, tb *page.Block) bool {
	dark, n := countAround(g, tb.Box.Inset(-max(1, tb.Char/3)), func(x, y int) bool { return image.Pt(x, y).In(tb.Box) },
		func(v uint8) bool { return v < pa.InkSoft })
	return dark*20 <= n
}
