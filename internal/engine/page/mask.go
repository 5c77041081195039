package page

import (
	"image"
	"slices"
)

// Mask is a set of pixels inside a box, as a mask over the box.
type Mask struct {
	Box  image.Rectangle
	Mask []bool // Box.Dx()*Box.Dy(), row-major
	Area int
}

func (r *Mask) Has(x, y int) bool {
	if !(image.Point{x, y}).In(r.Box) {
		return false
	}
	return r.Mask[(y-r.Box.Min.Y)*r.Box.Dx()+(x-r.Box.Min.X)]
}

// RowSpan is the widest run of region pixels on row y, as [x0, x1).
func (r *Mask) RowSpan(y int) (int, int) {
	if y < r.Box.Min.Y || y >= r.Box.Max.Y {
		return 0, 0
	}
	row := r.Mask[(y-r.Box.Min.Y)*r.Box.Dx():][:r.Box.Dx()]
	best0, best1, start := 0, 0, -1
	for x := 0; x <= len(row); x++ {
		if x < len(row) && row[x] {
			if start < 0 {
				start = x
			}
			continue
		}
		if start >= 0 && x-start > best1-best0 {
			best0, best1 = start, x
		}
		start = -1
	}
	return r.Box.Min.X + best0, r.Box.Min.X + best1
}

// Erode shrinks the region by d pixels (a square structuring element, done as two 1-D passes of
// running minimums), so lettering keeps a margin from the bubble's outline.
func (r *Mask) Erode(d int) *Mask {
	if d <= 0 {
		return r
	}
	w, h := r.Box.Dx(), r.Box.Dy()
	pass := func(src []bool, horizontal bool) []bool {
		out := make([]bool, len(src))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				keep := true
				for k := -d; k <= d && keep; k++ {
					xx, yy := x, y
					if horizontal {
						xx += k
					} else {
						yy += k
					}
					if xx < 0 || yy < 0 || xx >= w || yy >= h || !src[yy*w+xx] {
						keep = false
					}
				}
				out[y*w+x] = keep
			}
		}
		return out
	}
	m := pass(pass(r.Mask, true), false)
	out := &Mask{Box: r.Box, Mask: m}
	for _, v := range m {
		if v {
			out.Area++
		}
	}
	return out
}

// Outline traces the region's boundary coarsely as a polygon: for every few rows, the left end of
// its widest run going down and the right end coming back up. It is what the transcript reports
// as a bubble's shape.
func (r *Mask) Outline(step int) []image.Point {
	var left, right []image.Point
	for y := r.Box.Min.Y; y < r.Box.Max.Y; y += max(1, step) {
		x0, x1 := r.RowSpan(y)
		if x1 > x0 {
			left = append(left, image.Pt(x0, y))
			right = append(right, image.Pt(x1, y))
		}
	}
	slices.Reverse(right)
	return append(left, right...)
}
