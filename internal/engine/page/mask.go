package page

import (
	"image"
	"image/color"
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

// Polygon is the mask of the pixels inside a polygon (even-odd rule, sampled at pixel centres):
// a transcript's shape made into an area again.
func Polygon(pts []image.Point) *Mask {
	if len(pts) < 3 {
		return nil
	}
	box := image.Rectangle{Min: pts[0], Max: pts[0]}
	for _, p := range pts[1:] {
		box.Min.X, box.Min.Y = min(box.Min.X, p.X), min(box.Min.Y, p.Y)
		box.Max.X, box.Max.Y = max(box.Max.X, p.X), max(box.Max.Y, p.Y)
	}
	m := &Mask{Box: box, Mask: make([]bool, box.Dx()*box.Dy())}
	var xs []float64
	for y := box.Min.Y; y < box.Max.Y; y++ {
		cy := float64(y) + 0.5
		xs = xs[:0]
		for i, a := range pts {
			b := pts[(i+1)%len(pts)]
			if (float64(a.Y) <= cy) != (float64(b.Y) <= cy) {
				xs = append(xs, float64(a.X)+(cy-float64(a.Y))*float64(b.X-a.X)/float64(b.Y-a.Y))
			}
		}
		slices.Sort(xs)
		for k := 0; k+1 < len(xs); k += 2 {
			for x := box.Min.X; x < box.Max.X; x++ {
				if cx := float64(x) + 0.5; cx >= xs[k] && cx < xs[k+1] && !m.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] {
					m.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = true
					m.Area++
				}
			}
		}
	}
	return m
}

// Paper is the median colour of an area's paper: its pixels away from the lettering's box, or
// fallback when the area has none.
func Paper(img *image.RGBA, area *Mask, lettering image.Rectangle, fallback color.RGBA) color.RGBA {
	var rs, gs, bs []uint8
	step := max(1, area.Box.Dx()/80)
	for y := area.Box.Min.Y; y < area.Box.Max.Y; y += step {
		for x := area.Box.Min.X; x < area.Box.Max.X; x += step {
			if !area.Has(x, y) || (image.Point{x, y}).In(lettering) || !(image.Point{x, y}).In(img.Bounds()) {
				continue
			}
			c := img.RGBAAt(x, y)
			rs, gs, bs = append(rs, c.R), append(gs, c.G), append(bs, c.B)
		}
	}
	if len(rs) == 0 {
		return fallback
	}
	med := func(v []uint8) uint8 { slices.Sort(v); return v[len(v)/2] }
	return color.RGBA{med(rs), med(gs), med(bs), 255}
}

// Share parts m among the boxes near: each gets the pixels of m nearer it than any other box
// (by the gap between the pixel and the box; the first box wins a tie), in a mask of its own.
func (m *Mask) Share(near []image.Rectangle) []*Mask {
	gap := func(r image.Rectangle, p image.Point) int {
		return max(0, max(r.Min.X, p.X)-min(r.Max.X, p.X+1), max(r.Min.Y, p.Y)-min(r.Max.Y, p.Y+1))
	}
	owner := make([]int, len(m.Mask))
	box := make([]image.Rectangle, len(near))
	w := m.Box.Dx()
	for i, in := range m.Mask {
		owner[i] = -1
		if !in {
			continue
		}
		p := image.Pt(m.Box.Min.X+i%w, m.Box.Min.Y+i/w)
		best := 0
		for k, r := range near {
			if d := gap(r, p); owner[i] < 0 || d < best {
				owner[i], best = k, d
			}
		}
		box[owner[i]] = box[owner[i]].Union(image.Rectangle{Min: p, Max: p.Add(image.Pt(1, 1))})
	}
	out := make([]*Mask, len(near))
	for k := range near {
		out[k] = NewMask(box[k])
	}
	for i, k := range owner {
		if k >= 0 {
			o := out[k]
			o.Mask[(m.Box.Min.Y+i/w-o.Box.Min.Y)*o.Box.Dx()+m.Box.Min.X+i%w-o.Box.Min.X] = true
			o.Area++
		}
	}
	return out
}

// NewMask is an empty mask over r.
func NewMask(r image.Rectangle) *Mask {
	return &Mask{Box: r, Mask: make([]bool, r.Dx()*r.Dy())}
}

// FullMask is a mask holding every pixel of r.
func FullMask(r image.Rectangle) *Mask {
	m := NewMask(r)
	for i := range m.Mask {
		m.Mask[i] = true
	}
	m.Area = len(m.Mask)
	return m
}

// Within is the part of m inside r.
func (m *Mask) Within(r image.Rectangle) *Mask {
	r = r.Intersect(m.Box)
	out := NewMask(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if m.Has(x, y) {
				out.Mask[(y-r.Min.Y)*r.Dx()+x-r.Min.X] = true
				out.Area++
			}
		}
	}
	return out
}

// Darker counts the pixels of r within box outside except, every step pixels each way, and
// those of them darker in g than dark: a tone's dots in a balloon's paper, around its lettering.
func (r *Mask) Darker(g *image.Gray, box, except image.Rectangle, dark uint8, step int) (darker, n int) {
	for y := box.Min.Y; y < box.Max.Y; y += step {
		for x := box.Min.X; x < box.Max.X; x += step {
			if r.Has(x, y) && !image.Pt(x, y).In(except) {
				n++
				if g.Pix[y*g.Stride+x] < dark {
					darker++
				}
			}
		}
	}
	return darker, n
}

// Union is the pixels of m and of o, over the box of both.
func (m *Mask) Union(o *Mask) *Mask {
	out := NewMask(m.Box.Union(o.Box))
	for y := out.Box.Min.Y; y < out.Box.Max.Y; y++ {
		for x := out.Box.Min.X; x < out.Box.Max.X; x++ {
			if m.Has(x, y) || o.Has(x, y) {
				out.Mask[(y-out.Box.Min.Y)*out.Box.Dx()+x-out.Box.Min.X] = true
				out.Area++
			}
		}
	}
	return out
}
