package find

import (
	"image"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// This file holds the page-level analysis that manga pages need before any OCR: the light
// regions (bubbles) that enclose lettering, built on raster's connected pieces.

// region is the page model's mask: a set of pixels inside a box.
type region = page.Mask

// filledRegion is the component n of l with its holes filled (raster.Labels.Filled): for a
// bubble's paper, the whole inside of its outline, lettering included.
func filledRegion(l *raster.Labels, n int32) *region {
	m, a := l.Filled(n)
	return &region{Box: l.Comps[n-1].Box, Mask: m, Area: a}
}

// MinInkContrast is the least difference, in 8-bit levels of the most differing channel,
// between lettering and its background for a word to count as text.
const MinInkContrast = 60

// LocalContrast is how far the most distinct pixel inside box stands from the median colour of
// a ring around it.
func LocalContrast(img *image.RGBA, box image.Rectangle) int {
	_, bg := page.Background(img, box)
	best := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			best = max(best, page.ColorDist(img.RGBAAt(x, y), bg))
		}
	}
	return best
}

// area is a box's area in pixels.
func area(r image.Rectangle) int { return r.Dx() * r.Dy() }
