// Package clean is the cleaning stage: it removes a page's source lettering, painting bubbles
// with their paper and rebuilding art from its surroundings.
package clean

import (
	"image"
	"image/color"

	"github.com/vtsproject/vts/internal/engine/page"
)

// GlyphStats describes the lettering of one word: its background and ink colours.
type GlyphStats struct {
	Background color.RGBA
	Ink        color.RGBA
	// InkPixels counts pixels taken as glyph pixels.
	InkPixels int
}

// Glyphs adds to m the glyph pixels of the word in box: pixels inside the (padded) box whose
// colour stands apart from the background, estimated as the median of a ring around the box.
// Only glyphs are marked, not the box, so that a textured or coloured background is rebuilt from
// itself rather than covered.
func Glyphs(img *image.RGBA, m *page.Mask, box image.Rectangle) GlyphStats {
	inner, bg := page.Background(img, box)

	// The threshold follows the lettering's contrast, so faint anti-aliasing is caught on
	// high-contrast text while a gentle gradient behind low-contrast text is not.
	maxDist := 0
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			maxDist = max(maxDist, page.ColorDist(img.RGBAAt(x, y), bg))
		}
	}
	thresh := max(28, maxDist*30/100)
	var inkSum [3]int
	stats := GlyphStats{Background: bg}
	local := make([]bool, inner.Dx()*inner.Dy())
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			c := img.RGBAAt(x, y)
			d := page.ColorDist(c, bg)
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
						m.Mask[(py-m.Box.Min.Y)*m.Box.Dx()+px-m.Box.Min.X] = true
					}
				}
			}
		}
	}
	return stats
}

// Fill repaints every masked pixel from its surroundings, peeling the mask from its boundary
// inwards: each round, pixels touching known pixels take the mean of those neighbours. Gradients
// and flat colours continue smoothly under where the text was.
func Fill(img *image.RGBA, m *page.Mask) {
	b := m.Box
	w, h := m.Box.Dx(), m.Box.Dy()
	known := make([]bool, len(m.Mask))
	var todo []int
	for i, v := range m.Mask {
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
			x, y := i%w, i/w
			var sum [4]int
			n := 0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if (dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= w || ny >= h || !known[ny*w+nx] {
						continue
					}
					c := img.RGBAAt(b.Min.X+nx, b.Min.Y+ny)
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
			img.SetRGBA(b.Min.X+u.i%w, b.Min.Y+u.i/w, u.c)
			known[u.i] = true
		}
		todo = rest
	}
}

// Target is one block's lettering to remove.
type Target struct {
	Box image.Rectangle
	// Char is the lettering's character size, which sets how far strokes are grown over their
	// anti-aliased fringe.
	Char int
	// Ink marks the lettering's pixels, furigana included.
	Ink *page.Mask
	// Bubble is the paper area around the lettering, nil for text on art; Paper is its colour.
	Bubble *page.Mask
	Paper  color.RGBA
}

// Block removes a block's lettering from img. Inside a bubble everything that is not paper
// (strokes grown over their anti-aliased fringe, stray punctuation; gray is the page's
// luminance, paperLevel its paper's) takes the bubble's own paper colour, and the outline is
// never touched; on art the strokes are rebuilt from their surroundings.
func Block(img *image.RGBA, gray *image.Gray, paperLevel uint8, t Target) {
	grow := max(1, t.Char/12)
	pb := img.Bounds()
	m := page.NewMask(pb)
	mark := func(x, y int) {
		for dy := -grow; dy <= grow; dy++ {
			for dx := -grow; dx <= grow; dx++ {
				px, py := x+dx, y+dy
				if !(image.Point{px, py}).In(pb) || (t.Bubble != nil && !t.Bubble.Has(px, py)) {
					continue
				}
				m.Mask[(py-pb.Min.Y)*pb.Dx()+(px-pb.Min.X)] = true
			}
		}
	}
	if t.Bubble != nil {
		paperMin := uint8(max(120, int(paperLevel)-45))
		bb := t.Bubble.Box
		for y := bb.Min.Y; y < bb.Max.Y; y++ {
			for x := bb.Min.X; x < bb.Max.X; x++ {
				if t.Bubble.Has(x, y) && gray.GrayAt(x, y).Y < paperMin {
					mark(x, y)
				}
			}
		}
		for i, on := range m.Mask {
			if on {
				img.SetRGBA(pb.Min.X+i%pb.Dx(), pb.Min.Y+i/pb.Dx(), t.Paper)
			}
		}
		return
	}
	for y := t.Box.Min.Y; y < t.Box.Max.Y; y++ {
		for x := t.Box.Min.X; x < t.Box.Max.X; x++ {
			if t.Ink.Has(x, y) {
				mark(x, y)
			}
		}
	}
	Fill(img, m)
}
