package mangapage

import (
	"image"
	"math"
	"math/rand/v2"
)

// panel is one frame of the page: a quadrilateral in page pixels.
type panel struct {
	Quad []pt
	Box  image.Rectangle
	// Busy is set when the panel's background is tone, lines or black, where a borderless
	// white balloon reads as one.
	Busy bool
	// Frame is the width of the panel's border line, centred on Quad.
	Frame float64
}

// line is the infinite line through A and B.
type line struct{ A, B pt }

func intersect(l, m line) pt {
	d1, d2 := l.B.sub(l.A), m.B.sub(m.A)
	den := d1.X*d2.Y - d1.Y*d2.X
	if math.Abs(den) < 1e-9 {
		return l.A
	}
	t := ((m.A.X-l.A.X)*d2.Y - (m.A.Y-l.A.Y)*d2.X) / den
	return l.A.add(d1.mul(t))
}

// layoutPanels cuts the page into 3–6 panels in rows, the way a manga page is drawn: outer
// margins, white gutters, now and then a slanted cut or a panel bleeding off the page.
func layoutPanels(rng *rand.Rand, w, h int) []panel {
	W, H := float64(w), float64(h)
	mx, my := W*uniform(rng, 0.05, 0.08), H*uniform(rng, 0.04, 0.065)
	gh, gv := H*uniform(rng, 0.012, 0.022), W*uniform(rng, 0.012, 0.022)
	total := 3 + rng.IntN(4)
	var rows []int
	for left := total; left > 0; {
		n := 1 + rng.IntN(min(3, left))
		if len(rows) == 3 {
			n = left
		}
		rows = append(rows, n)
		left -= n
	}
	if len(rows) == 1 && total > 2 {
		rows = []int{1, total - 1}
	}
	// Row boundaries as lines across the page, from the left margin to the right one.
	weights := make([]float64, len(rows))
	sum := 0.0
	for i := range weights {
		weights[i] = uniform(rng, 0.7, 1.4)
		sum += weights[i]
	}
	xl, xr := mx, W-mx
	top, bottom := my, H-my
	if rng.Float64() < 0.2 {
		top = -10 // the first row bleeds off the top edge
	}
	if rng.Float64() < 0.15 {
		bottom = H + 10
	}
	hb := []line{{pt{xl, top}, pt{xr, top}}}
	y := top
	for i := 0; i < len(rows)-1; i++ {
		y += (bottom - top) * weights[i] / sum
		tilt := 0.0
		if rng.Float64() < 0.3 {
			tilt = H * uniform(rng, -0.04, 0.04)
		}
		hb = append(hb, line{pt{xl, y - tilt}, pt{xr, y + tilt}})
	}
	hb = append(hb, line{pt{xl, bottom}, pt{xr, bottom}})

	var panels []panel
	for i, n := range rows {
		upper, lower := hb[i], hb[i+1]
		if i > 0 {
			upper = line{upper.A.add(pt{0, gh / 2}), upper.B.add(pt{0, gh / 2})}
		}
		if i < len(rows)-1 {
			lower = line{lower.A.sub(pt{0, gh / 2}), lower.B.sub(pt{0, gh / 2})}
		}
		// Column boundaries as lines from the row's top to its bottom.
		vb := []line{{pt{xl, 0}, pt{xl, 1}}}
		cw := make([]float64, n)
		cs := 0.0
		for j := range cw {
			cw[j] = uniform(rng, 0.6, 1.5)
			cs += cw[j]
		}
		x := xl
		for j := 0; j < n-1; j++ {
			x += (xr - xl) * cw[j] / cs
			tilt := 0.0
			if rng.Float64() < 0.3 {
				tilt = W * uniform(rng, -0.05, 0.05)
			}
			yt, yb := intersect(hb[i], line{pt{x, 0}, pt{x, 1}}).Y, intersect(hb[i+1], line{pt{x, 0}, pt{x, 1}}).Y
			vb = append(vb, line{pt{x + tilt, yt}, pt{x - tilt, yb}})
		}
		vb = append(vb, line{pt{xr, 0}, pt{xr, 1}})
		for j := 0; j < n; j++ {
			left, right := vb[j], vb[j+1]
			if j > 0 {
				left = line{left.A.add(pt{gv / 2, 0}), left.B.add(pt{gv / 2, 0})}
			}
			if j < n-1 {
				right = line{right.A.sub(pt{gv / 2, 0}), right.B.sub(pt{gv / 2, 0})}
			}
			q := []pt{intersect(upper, left), intersect(upper, right), intersect(lower, right), intersect(lower, left)}
			panels = append(panels, panel{Quad: q, Box: bounds(q).Intersect(image.Rect(0, 0, w, h))})
		}
	}
	return panels
}

func uniform(rng *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

// artist draws one panel's art into its own canvas with the page's unit u (pixels per
// thousandth of the page width).
type artist struct {
	rng *rand.Rand
	c   *image.Gray
	u   float64
	box image.Rectangle
}

func (a *artist) fill(level uint8, polys ...[]pt) {
	paint(a.c, rasterize(a.c.Rect, polys...), nil, level, 1)
}

func (a *artist) fillClip(clip *image.Alpha, level uint8, polys ...[]pt) {
	paint(a.c, rasterize(a.c.Rect, polys...), clip, level, 1)
}

func (a *artist) rect() []pt {
	b := a.box
	return []pt{{float64(b.Min.X), float64(b.Min.Y)}, {float64(b.Max.X), float64(b.Min.Y)}, {float64(b.Max.X), float64(b.Max.Y)}, {float64(b.Min.X), float64(b.Max.Y)}}
}

func (a *artist) at(fx, fy float64) pt {
	return pt{float64(a.box.Min.X) + fx*float64(a.box.Dx()), float64(a.box.Min.Y) + fy*float64(a.box.Dy())}
}

// tone is a screentone: dots (or lines) of a pitch and angle whose density goes from lo at
// from to hi at to.
type tone struct {
	Pitch, Angle float64
	Lo, Hi       float64
	From, To     pt
	Lines        bool
}

func (a *artist) randomTone() tone {
	// Published tones are 50–85 lines per inch; at 300 dpi that is a pitch of 3.5–6 pixels,
	// and phone-sized pages have pitches near 2 pixels, which is where moiré comes from.
	t := tone{
		Pitch: a.u * uniform(a.rng, 3.2, 7.5),
		Angle: pick(a.rng, []float64{45, 45, 45, 30, 60, 0, 15}) * math.Pi / 180,
		Lo:    uniform(a.rng, 0.08, 0.4),
	}
	t.Pitch = math.Max(t.Pitch, 2.2)
	t.Hi = t.Lo
	if a.rng.Float64() < 0.45 {
		t.Hi = uniform(a.rng, 0, 0.75)
		t.From, t.To = a.at(a.rng.Float64(), 0), a.at(a.rng.Float64(), 1)
		if a.rng.Float64() < 0.5 {
			t.From, t.To = t.To, t.From
		}
	}
	t.Lines = a.rng.Float64() < 0.08
	return t
}

// applyTone lays t over the canvas where region covers it.
func (a *artist) applyTone(t tone, region *image.Alpha) {
	if region == nil {
		return
	}
	r := region.Rect.Intersect(a.c.Rect)
	cs, sn := math.Cos(t.Angle), math.Sin(t.Angle)
	g := t.To.sub(t.From)
	gl := g.X*g.X + g.Y*g.Y
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			m := region.Pix[region.PixOffset(x, y)]
			if m == 0 {
				continue
			}
			px, py := float64(x)+0.5, float64(y)+0.5
			d := t.Lo
			if gl > 0 {
				f := clampf(((px-t.From.X)*g.X+(py-t.From.Y)*g.Y)/gl, 0, 1)
				d = t.Lo + (t.Hi-t.Lo)*f
			}
			if d <= 0.01 {
				continue
			}
			u := (px*cs + py*sn) / t.Pitch
			v := (-px*sn + py*cs) / t.Pitch
			var cov float64
			if t.Lines {
				du := math.Abs(u-math.Floor(u)-0.5) * t.Pitch
				cov = clampf(d*t.Pitch/2-du+0.5, 0, 1)
			} else {
				du, dv := (u-math.Floor(u)-0.5)*t.Pitch, (v-math.Floor(v)-0.5)*t.Pitch
				dist := math.Hypot(du, dv)
				if d <= 0.5 {
					cov = clampf(t.Pitch*math.Sqrt(d/math.Pi)-dist+0.5, 0, 1)
				} else {
					// Dense tone is white holes in black.
					cov = 1 - clampf(t.Pitch*math.Sqrt((1-d)/math.Pi)-dist+0.5, 0, 1)
				}
			}
			cov *= float64(m) / 255
			i := a.c.PixOffset(x, y)
			a.c.Pix[i] = uint8(float64(a.c.Pix[i]) * (1 - cov))
		}
	}
}

// hatch draws parallel strokes over region, crossed by a second set when cross is set.
func (a *artist) hatch(region *image.Alpha, angle, spacing, width float64, cross bool) {
	if region == nil {
		return
	}
	b := region.Rect
	c := pt{float64(b.Min.X+b.Max.X) / 2, float64(b.Min.Y+b.Max.Y) / 2}
	diag := math.Hypot(float64(b.Dx()), float64(b.Dy())) / 2
	sets := []float64{angle}
	if cross {
		sets = append(sets, angle+uniform(a.rng, 50, 100)*math.Pi/180)
	}
	for _, ang := range sets {
		dir, n := polar(1, ang), polar(1, ang+math.Pi/2)
		var polys [][]pt
		for o := -diag; o < diag; o += spacing * uniform(a.rng, 0.8, 1.2) {
			base := c.add(n.mul(o))
			l0, l1 := -diag*uniform(a.rng, 0.6, 1), diag*uniform(a.rng, 0.6, 1)
			if a.rng.Float64() < 0.3 {
				l0 = diag * uniform(a.rng, -0.8, 0.4)
			}
			p, q := base.add(dir.mul(l0)), base.add(dir.mul(l1))
			w := width * uniform(a.rng, 0.7, 1.3)
			polys = append(polys, stroke([]pt{p, lerp(p, q, 0.5), q}, func(t float64) float64 { return w * (0.35 + 0.65*math.Sin(math.Pi*t)) }))
		}
		a.fillClip(region, 0, polys...)
	}
}

// speedLines are parallel tapered strokes across the panel, the manga sign of motion.
func (a *artist) speedLines(angle float64) {
	b := a.box
	c := pt{float64(b.Min.X+b.Max.X) / 2, float64(b.Min.Y+b.Max.Y) / 2}
	diag := math.Hypot(float64(b.Dx()), float64(b.Dy())) / 2
	dir, n := polar(1, angle), polar(1, angle+math.Pi/2)
	var polys [][]pt
	count := 40 + a.rng.IntN(120)
	for range count {
		o := uniform(a.rng, -diag, diag)
		l := diag * uniform(a.rng, 0.3, 1.6)
		s := uniform(a.rng, -diag*1.2, diag*1.2-l)
		p := c.add(n.mul(o)).add(dir.mul(s))
		q := p.add(dir.mul(l))
		w := a.u * uniform(a.rng, 0.6, 3.5)
		polys = append(polys, stroke([]pt{p, lerp(p, q, 0.5), q}, func(t float64) float64 { return w * math.Sin(math.Pi*t) }))
	}
	a.fill(0, polys...)
}

// focusLines are radial strokes converging on centre, leaving a clear middle.
func (a *artist) focusLines(centre pt, inner float64) {
	b := a.box
	outer := math.Hypot(float64(b.Dx()), float64(b.Dy()))
	var polys [][]pt
	count := 80 + a.rng.IntN(180)
	for range count {
		ang := uniform(a.rng, 0, 2*math.Pi)
		r0 := inner * uniform(a.rng, 0.8, 1.5)
		w := a.u * uniform(a.rng, 1, 6)
		p := centre.add(polar(outer, ang))
		q := centre.add(polar(r0, ang))
		polys = append(polys, segment(p, q, w, 0))
	}
	a.fill(0, polys...)
}

// figure is a character bust: a head with a thick outline, spiky black or hatched hair, big
// eyes, shoulders; placed at c with head radius r.
func (a *artist) figure(c pt, r float64) {
	lw := a.u * uniform(a.rng, 2, 4.5)
	rng := a.rng
	// Shoulders and torso.
	sh := []pt{
		c.add(pt{-r * 0.35, r * 0.85}), c.add(pt{r * 0.35, r * 0.85}),
		c.add(pt{r * 1.6, r * 1.5}), c.add(pt{r * 2.1, r * 3.5}),
		c.add(pt{-r * 2.1, r * 3.5}), c.add(pt{-r * 1.6, r * 1.5}),
	}
	a.fill(0, offset(sh, lw))
	a.fill(255, sh)
	if rng.Float64() < 0.6 {
		t := a.randomTone()
		a.applyTone(t, rasterize(a.c.Rect, offset(sh, -lw)))
	}
	// Collar lines.
	a.fill(0, stroke(cubic(c.add(pt{-r * 0.5, r * 1.1}), c.add(pt{-r * 0.2, r * 1.6}), c.add(pt{r * 0.2, r * 1.6}), c.add(pt{r * 0.5, r * 1.1}), 12), func(float64) float64 { return lw * 0.8 }))
	// Head.
	head := ellipse(c, r*0.85, r, uniform(rng, -0.2, 0.2), 64)
	a.fill(0, offset(head, lw))
	a.fill(255, head)
	if rng.Float64() < 0.5 {
		// Shade one side of the face.
		side := []pt{c.add(pt{0, -r * 2}), c.add(pt{r * 2, -r * 2}), c.add(pt{r * 2, r * 2}), c.add(pt{0, r * 2})}
		if rng.Float64() < 0.5 {
			side = []pt{c.add(pt{0, -r * 2}), c.add(pt{-r * 2, -r * 2}), c.add(pt{-r * 2, r * 2}), c.add(pt{0, r * 2})}
		}
		face := rasterize(a.c.Rect, offset(head, -lw/2))
		shade := rasterize(a.c.Rect, side)
		if face != nil && shade != nil {
			mul(shade, face)
			a.applyTone(a.randomTone(), shade)
		}
	}
	// Hair: the top of the head grown outward, with spikes down over the forehead.
	var hair []pt
	for i := 0; i <= 24; i++ {
		ang := math.Pi + math.Pi*float64(i)/24
		hair = append(hair, c.add(polar(r*uniform(rng, 1.1, 1.3), ang)).add(pt{0, r * 0.05}))
	}
	spikes := 4 + rng.IntN(5)
	for i := 0; i <= spikes; i++ {
		x := r*1.1 - 2.2*r*float64(i)/float64(spikes)
		hair = append(hair, c.add(pt{x, -r * uniform(rng, 0.0, 0.3)}))
		if i < spikes {
			hair = append(hair, c.add(pt{x - 1.1*r/float64(spikes), r * uniform(rng, 0.05, 0.45)}))
		}
	}
	if rng.Float64() < 0.55 {
		a.fill(0, hair)
		// Highlights on black hair.
		for range 3 {
			p := c.add(pt{uniform(rng, -0.6, 0.6) * r, -r * uniform(rng, 0.6, 0.9)})
			a.fill(255, segment(p, p.add(polar(r*0.35, uniform(rng, 0.8, 1.3))), a.u*2.5, 0))
		}
	} else {
		a.fill(0, offset(hair, lw))
		a.fill(255, hair)
		a.hatch(rasterize(a.c.Rect, hair), uniform(rng, 0.9, 1.4), a.u*uniform(rng, 4, 8), a.u*1.2, false)
	}
	// Eyes.
	for _, sx := range []float64{-1, 1} {
		e := c.add(pt{sx * r * 0.38, r * 0.25})
		er := r * uniform(rng, 0.14, 0.22)
		a.fill(0, ellipse(e, er*0.75, er, 0, 24))
		a.fill(255, ellipse(e.add(pt{-er * 0.25, -er * 0.35}), er*0.25, er*0.3, 0, 12))
		a.fill(0, stroke([]pt{e.add(pt{-er * 1.1, -er * 1.3}), e.add(pt{0, -er * 1.55}), e.add(pt{er * 1.1, -er * 1.2})}, func(float64) float64 { return lw }))
	}
	// Mouth.
	m := c.add(pt{uniform(rng, -0.1, 0.1) * r, r * 0.7})
	a.fill(0, segment(m.sub(pt{r * 0.12, 0}), m.add(pt{r * 0.12, r * uniform(rng, -0.05, 0.05)}), lw*0.8, lw*0.8))
}

// mul multiplies a by b where they overlap and clears a elsewhere.
func mul(a, b *image.Alpha) {
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x++ {
			i := a.PixOffset(x, y)
			v := uint8(0)
			if (image.Point{x, y}).In(b.Rect) {
				v = b.Pix[b.PixOffset(x, y)]
			}
			a.Pix[i] = uint8(int(a.Pix[i]) * int(v) / 255)
		}
	}
}

// buildings is a street of boxes with windows along the panel's lower part.
func (a *artist) buildings() {
	b := a.box
	base := float64(b.Max.Y) - float64(b.Dy())*uniform(a.rng, 0, 0.25)
	lw := a.u * uniform(a.rng, 1.5, 3)
	x := float64(b.Min.X) - a.u*20
	for x < float64(b.Max.X) {
		w := float64(b.Dx()) * uniform(a.rng, 0.12, 0.35)
		h := float64(b.Dy()) * uniform(a.rng, 0.25, 0.8)
		r := []pt{{x, base - h}, {x + w, base - h}, {x + w, base}, {x, base}}
		a.fill(0, offset(r, lw))
		a.fill(255, r)
		if a.rng.Float64() < 0.5 {
			a.applyTone(a.randomTone(), rasterize(a.c.Rect, r))
		}
		ww, wh := w/uniform(a.rng, 5, 9), h/uniform(a.rng, 8, 14)
		dark := uint8(0)
		if a.rng.Float64() < 0.5 {
			dark = 90
		}
		var wins [][]pt
		for wy := base - h + wh; wy+wh < base-wh; wy += wh * 2 {
			for wx := x + ww; wx+ww < x+w; wx += ww * 2 {
				wins = append(wins, []pt{{wx, wy}, {wx + ww, wy}, {wx + ww, wy + wh}, {wx, wy + wh}})
			}
		}
		a.fill(dark, wins...)
		x += w + a.u*uniform(a.rng, 0, 15)
	}
	// Ground.
	a.fill(0, segment(pt{float64(b.Min.X), base}, pt{float64(b.Max.X), base}, lw*1.5, lw*1.5))
}

// strokes are loose brush curves: folds, wind, background texture.
func (a *artist) strokes(n int) {
	var polys [][]pt
	for range n {
		p0 := a.at(a.rng.Float64(), a.rng.Float64())
		d := polar(float64(a.box.Dx())*uniform(a.rng, 0.1, 0.5), uniform(a.rng, 0, 2*math.Pi))
		p3 := p0.add(d)
		p1 := lerp(p0, p3, 0.33).add(d.perp().mul(uniform(a.rng, -0.4, 0.4)))
		p2 := lerp(p0, p3, 0.66).add(d.perp().mul(uniform(a.rng, -0.4, 0.4)))
		w := a.u * uniform(a.rng, 1, 5)
		polys = append(polys, stroke(cubic(p0, p1, p2, p3, 20), func(t float64) float64 { return w * math.Sin(math.Pi*(0.1+0.8*t)) }))
	}
	a.fill(0, polys...)
}

// drawPanel draws the art of p onto page: a background, a figure or two, and strokes, then
// the frame.
func drawPanel(rng *rand.Rand, page *image.Gray, p *panel, u float64) {
	if p.Box.Empty() {
		return
	}
	c := image.NewGray(p.Box)
	for i := range c.Pix {
		c.Pix[i] = 255
	}
	a := &artist{rng: rng, c: c, u: u, box: p.Box}
	whole := rasterize(c.Rect, a.rect())
	switch k := rng.Float64(); {
	case k < 0.18:
		// Plain white background.
	case k < 0.36:
		a.applyTone(a.randomTone(), whole)
		p.Busy = true
	case k < 0.46:
		a.speedLines(uniform(rng, -0.4, 0.4) + pick(rng, []float64{0, math.Pi / 2, math.Pi / 4}))
		p.Busy = true
	case k < 0.56:
		a.focusLines(a.at(uniform(rng, 0.3, 0.7), uniform(rng, 0.3, 0.7)), float64(min(p.Box.Dx(), p.Box.Dy()))*uniform(rng, 0.15, 0.35))
		p.Busy = true
	case k < 0.64:
		// Night: black fill with a tone gradient over the lower part.
		a.fill(0, a.rect())
		for range 20 + rng.IntN(40) {
			s := a.at(rng.Float64(), rng.Float64()*0.6)
			a.fill(255, ellipse(s, u*uniform(rng, 0.8, 2), u*uniform(rng, 0.8, 2), 0, 8))
		}
		p.Busy = true
	case k < 0.76:
		region := rasterize(c.Rect, []pt{a.at(0, uniform(rng, 0, 0.5)), a.at(1, uniform(rng, 0, 0.5)), a.at(1, 1), a.at(0, 1)})
		a.hatch(region, uniform(rng, 0, math.Pi), u*uniform(rng, 3.5, 9), u*uniform(rng, 0.6, 1.6), rng.Float64() < 0.6)
		p.Busy = true
	case k < 0.88:
		a.buildings()
		if rng.Float64() < 0.5 {
			a.applyTone(a.randomTone(), rasterize(c.Rect, []pt{a.at(0, 0), a.at(1, 0), a.at(1, 0.4), a.at(0, 0.4)}))
		}
	default:
		// Gradient tone over the whole panel.
		t := a.randomTone()
		t.Lo, t.Hi = 0, uniform(rng, 0.3, 0.7)
		t.From, t.To = a.at(rng.Float64(), 0), a.at(rng.Float64(), 1)
		a.applyTone(t, whole)
		p.Busy = true
	}
	if rng.Float64() < 0.3 {
		a.strokes(3 + rng.IntN(10))
	}
	if rng.Float64() < 0.75 {
		n := 1 + rng.IntN(2)
		for range n {
			r := float64(min(p.Box.Dx(), p.Box.Dy())) * uniform(rng, 0.12, 0.3)
			c := a.at(uniform(rng, 0.15, 0.85), uniform(rng, 0.25, 0.75))
			if rng.Float64() < 0.25 {
				// A close-up, cropped by the frame.
				r = float64(min(p.Box.Dx(), p.Box.Dy())) * uniform(rng, 0.35, 0.6)
				c = a.at(uniform(rng, 0.2, 0.8), uniform(rng, 0.4, 0.8))
				a.figure(c, r)
				break
			}
			a.figure(c, r)
		}
	}
	if rng.Float64() < 0.25 {
		// A black shadow shape in a corner.
		q := []pt{a.at(0, 1), a.at(uniform(rng, 0.2, 0.6), 1), a.at(0, uniform(rng, 0.4, 0.9))}
		if rng.Float64() < 0.5 {
			q = []pt{a.at(1, 1), a.at(uniform(rng, 0.4, 0.8), 1), a.at(1, uniform(rng, 0.4, 0.9))}
		}
		a.fill(0, q)
	}
	// Onto the page through the panel's shape, then the frame.
	shape := rasterize(page.Rect, p.Quad)
	blend(page, c, shape)
	bw := u * uniform(rng, 1.5, 4)
	p.Frame = bw
	paint(page, rasterize(page.Rect, ring(offset(p.Quad, bw/2), bw)...), nil, 0, 1)
}

// blend copies src over dst with coverage mask.
func blend(dst, src *image.Gray, mask *image.Alpha) {
	if mask == nil {
		return
	}
	r := mask.Rect.Intersect(src.Rect).Intersect(dst.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			m := int(mask.Pix[mask.PixOffset(x, y)])
			if m == 0 {
				continue
			}
			di := dst.PixOffset(x, y)
			s, d := int(src.Pix[src.PixOffset(x, y)]), int(dst.Pix[di])
			dst.Pix[di] = uint8(d + (s-d)*m/255)
		}
	}
}
