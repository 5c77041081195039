package mangapage

import (
	"image"
	"math"

	"golang.org/x/image/vector"
)

// pt is a point in page pixels; pixel (x, y) covers [x, x+1)×[y, y+1).
type pt struct{ X, Y float64 }

func (p pt) add(q pt) pt         { return pt{p.X + q.X, p.Y + q.Y} }
func (p pt) sub(q pt) pt         { return pt{p.X - q.X, p.Y - q.Y} }
func (p pt) mul(s float64) pt    { return pt{p.X * s, p.Y * s} }
func (p pt) len() float64        { return math.Hypot(p.X, p.Y) }
func (p pt) perp() pt            { return pt{-p.Y, p.X} }
func lerp(p, q pt, t float64) pt { return pt{p.X + (q.X-p.X)*t, p.Y + (q.Y-p.Y)*t} }
func polar(r, a float64) pt      { return pt{r * math.Cos(a), r * math.Sin(a)} }
func (p pt) unit() pt {
	l := p.len()
	if l == 0 {
		return pt{}
	}
	return p.mul(1 / l)
}

// bounds is the integer box around polygons.
func bounds(polys ...[]pt) image.Rectangle {
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for _, p := range polys {
		for _, q := range p {
			minX, maxX = math.Min(minX, q.X), math.Max(maxX, q.X)
			minY, maxY = math.Min(minY, q.Y), math.Max(maxY, q.Y)
		}
	}
	if minX > maxX {
		return image.Rectangle{}
	}
	return image.Rect(int(math.Floor(minX)), int(math.Floor(minY)), int(math.Ceil(maxX))+1, int(math.Ceil(maxY))+1)
}

// rasterize fills closed polygons into an anti-aliased coverage mask over their bounds within
// clip. Overlapping polygons of the same orientation add up; a polygon of the opposite
// orientation inside another cuts a hole, which is how rings and outlines are drawn.
func rasterize(clip image.Rectangle, polys ...[]pt) *image.Alpha {
	b := bounds(polys...)
	r := b.Intersect(clip)
	if r.Empty() {
		return nil
	}
	// The rasterizer covers the whole polygon box so that edges outside the clip still count.
	z := vector.NewRasterizer(b.Dx(), b.Dy())
	ox, oy := float64(b.Min.X), float64(b.Min.Y)
	for _, p := range polys {
		if len(p) < 3 {
			continue
		}
		z.MoveTo(float32(p[0].X-ox), float32(p[0].Y-oy))
		for _, q := range p[1:] {
			z.LineTo(float32(q.X-ox), float32(q.Y-oy))
		}
		z.ClosePath()
	}
	full := image.NewAlpha(b)
	z.Draw(full, b, image.Opaque, b.Min)
	return full.SubImage(r).(*image.Alpha)
}

// paint composites level over dst with coverage a·opacity, clipped to clip when clip is set.
func paint(dst *image.Gray, a *image.Alpha, clip *image.Alpha, level uint8, opacity float64) {
	if a == nil {
		return
	}
	r := a.Rect.Intersect(dst.Rect)
	if clip != nil {
		r = r.Intersect(clip.Rect)
	}
	op := int(opacity*256 + 0.5)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		ai := a.PixOffset(r.Min.X, y)
		di := dst.PixOffset(r.Min.X, y)
		ci := 0
		if clip != nil {
			ci = clip.PixOffset(r.Min.X, y)
		}
		for x := r.Min.X; x < r.Max.X; x, ai, di = x+1, ai+1, di+1 {
			c := int(a.Pix[ai]) * op >> 8
			if clip != nil {
				c = c * int(clip.Pix[ci]) / 255
				ci++
			}
			if c == 0 {
				continue
			}
			v := int(dst.Pix[di])
			dst.Pix[di] = uint8(v + (int(level)-v)*c/255)
		}
	}
}

// over accumulates src into dst (both coverage masks): dst = src + dst·(1-src).
func over(dst, src *image.Alpha) {
	if src == nil {
		return
	}
	r := src.Rect.Intersect(dst.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		si, di := src.PixOffset(r.Min.X, y), dst.PixOffset(r.Min.X, y)
		for x := r.Min.X; x < r.Max.X; x, si, di = x+1, si+1, di+1 {
			s, d := int(src.Pix[si]), int(dst.Pix[di])
			dst.Pix[di] = uint8(s + d*(255-s)/255)
		}
	}
}

// ellipse is a polygon of n points around c with radii rx, ry, turned by rot radians.
func ellipse(c pt, rx, ry, rot float64, n int) []pt {
	out := make([]pt, n)
	cs, sn := math.Cos(rot), math.Sin(rot)
	for i := range out {
		a := 2 * math.Pi * float64(i) / float64(n)
		x, y := rx*math.Cos(a), ry*math.Sin(a)
		out[i] = pt{c.X + x*cs - y*sn, c.Y + x*sn + y*cs}
	}
	return out
}

// segment is a line from p to q whose width goes from w0 to w1 (a tapered stroke when one is 0).
func segment(p, q pt, w0, w1 float64) []pt {
	n := q.sub(p).unit().perp()
	return []pt{p.add(n.mul(w0 / 2)), q.add(n.mul(w1 / 2)), q.sub(n.mul(w1 / 2)), p.sub(n.mul(w0 / 2))}
}

// stroke outlines an open polyline whose width at fraction t of its length is width(t).
func stroke(pts []pt, width func(t float64) float64) []pt {
	if len(pts) < 2 {
		return nil
	}
	left := make([]pt, len(pts))
	right := make([]pt, len(pts))
	for i := range pts {
		var d pt
		switch i {
		case 0:
			d = pts[1].sub(pts[0])
		case len(pts) - 1:
			d = pts[i].sub(pts[i-1])
		default:
			d = pts[i+1].sub(pts[i-1])
		}
		n := d.unit().perp().mul(width(float64(i)/float64(len(pts)-1)) / 2)
		left[i], right[i] = pts[i].add(n), pts[i].sub(n)
	}
	out := left
	for i := len(right) - 1; i >= 0; i-- {
		out = append(out, right[i])
	}
	return out
}

// cubic samples a cubic Bézier curve at n+1 points.
func cubic(p0, p1, p2, p3 pt, n int) []pt {
	out := make([]pt, n+1)
	for i := range out {
		t := float64(i) / float64(n)
		u := 1 - t
		out[i] = p0.mul(u * u * u).add(p1.mul(3 * u * u * t)).add(p2.mul(3 * u * t * t)).add(p3.mul(t * t * t))
	}
	return out
}

// area is the signed area of a polygon: positive when it turns clockwise on screen.
func area(p []pt) float64 {
	s := 0.0
	for i := range p {
		q := p[(i+1)%len(p)]
		s += p[i].X*q.Y - q.X*p[i].Y
	}
	return s / 2
}

// offset moves each vertex of a closed polygon by d along its outward normal (inward when d
// is negative).
func offset(p []pt, d float64) []pt {
	return offsetVar(p, func(int) float64 { return d })
}

// offsetVar is offset with a distance that varies along the polygon, like a brush outline.
func offsetVar(p []pt, d func(i int) float64) []pt {
	sign := 1.0
	if area(p) < 0 {
		sign = -1
	}
	out := make([]pt, len(p))
	for i := range p {
		prev, next := p[(i+len(p)-1)%len(p)], p[(i+1)%len(p)]
		n := next.sub(prev).unit().perp().mul(-sign)
		out[i] = p[i].add(n.mul(d(i)))
	}
	return out
}

func reversed(p []pt) []pt {
	out := make([]pt, len(p))
	for i := range p {
		out[len(p)-1-i] = p[i]
	}
	return out
}

// ring is the band between a closed polygon and its inward offset by width.
func ring(p []pt, width float64) [][]pt {
	outer := p
	inner := offset(p, -width)
	if (area(outer) > 0) == (area(inner) > 0) {
		inner = reversed(inner)
	}
	return [][]pt{outer, inner}
}

func clampf(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// dilate grows a coverage mask by r pixels (chamfer distance), with a soft edge, into a new
// mask that is r+2 pixels larger on each side.
func dilate(a *image.Alpha, r float64) *image.Alpha {
	pad := int(math.Ceil(r)) + 2
	b := a.Rect.Inset(-pad)
	w, h := b.Dx(), b.Dy()
	const inf = 1 << 30
	d := make([]int32, w*h)
	for i := range d {
		d[i] = inf
	}
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x++ {
			if a.Pix[a.PixOffset(x, y)] >= 128 {
				d[(y-b.Min.Y)*w+x-b.Min.X] = 0
			}
		}
	}
	// Chamfer 3-4 in two passes: distances in thirds of a pixel.
	at := func(x, y int) int32 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return inf
		}
		return d[y*w+x]
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := d[y*w+x]
			v = min(v, at(x-1, y)+3, at(x, y-1)+3, at(x-1, y-1)+4, at(x+1, y-1)+4)
			d[y*w+x] = v
		}
	}
	for y := h - 1; y >= 0; y-- {
		for x := w - 1; x >= 0; x-- {
			v := d[y*w+x]
			v = min(v, at(x+1, y)+3, at(x, y+1)+3, at(x+1, y+1)+4, at(x-1, y+1)+4)
			d[y*w+x] = v
		}
	}
	out := image.NewAlpha(b)
	for i, v := range d {
		c := clampf(r+0.5-float64(v)/3, 0, 1)
		out.Pix[i] = uint8(c*255 + 0.5)
	}
	over(out, a)
	return out
}

// affine maps (x, y) to (A·x + B·y + C, D·x + E·y + F).
type affine struct{ A, B, C, D, E, F float64 }

func (m affine) apply(p pt) pt { return pt{m.A*p.X + m.B*p.Y + m.C, m.D*p.X + m.E*p.Y + m.F} }

func (m affine) invert() affine {
	det := m.A*m.E - m.B*m.D
	a, b, d, e := m.E/det, -m.B/det, -m.D/det, m.A/det
	return affine{A: a, B: b, C: -(a*m.C + b*m.F), D: d, E: e, F: -(d*m.C + e*m.F)}
}

// rotation about c by angle radians (clockwise on screen for positive angles).
func rotation(c pt, angle float64) affine {
	cs, sn := math.Cos(angle), math.Sin(angle)
	return affine{A: cs, B: -sn, C: c.X - cs*c.X + sn*c.Y, D: sn, E: cs, F: c.Y - sn*c.X - cs*c.Y}
}

// transformAlpha resamples src through m (source to destination) bilinearly into a new mask
// covering the image of src's bounds, intersected with clip.
func transformAlpha(src *image.Alpha, m affine, clip image.Rectangle) *image.Alpha {
	r := src.Rect
	corners := []pt{
		m.apply(pt{float64(r.Min.X), float64(r.Min.Y)}), m.apply(pt{float64(r.Max.X), float64(r.Min.Y)}),
		m.apply(pt{float64(r.Max.X), float64(r.Max.Y)}), m.apply(pt{float64(r.Min.X), float64(r.Max.Y)}),
	}
	b := bounds(corners).Intersect(clip)
	if b.Empty() {
		return nil
	}
	out := image.NewAlpha(b)
	inv := m.invert()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			s := inv.apply(pt{float64(x) + 0.5, float64(y) + 0.5})
			out.Pix[out.PixOffset(x, y)] = sampleAlpha(src, s.X-0.5, s.Y-0.5)
		}
	}
	return out
}

func sampleAlpha(a *image.Alpha, fx, fy float64) uint8 {
	x0, y0 := int(math.Floor(fx)), int(math.Floor(fy))
	tx, ty := fx-float64(x0), fy-float64(y0)
	get := func(x, y int) float64 {
		if !(image.Point{x, y}.In(a.Rect)) {
			return 0
		}
		return float64(a.Pix[a.PixOffset(x, y)])
	}
	v := (get(x0, y0)*(1-tx)+get(x0+1, y0)*tx)*(1-ty) + (get(x0, y0+1)*(1-tx)+get(x0+1, y0+1)*tx)*ty
	return uint8(v + 0.5)
}

// inkBounds is the box of a mask's pixels with at least a quarter coverage.
func inkBounds(a *image.Alpha) image.Rectangle {
	if a == nil {
		return image.Rectangle{}
	}
	var out image.Rectangle
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		i := a.PixOffset(a.Rect.Min.X, y)
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x, i = x+1, i+1 {
			if a.Pix[i] >= 64 {
				out = out.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return out
}
