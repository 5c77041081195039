package find

import (
	"cmp"
	"image"
	"slices"

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
