package raster

import "image"

// Body is the part of the mask m (w by h) about seed that an opening by a square of radius r
// leaves, grown back within m: the component of the shrunk mask under seed's centre, else under
// seed's first pixel it holds. It is nil when the shrinking leaves nothing of seed, or when the
// component reaches the edge of inner at a pixel where runsOn says the mask runs on beyond it.
func Body(m []bool, w, h, r int, seed, inner image.Rectangle, runsOn func(x, y int) bool) []bool {
	shrunk := SquareFilter(m, w, h, r, true)
	start := -1
	if c := seed.Min.Add(seed.Max).Div(2); c.In(image.Rect(0, 0, w, h)) && shrunk[c.Y*w+c.X] {
		start = c.Y*w + c.X
	}
	for y := max(seed.Min.Y, 0); y < min(seed.Max.Y, h) && start < 0; y++ {
		for x := max(seed.Min.X, 0); x < min(seed.Max.X, w); x++ {
			if shrunk[y*w+x] {
				start = y*w + x
				break
			}
		}
	}
	if start < 0 {
		return nil
	}
	comp := make([]bool, w*h)
	comp[start] = true
	stack := []int{start}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		if (x <= inner.Min.X || y <= inner.Min.Y || x >= inner.Max.X-1 || y >= inner.Max.Y-1) && runsOn(x, y) {
			return nil
		}
		for _, j := range [4]int{i - 1, i + 1, i - w, i + w} {
			if j >= 0 && j < len(comp) && (j%w-x)*(j%w-x) <= 1 && shrunk[j] && !comp[j] {
				comp[j] = true
				stack = append(stack, j)
			}
		}
	}
	grown := SquareFilter(comp, w, h, r, false)
	for i := range grown {
		grown[i] = grown[i] && m[i]
	}
	return grown
}

// Widens walks the mask m (w wide) from p by step while the mask holds, measuring the run of
// the mask across the walk through each point, and returns the first point whose run is more
// than twice the one before it and slack, that one at least least long; false when the mask
// ends first.
func Widens(m []bool, w int, p, step image.Point, slack, least int) (image.Point, bool) {
	h := len(m) / w
	at := func(q image.Point) bool { return q.X >= 0 && q.Y >= 0 && q.X < w && q.Y < h && m[q.Y*w+q.X] }
	across := image.Pt(step.Y, step.X)
	prev := 0
	for ; at(p); p = p.Add(step) {
		limit := len(m) // no run is counted further than tells it widened
		if prev >= max(least, 1) {
			limit = 2 * (prev + slack)
		}
		n := 1
		for q := p.Add(across); at(q) && n <= limit; q = q.Add(across) {
			n++
		}
		for q := p.Sub(across); at(q) && n <= limit; q = q.Sub(across) {
			n++
		}
		if prev >= max(least, 1) && n > 2*(prev+slack) {
			return p, true
		}
		prev = n
	}
	return p, false
}

// Enclosed reports whether some light pixels of b are cut off from b's border.
func Enclosed(b image.Rectangle, light func(x, y int) bool) bool {
	w, h := b.Dx(), b.Dy()
	reached := make([]bool, w*h)
	var stack []image.Point
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if (x == b.Min.X || y == b.Min.Y || x == b.Max.X-1 || y == b.Max.Y-1) && light(x, y) {
				reached[(y-b.Min.Y)*w+x-b.Min.X] = true
				stack = append(stack, image.Pt(x, y))
			}
		}
	}
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range [4]image.Point{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
			r := q.Add(d)
			if r.In(b) && !reached[(r.Y-b.Min.Y)*w+r.X-b.Min.X] && light(r.X, r.Y) {
				reached[(r.Y-b.Min.Y)*w+r.X-b.Min.X] = true
				stack = append(stack, r)
			}
		}
	}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !reached[(y-b.Min.Y)*w+x-b.Min.X] && light(x, y) {
				return true
			}
		}
	}
	return false
}

// RingInGrey reports whether the small mark in b of g is a ring, as the grey page shows it: its
// middle lighter than halfway from its darkest ink to the paper round it, and cut off from that
// paper. A 。 a few pixels across, binarized, is a blot or an open hook; a dot or a speck is
// darkest in its middle.
func RingInGrey(g *image.Gray, b image.Rectangle) bool {
	grown := b.Inset(-2).Intersect(g.Bounds())
	dark, paper := uint8(255), uint8(0)
	for y := grown.Min.Y; y < grown.Max.Y; y++ {
		for x := grown.Min.X; x < grown.Max.X; x++ {
			v := g.Pix[g.PixOffset(x, y)]
			if (image.Point{x, y}).In(b) {
				dark = min(dark, v)
			} else if x == grown.Min.X || y == grown.Min.Y || x == grown.Max.X-1 || y == grown.Max.Y-1 {
				paper = max(paper, v)
			}
		}
	}
	if int(paper) < int(dark)+40 {
		return false
	}
	mid := (uint16(dark) + uint16(paper)) / 2
	return Enclosed(grown, func(x, y int) bool { return uint16(g.Pix[g.PixOffset(x, y)]) >= mid })
}
