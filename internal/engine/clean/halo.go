package clean

import (
	"image"
	"slices"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// A letterer sets text on the art inside a halo, a band of paper a fraction of a character wide
// around every stroke; the finder sees that band as a paper area holding the lettering, a bubble.
// Painted with its paper as a bubble is, the band would stay on the art as a white silhouette of
// the erased text. A balloon keeps its distance from its lettering, more at its ends and round
// its curves; a halo's edge follows the strokes a short way off all round.

// haloReachOfChar is how far from the strokes, in characters, a halo's edge lies at most.
const haloReachOfChar = 0.6

// isHalo reports whether t's bubble is the halo around its lettering: nine tenths of its edge
// lie within haloReachOfChar characters of the strokes.
func isHalo(t Target) bool {
	if t.Bubble == nil || t.Ink == nil || t.Char <= 0 {
		return false
	}
	b := t.Bubble
	dist := distanceTo(b.Box, t.Ink.Has)
	var edge []float64
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if b.Has(x, y) && (!b.Has(x-1, y) || !b.Has(x+1, y) || !b.Has(x, y-1) || !b.Has(x, y+1)) {
				edge = append(edge, dist[(y-b.Box.Min.Y)*b.Box.Dx()+x-b.Box.Min.X])
			}
		}
	}
	if len(edge) < 16 {
		return false
	}
	slices.Sort(edge)
	return edge[len(edge)*9/10] <= haloReachOfChar*float64(t.Char)
}

// haloParts is t, whose bubble is a halo, as one target per piece of the halo, or nil when the
// halo is one piece. Lines of lettering set further apart than their halos are wide keep a halo
// each (the finder joins them into one block, find/halos.go); each is erased as it was found,
// its tone carried from beyond its own box and its halo grown within its own reach: erased as
// one, the column of 今度こそ倒してやる！ by a panel's frame left a pale sliver of its halo.
func haloParts(t Target) []Target {
	b := t.Bubble
	ll := raster.Label(&raster.Bitmap{W: b.Box.Dx(), H: b.Box.Dy(), On: b.Mask}, true)
	if len(ll.Comps) < 2 {
		return nil
	}
	parts := make([]Target, 0, len(ll.Comps))
	for k, c := range ll.Comps {
		box := c.Box.Add(b.Box.Min)
		m := page.NewMask(box)
		for _, i := range ll.Pix(int32(k + 1)) {
			m.Mask[(i/ll.W-c.Box.Min.Y)*box.Dx()+i%ll.W-c.Box.Min.X] = true
		}
		m.Area = c.Area
		part := t
		part.Bubble, part.Ink, part.Box = m, t.Ink.Within(box), t.Box.Intersect(box)
		if !part.Box.Empty() {
			parts = append(parts, part)
		}
	}
	return parts
}

// withHalo adds to m, within region, the halo's pixels grown by a pixel or two over its soft
// edge and its JPEG ringing.
func withHalo(m, halo *page.Mask, region image.Rectangle, grow int) {
	h := page.NewMask(m.Box)
	for y := region.Min.Y; y < region.Max.Y; y++ {
		for x := region.Min.X; x < region.Max.X; x++ {
			if halo.Has(x, y) {
				h.Mask[(y-m.Box.Min.Y)*m.Box.Dx()+x-m.Box.Min.X] = true
			}
		}
	}
	dilateIn(h, region, grow)
	for i, on := range h.Mask {
		m.Mask[i] = m.Mask[i] || on
	}
}
