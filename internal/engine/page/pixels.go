package page

import (
	"image"
	"image/color"
	"slices"
)

// Background is a word's surroundings: its box padded by a sixth of its height, and the median
// colour of a ring around that, which is what its lettering stands on.
func Background(img *image.RGBA, box image.Rectangle) (image.Rectangle, color.RGBA) {
	pad := max(2, box.Dy()/6)
	inner := box.Inset(-pad).Intersect(img.Bounds())
	ring := inner.Inset(-max(2, pad/2)).Intersect(img.Bounds())
	return inner, RingMedian(img, ring, inner)
}

// RingMedian is the per-channel median of the pixels in outer but not in inner.
func RingMedian(img *image.RGBA, outer, inner image.Rectangle) color.RGBA {
	var rs, gs, bs []uint8
	for y := outer.Min.Y; y < outer.Max.Y; y++ {
		for x := outer.Min.X; x < outer.Max.X; x++ {
			if (image.Point{x, y}).In(inner) {
				continue
			}
			c := img.RGBAAt(x, y)
			rs, gs, bs = append(rs, c.R), append(gs, c.G), append(bs, c.B)
		}
	}
	if len(rs) == 0 {
		return color.RGBA{255, 255, 255, 255}
	}
	med := func(v []uint8) uint8 { slices.Sort(v); return v[len(v)/2] }
	return color.RGBA{med(rs), med(gs), med(bs), 255}
}

// ColorDist is how far two colours are apart: the largest difference of a channel.
func ColorDist(a, b color.RGBA) int {
	d := func(x, y uint8) int {
		if x > y {
			return int(x - y)
		}
		return int(y - x)
	}
	return max(d(a.R, b.R), d(a.G, b.G), d(a.B, b.B))
}

// MinInkContrast is the least difference, in 8-bit levels of the most differing channel,
// between lettering and its background for a word to count as text.
const MinInkContrast = 60

// LocalContrast is how far the most distinct pixel inside box stands from the median colour of
// a ring around it.
func LocalContrast(img *image.RGBA, box image.Rectangle) int {
	_, bg := Background(img, box)
	best := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			best = max(best, ColorDist(img.RGBAAt(x, y), bg))
		}
	}
	return best
}
