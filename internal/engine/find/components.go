package find

import (
	"cmp"
	"image"
	"slices"

	"github.com/vtsproject/vts/internal/engine/balloon"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// This file holds the page-level analysis that manga pages need before any OCR: the light
// regions (bubbles) that enclose lettering, built on raster's connected pieces, and the dark
// holes in them where lettering is looked for.

// region is the page model's mask: a set of pixels inside a box.
type region = page.Mask

// filledRegion is the component n of l with its holes filled (raster.Labels.Filled): for a
// bubble's paper, the whole inside of its outline, lettering included.
func filledRegion(l *raster.Labels, n int32) *region {
	m, a := l.Filled(n)
	return &region{Box: l.Comps[n-1].Box, Mask: m, Area: a}
}

// paperBlur is the copy of g its paper areas are found in: blurred so tone and hatching turn
// grey and only real paper stays light.
func paperBlur(g *image.Gray) *image.Gray {
	return raster.BoxBlur(g, max(1, max(g.Bounds().Dx(), g.Bounds().Dy())/900))
}

// area is a box's area in pixels.
func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

// holes marks the dark shapes inside the paper area n (filled with its holes): its filled
// pixels that are not the paper itself, and the strokes of faint lettering. On the blurred copy
// the paper areas are found in, lettering whose strokes are grey and thinner than a pixel (small
// Mincho scanned at a low resolution) turns as light as paper but for a few specks, while its
// strokes are still ink in the sharp page: those strokes, grown by their soft edges, are holes
// too. A tone's dots are ink in the sharp page as well, but each is much shorter than half a
// character. faint asks for them; they are looked for only in balloons (areas of a third of the
// page or less), where a panel's art does not lie.
func holes(g *image.Gray, ll *raster.Labels, n int32, filled *region, pa *page.Analysis, minChar int, faint bool) *raster.Bitmap {
	box := filled.Box
	w, h := box.Dx(), box.Dy()
	gray := func(x, y int) uint8 { return g.Pix[(box.Min.Y+y)*g.Stride+box.Min.X+x] }
	pb := g.Bounds()
	faint = faint && balloon.Sized(box, pb)
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

// pruneThick drops from a cluster the shapes far thicker than its typical line (by ink), which
// is art the lettering touched: a column beside a figure's hair must not be lost with it.
func pruneThick(grp []blob) []blob {
	if len(grp) < 2 {
		return grp
	}
	byThick := slices.Clone(grp)
	slices.SortFunc(byThick, func(a, b blob) int { return cmp.Compare(a.Thick, b.Thick) })
	total := 0
	for _, b := range byThick {
		total += b.Ink
	}
	typical, acc := byThick[0].Thick, 0
	for _, b := range byThick {
		acc += b.Ink
		if acc*2 >= total {
			typical = b.Thick
			break
		}
	}
	var out []blob
	for _, b := range grp {
		if b.Thick*10 <= typical*22 {
			out = append(out, b)
		}
	}
	return out
}
