package ocr

import (
	"image"
	"image/color"
	"slices"
)

// mask marks page pixels to be repainted.
type mask struct {
	w, h int
	bits []bool
}

func newMask(r image.Rectangle) *mask {
	return &mask{w: r.Dx(), h: r.Dy(), bits: make([]bool, r.Dx()*r.Dy())}
}

func (m *mask) at(x, y int) bool { return m.bits[y*m.w+x] }

// glyphStats describes the lettering of one word: its background and ink colours.
type glyphStats struct {
	Background color.RGBA
	Ink        color.RGBA
	// InkPixels counts pixels taken as glyph pixels.
	InkPixels int
}

// markGlyphs adds to m the glyph pixels of the word in box: pixels inside the (padded) box whose
// colour stands apart from the background, estimated as the median of a ring around the box.
// Only glyphs are marked, not the box, so that a textured or coloured background is rebuilt from
// itself rather than covered.
func markGlyphs(page *image.RGBA, m *mask, box image.Rectangle) glyphStats {
	pad := max(2, box.Dy()/6)
	inner := box.Inset(-pad).Intersect(page.Bounds())
	ring := inner.Inset(-max(2, pad/2)).Intersect(page.Bounds())
	bg := ringMedian(page, ring, inner)

	// The threshold follows the lettering's contrast, so faint anti-aliasing is caught on
	// high-contrast text while a gentle gradient behind low-contrast text is not.
	maxDist := 0
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			maxDist = max(maxDist, colorDist(page.RGBAAt(x, y), bg))
		}
	}
	thresh := max(28, maxDist*30/100)
	var inkSum [3]int
	stats := glyphStats{Background: bg}
	local := make([]bool, inner.Dx()*inner.Dy())
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			c := page.RGBAAt(x, y)
			d := colorDist(c, bg)
			if d < thresh {
				continue
			}
			local[(y-inner.Min.Y)*inner.Dx()+(x-inner.Min.X)] = true
			if d >= maxDist*70/100 {
				inkSum[0] += int(c.R)
				inkSum[1] += int(c.G)
				inkSum[2] += int(c.B)
				stats.InkPixels++
			}
		}
	}
	if stats.InkPixels > 0 {
		n := stats.InkPixels
		stats.Ink = color.RGBA{uint8(inkSum[0] / n), uint8(inkSum[1] / n), uint8(inkSum[2] / n), 255}
	}
	// Dilation swallows the anti-aliased fringe and JPEG ringing around each stroke.
	r := max(1, box.Dy()/14)
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			if !local[(y-inner.Min.Y)*inner.Dx()+(x-inner.Min.X)] {
				continue
			}
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					px, py := x+dx, y+dy
					if (image.Point{px, py}).In(inner) {
						m.bits[py*m.w+px] = true
					}
				}
			}
		}
	}
	return stats
}

// minInkContrast is the least difference, in 8-bit levels of the most differing channel,
// between lettering and its background for a word to count as text.
const minInkContrast = 60

// localContrast is how far the most distinct pixel inside box stands from the median colour of
// a ring around it.
func localContrast(page *image.RGBA, box image.Rectangle) int {
	pad := max(2, box.Dy()/6)
	inner := box.Inset(-pad).Intersect(page.Bounds())
	ring := inner.Inset(-max(2, pad/2)).Intersect(page.Bounds())
	bg := ringMedian(page, ring, inner)
	best := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			best = max(best, colorDist(page.RGBAAt(x, y), bg))
		}
	}
	return best
}

// ringMedian is the per-channel median of the pixels in outer but not in inner.
func ringMedian(page *image.RGBA, outer, inner image.Rectangle) color.RGBA {
	var rs, gs, bs []uint8
	for y := outer.Min.Y; y < outer.Max.Y; y++ {
		for x := outer.Min.X; x < outer.Max.X; x++ {
			if (image.Point{x, y}).In(inner) {
				continue
			}
			c := page.RGBAAt(x, y)
			rs, gs, bs = append(rs, c.R), append(gs, c.G), append(bs, c.B)
		}
	}
	if len(rs) == 0 {
		return color.RGBA{255, 255, 255, 255}
	}
	med := func(v []uint8) uint8 { slices.Sort(v); return v[len(v)/2] }
	return color.RGBA{med(rs), med(gs), med(bs), 255}
}

func colorDist(a, b color.RGBA) int {
	d := func(x, y uint8) int {
		if x > y {
			return int(x - y)
		}
		return int(y - x)
	}
	return max(d(a.R, b.R), d(a.G, b.G), d(a.B, b.B))
}

// fill repaints every masked pixel from its surroundings, peeling the mask from its boundary
// inwards: each round, pixels touching known pixels take the mean of those neighbours. Gradients
// and flat colours continue smoothly under where the text was.
func fill(page *image.RGBA, m *mask) {
	b := page.Bounds()
	known := make([]bool, len(m.bits))
	var todo []int
	for i, v := range m.bits {
		known[i] = !v
		if v {
			todo = append(todo, i)
		}
	}
	type update struct {
		i int
		c color.RGBA
	}
	var frontier []update
	for len(todo) > 0 {
		frontier = frontier[:0]
		rest := todo[:0]
		for _, i := range todo {
			x, y := i%m.w, i/m.w
			var sum [4]int
			n := 0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if (dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= m.w || ny >= m.h || !known[ny*m.w+nx] {
						continue
					}
					c := page.RGBAAt(b.Min.X+nx, b.Min.Y+ny)
					sum[0] += int(c.R)
					sum[1] += int(c.G)
					sum[2] += int(c.B)
					sum[3] += int(c.A)
					n++
				}
			}
			if n == 0 {
				rest = append(rest, i)
				continue
			}
			frontier = append(frontier, update{i, color.RGBA{uint8(sum[0] / n), uint8(sum[1] / n), uint8(sum[2] / n), uint8(sum[3] / n)}})
		}
		if len(frontier) == 0 {
			return // a mask covering the whole page has nothing to grow from
		}
		for _, u := range frontier {
			page.SetRGBA(b.Min.X+u.i%m.w, b.Min.Y+u.i/m.w, u.c)
			known[u.i] = true
		}
		todo = rest
	}
}
