package find

import (
	"image"

	"github.com/vtsproject/vts/internal/engine/page"
)

// This file holds the pixel analysis that manga pages need before any OCR: ink and paper, the
// connected pieces of each, and the light regions (bubbles) that enclose lettering.

// paperLevel estimates the brightness of the page's paper: a high percentile, so that ink, tone
// and art do not pull it down and a few specks of pure white do not push it up.
func paperLevel(g *image.Gray) uint8 {
	var hist [256]int
	for _, v := range g.Pix {
		hist[v]++
	}
	target := len(g.Pix) * 10 / 100 // the brightest 10 %
	n := 0
	for v := 255; v >= 0; v-- {
		n += hist[v]
		if n >= target {
			return uint8(v)
		}
	}
	return 255
}

// bitmap is a binary image with the page's bounds starting at 0,0.
type bitmap struct {
	w, h int
	on   []bool
}

func (b *bitmap) at(x, y int) bool {
	return x >= 0 && y >= 0 && x < b.w && y < b.h && b.on[y*b.w+x]
}

// threshold marks pixels darker than t.
func threshold(g *image.Gray, t uint8) *bitmap {
	b := g.Bounds()
	m := &bitmap{w: b.Dx(), h: b.Dy(), on: make([]bool, b.Dx()*b.Dy())}
	for y := 0; y < m.h; y++ {
		row := g.Pix[g.PixOffset(b.Min.X, b.Min.Y+y):]
		for x := 0; x < m.w; x++ {
			m.on[y*m.w+x] = row[x] < t
		}
	}
	return m
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }

// component is one connected piece of a bitmap.
type component struct {
	Box  image.Rectangle
	Area int
}

// labels holds a labelling of a bitmap: 0 for off pixels, otherwise 1 + the component's index.
type labels struct {
	w, h  int
	id    []int32
	comps []component
}

// label finds the 8-connected (or 4-connected) components of the on pixels of m with a scanline
// flood fill.
func label(m *bitmap, eight bool) *labels {
	l := &labels{w: m.w, h: m.h, id: make([]int32, m.w*m.h)}
	var stack []int
	for start, on := range m.on {
		if !on || l.id[start] != 0 {
			continue
		}
		n := int32(len(l.comps) + 1)
		c := component{Box: image.Rect(start%m.w, start/m.w, start%m.w+1, start/m.w+1)}
		stack = append(stack[:0], start)
		l.id[start] = n
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := i%m.w, i/m.w
			c.Area++
			c.Box = c.Box.Union(image.Rect(x, y, x+1, y+1))
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if (dx == 0 && dy == 0) || (!eight && dx != 0 && dy != 0) {
						continue
					}
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= m.w || ny >= m.h {
						continue
					}
					j := ny*m.w + nx
					if m.on[j] && l.id[j] == 0 {
						l.id[j] = n
						stack = append(stack, j)
					}
				}
			}
		}
		l.comps = append(l.comps, c)
	}
	return l
}

// region is the page model's mask: a set of pixels inside a box.
type region = page.Mask

// filledRegion is the component n of l with its holes filled: the pixels of its box that the box's
// border cannot reach without crossing the component. For a bubble's paper that is the whole
// inside of its outline, lettering included.
func filledRegion(l *labels, n int32) *region {
	c := l.comps[n-1]
	box := c.Box
	w, h := box.Dx(), box.Dy()
	outside := make([]bool, w*h)
	var stack []int
	push := func(x, y int) {
		i := y*w + x
		if outside[i] || l.id[(box.Min.Y+y)*l.w+box.Min.X+x] == n {
			return
		}
		outside[i] = true
		stack = append(stack, i)
	}
	for x := 0; x < w; x++ {
		push(x, 0)
		push(x, h-1)
	}
	for y := 0; y < h; y++ {
		push(0, y)
		push(w-1, y)
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		if x > 0 {
			push(x-1, y)
		}
		if x < w-1 {
			push(x+1, y)
		}
		if y > 0 {
			push(x, y-1)
		}
		if y < h-1 {
			push(x, y+1)
		}
	}
	r := &region{Box: box, Mask: make([]bool, w*h)}
	for i := range outside {
		if !outside[i] {
			r.Mask[i] = true
			r.Area++
		}
	}
	return r
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
