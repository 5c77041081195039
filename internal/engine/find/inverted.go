package find

import (
	"image"
	"image/color"

	"github.com/vtsproject/vts/internal/engine/balloon"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// invertedBlocks finds lettering set light on a dark box (a narration caption, a flashback's
// panel) the way dark lettering is found on paper, on the page's negative, where the dark is the
// paper and the letters its holes. On the negative every dark area of the art is paper too and
// its highlights holes (an eye's, a lock of hair's), so a block is kept only where it holds four
// characters or more, is dark all round its lettering and nothing found on the page itself lies
// there: keep picks those once the page's own blocks are known, so the two searches can run side
// by side.
func invertedBlocks(g *image.Gray, pa *page.Analysis) (keep func(normal []*page.Block) []*page.Block) {
	neg := image.NewGray(g.Bounds())
	for i, v := range g.Pix {
		neg.Pix[i] = 255 - v
	}
	paper := raster.PaperLevel(neg)
	if int(paper) < 255-int(pa.InkMax) {
		return func([]*page.Block) []*page.Block { return nil } // nothing on the page is as dark as its ink: no dark box
	}
	inkMax := max(min(raster.Otsu(neg), paper-50), 60)
	npa := &page.Analysis{Gray: neg, Paper: paper, InkMax: inkMax, InkSoft: uint8((int(inkMax) + int(paper)) / 2)}
	found, _ := detectBlocks(neg, paperBlur(neg), npa, onNegative)
	pb := g.Bounds()
	return func(normal []*page.Block) []*page.Block {
		var out []*page.Block
		for _, tb := range found {
			if tb.Chars() < 4 || balloon.Covered(normal, tb.Box, pb) || darkAround(neg, npa, tb) < 0.9 {
				continue
			}
			// Lettering is set within its box: a dark area that is no box is the art's.
			if b := tb.Bubble; b != nil && (b.Area*10 < area(b.Box)*9 || area(b.Box)*8 > area(pb)) {
				tb.Bubble = nil
			}
			tb.Paper = color.RGBA{255 - paper, 255 - paper, 255 - paper, 255}
			out = append(out, tb)
		}
		return out
	}
}

// darkAround is the share of the pixels around and between the lettering of tb (a third of a
// character beyond its box: a caption's box is often tight, and a scan turns it a little) that
// are as dark as its paper, on the negative as light.
func darkAround(neg *image.Gray, npa *page.Analysis, tb *page.Block) float64 {
	on, n := countAround(neg, tb.Box.Inset(-tb.Char/3), tb.InkAt, func(v uint8) bool { return int(v) >= int(npa.Paper)-45 })
	return float64(on) / float64(max(n, 1))
}

// countAround counts the pixels of g in r (within the page) that skip leaves out, n, and those of
// them whose grey is holds for, hits.
func countAround(g *image.Gray, r image.Rectangle, skip func(x, y int) bool, is func(v uint8) bool) (hits, n int) {
	r = r.Intersect(g.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if skip(x, y) {
				continue
			}
			n++
			if is(g.Pix[g.PixOffset(x, y)]) {
				hits++
			}
		}
	}
	return hits, n
}
