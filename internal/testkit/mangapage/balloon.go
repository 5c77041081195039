package mangapage

import (
	"image"
	"math"
	"math/rand/v2"
)

// balloonStyle is the kind of outline around a block of text.
type balloonStyle int

const (
	styleEllipse    balloonStyle = iota // a hand-drawn, slightly wobbly ellipse
	styleRound                          // a rounded rectangle (superellipse)
	styleCloud                          // a thought bubble: scalloped edge, trail of puffs
	styleSpiky                          // a shout: spikes all round
	styleBorderless                     // a white balloon without outline, on tone
	styleCaption                        // a narration box
)

// balloon is a drawn balloon in page pixels.
type balloon struct {
	Body    []pt // the interior edge
	Line    float64
	Tails   [][]pt // tail interiors, overlapping the body
	TailOut [][]pt // their outlines
	Puffs   [][]pt // thought-bubble puffs
	Style   balloonStyle
	Dark    bool // a black caption with white lettering
	// Clip, when set, is the only part of the page the balloon is drawn in: a balloon cut by
	// its panel's frame.
	Clip []pt
	// Gap, when set, is a region where the outline is left out: a balloon open on one side.
	Gap []pt
}

// outer is the balloon's outside edge.
func (b balloon) outer() []pt {
	if b.Line == 0 {
		return b.Body
	}
	return offset(b.Body, b.Line)
}

// box is everything the balloon covers.
func (b balloon) box() image.Rectangle {
	r := bounds(b.outer())
	for _, t := range b.TailOut {
		r = r.Union(bounds(t))
	}
	for _, p := range b.Puffs {
		r = r.Union(bounds(offset(p, b.Line)))
	}
	return r
}

func (b balloon) translate(d pt) balloon {
	mv := func(p []pt) []pt {
		out := make([]pt, len(p))
		for i, q := range p {
			out[i] = q.add(d)
		}
		return out
	}
	c := b
	c.Body = mv(b.Body)
	c.Tails, c.TailOut, c.Puffs = nil, nil, nil
	if b.Gap != nil {
		c.Gap = mv(b.Gap)
	}
	for _, t := range b.Tails {
		c.Tails = append(c.Tails, mv(t))
	}
	for _, t := range b.TailOut {
		c.TailOut = append(c.TailOut, mv(t))
	}
	for _, t := range b.Puffs {
		c.Puffs = append(c.Puffs, mv(t))
	}
	return c
}

// makeBalloon draws a balloon of style around a w×h block of text centred on the origin,
// for lettering of em size s on a page of unit u.
func makeBalloon(rng *rand.Rand, style balloonStyle, w, h, s, u float64) balloon {
	b := balloon{Style: style, Line: u * uniform(rng, 1.2, 3.2)}
	pad := s * uniform(rng, 0.45, 0.9)
	hw, hh := w/2+pad, h/2+pad
	switch style {
	case styleEllipse, styleBorderless:
		k := uniform(rng, 1.02, 1.12) * math.Sqrt2
		b.Body = wobbly(rng, hw*k, hh*k, 0.035)
		if style == styleBorderless {
			b.Line = 0
		}
	case styleRound:
		n := uniform(rng, 2.6, 5)
		k := math.Pow(2, 1/n) * uniform(rng, 1.0, 1.06)
		b.Body = superellipse(hw*k, hh*k, n, 96)
	case styleCloud:
		k := uniform(rng, 1.05, 1.15) * math.Sqrt2
		b.Body = cloud(rng, hw*k, hh*k, s*uniform(rng, 1.2, 2))
		b.Line *= 0.7
	case styleSpiky:
		k := uniform(rng, 1.05, 1.15) * math.Sqrt2
		b.Body = spiky(rng, hw*k, hh*k, s)
	case styleCaption:
		p := s * uniform(rng, 0.3, 0.6)
		b.Body = []pt{{-w/2 - p, -h/2 - p}, {w/2 + p, -h/2 - p}, {w/2 + p, h/2 + p}, {-w/2 - p, h/2 + p}}
		b.Line = u * uniform(rng, 0.8, 2.2)
		b.Dark = rng.Float64() < 0.15
		return b
	}
	switch {
	case style == styleCloud:
		// A trail of shrinking puffs instead of a tail.
		ang := uniform(rng, 0.2, math.Pi-0.2)
		start := rayHit(b.Body, ang)
		r := s * uniform(rng, 0.45, 0.7)
		d := start
		for range 2 + rng.IntN(2) {
			d = d.add(polar(r*2.2, ang))
			b.Puffs = append(b.Puffs, ellipse(d, r*1.2, r, 0, 20))
			r *= 0.6
		}
	case rng.Float64() < 0.85:
		b.Tails, b.TailOut = tail(rng, b.Body, s, b.Line)
	}
	return b
}

// wobbly is an ellipse whose radius wanders by up to amp (a fraction), as when drawn by hand.
func wobbly(rng *rand.Rand, rx, ry, amp float64) []pt {
	var a [5]float64
	var ph [5]float64
	for k := 2; k < 5; k++ {
		a[k], ph[k] = uniform(rng, 0, amp), uniform(rng, 0, 2*math.Pi)
	}
	out := make([]pt, 120)
	for i := range out {
		t := 2 * math.Pi * float64(i) / float64(len(out))
		f := 1.0
		for k := 2; k < 5; k++ {
			f += a[k] * math.Sin(float64(k)*t+ph[k])
		}
		out[i] = pt{rx * f * math.Cos(t), ry * f * math.Sin(t)}
	}
	return out
}

func superellipse(a, b, n float64, count int) []pt {
	out := make([]pt, count)
	for i := range out {
		t := 2 * math.Pi * float64(i) / float64(count)
		c, s := math.Cos(t), math.Sin(t)
		out[i] = pt{a * math.Copysign(math.Pow(math.Abs(c), 2/n), c), b * math.Copysign(math.Pow(math.Abs(s), 2/n), s)}
	}
	return out
}

// cloud is an ellipse whose edge is a row of outward bumps about bump pixels long.
func cloud(rng *rand.Rand, rx, ry, bump float64) []pt {
	per := math.Pi * (3*(rx+ry) - math.Sqrt((3*rx+ry)*(rx+3*ry)))
	n := max(7, int(per/bump))
	base := ellipse(pt{}, rx, ry, 0, n)
	var out []pt
	for i := range base {
		p, q := base[i], base[(i+1)%n]
		h := p.sub(q).len() * uniform(rng, 0.25, 0.4)
		nrm := q.sub(p).unit().perp().mul(-1)
		for j := range 8 {
			t := float64(j) / 8
			out = append(out, lerp(p, q, t).add(nrm.mul(h*math.Sin(math.Pi*t))))
		}
	}
	return out
}

// spiky is a shout balloon: an ellipse with spikes around it.
func spiky(rng *rand.Rand, rx, ry, s float64) []pt {
	n := 14 + rng.IntN(14)
	var out []pt
	for i := range n {
		t := 2 * math.Pi * (float64(i) + uniform(rng, -0.15, 0.15)) / float64(n)
		tm := 2 * math.Pi * (float64(i) + 0.5 + uniform(rng, -0.15, 0.15)) / float64(n)
		out = append(out, pt{rx * math.Cos(t), ry * math.Sin(t)})
		spike := uniform(rng, 1.15, 1.45)
		out = append(out, pt{(rx + s*0.4) * spike * math.Cos(tm), (ry + s*0.4) * spike * math.Sin(tm)})
	}
	return out
}

// rayHit is where the ray from the origin at angle ang leaves polygon p (nearest vertex).
func rayHit(p []pt, ang float64) pt {
	best, bestD := p[0], math.Inf(1)
	for _, q := range p {
		d := math.Abs(math.Remainder(math.Atan2(q.Y, q.X)-ang, 2*math.Pi))
		if d < bestD {
			best, bestD = q, d
		}
	}
	return best
}

// tail is a tapered, often curved tail leaving the body toward the speaker, and its outline.
func tail(rng *rand.Rand, body []pt, s, line float64) ([][]pt, [][]pt) {
	ang := uniform(rng, -0.3, math.Pi+0.3)
	if rng.Float64() < 0.25 {
		ang = uniform(rng, 0, 2*math.Pi)
	}
	base := rayHit(body, ang)
	dir := base.unit()
	start := base.sub(dir.mul(s * 0.6))
	length := s * uniform(rng, 1.3, 3)
	bend := dir.perp().mul(length * uniform(rng, -0.6, 0.6))
	tip := base.add(dir.mul(length)).add(bend.mul(0.5))
	wb := s * uniform(rng, 0.55, 1.1)
	path := cubic(start, base, base.add(dir.mul(length*0.5)).add(bend.mul(0.4)), tip, 16)
	in := stroke(path, func(t float64) float64 { return wb * (1 - t) })
	outPath := append(path[:len(path):len(path)], tip.add(tip.sub(path[len(path)-2]).unit().mul(line*1.5)))
	out := stroke(outPath, func(t float64) float64 { return wb*(1-t) + 2*line*(1-t*0.8) })
	return [][]pt{in}, [][]pt{out}
}

// draw paints the balloon on the page: outline, then the interior (white, or black for a
// dark caption).
func (b balloon) draw(page *image.Gray) {
	var clip *image.Alpha
	if b.Clip != nil {
		if clip = rasterize(page.Rect, b.Clip); clip == nil {
			return
		}
	}
	if b.Line > 0 {
		polys := append([][]pt{b.outer()}, b.TailOut...)
		for _, p := range b.Puffs {
			polys = append(polys, offset(p, b.Line))
		}
		for _, p := range polys {
			paint(page, rasterize(page.Rect, p), clip, 0, 1)
		}
	}
	fill := uint8(255)
	if b.Dark {
		fill = 0
	}
	for _, p := range append(append([][]pt{b.Body}, b.Tails...), b.Puffs...) {
		paint(page, rasterize(page.Rect, p), clip, fill, 1)
	}
	if b.Gap != nil {
		// The outline, and its anti-aliased fringe, become the balloon's paper.
		if gap := rasterize(page.Rect, b.Gap); gap != nil {
			paint(page, rasterize(page.Rect, offset(b.Body, b.Line*1.6+1)), gap, fill, 1)
		}
	}
}

// pageBox is the balloon's box (without its tail) on the output page, which m maps the drawing
// onto; a balloon cut by its frame ends at the clip.
func (b balloon) pageBox(m affine, out image.Rectangle) image.Rectangle {
	poly := b.outer()
	if b.Clip != nil {
		r := bounds(poly).Intersect(bounds(b.Clip))
		poly = []pt{{float64(r.Min.X), float64(r.Min.Y)}, {float64(r.Max.X), float64(r.Min.Y)}, {float64(r.Max.X), float64(r.Max.Y)}, {float64(r.Min.X), float64(r.Max.Y)}}
	}
	body := make([]pt, len(poly))
	for i, p := range poly {
		body[i] = m.apply(p)
	}
	return bounds(body).Intersect(out)
}
