package balloon

import (
	"image"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// Holes marks the dark shapes inside the paper area n (filled with its holes): its filled
// pixels that are not the paper itself, and the strokes of faint lettering. On the blurred copy
// the paper areas are found in, lettering whose strokes are grey and thinner than a pixel (small
// Mincho scanned at a low resolution) turns as light as paper but for a few specks, while its
// strokes are still ink in the sharp page: those strokes, grown by their soft edges, are holes
// too. A tone's dots are ink in the sharp page as well, but each is much shorter than half a
// character. faint asks for them; they are looked for only in balloons (areas of a third of the
// page or less), where a panel's art does not lie.
func Holes(g *image.Gray, ll *raster.Labels, n int32, filled *page.Mask, pa *page.Analysis, minChar int, faint bool) *raster.Bitmap {
	box := filled.Box
	w, h := box.Dx(), box.Dy()
	gray := func(x, y int) uint8 { return g.Pix[(box.Min.Y+y)*g.Stride+box.Min.X+x] }
	pb := g.Bounds()
	faint = faint && Sized(box, pb)
	hole := &raster.Bitmap{W: w, H: h, On: make([]bool, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			hole.On[i] = filled.Mask[i] && ll.ID[(box.Min.Y+y)*ll.W+box.Min.X+x] != n
		}
	}
	if !faint {
		return hole
	}
	strokes := &raster.Bitmap{W: w, H: h, On: make([]bool, w*h)}
	for i, in := range filled.Mask {
		strokes.On[i] = in && gray(i%w, i/w) < pa.InkMax
	}
	fl := raster.Label(strokes, true)
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			i := y*w + x
			if hole.On[i] || !filled.Mask[i] || gray(x, y) >= pa.InkSoft {
				continue
			}
			for _, j := range [...]int{i, i - 1, i + 1, i - w, i + w} {
				if id := fl.ID[j]; id != 0 && stroke(fl.Comps[id-1], minChar) {
					hole.On[i] = true
					break
				}
			}
		}
	}
	return hole
}

// stroke says whether a component of faint ink is long enough to be part of a character.
func stroke(c raster.Component, minChar int) bool {
	return max(c.Box.Dx(), c.Box.Dy())*2 >= minChar
}
