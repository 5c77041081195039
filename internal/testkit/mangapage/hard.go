package mangapage

import (
	"errors"
	"image"
	"math"
)

// The kinds of lettering engines miss on published pages, which Options.Hard adds to a page,
// each annotated with its kind in Bubble.Hard.
const (
	// HardShort is a shout of one to four characters (and its punctuation), in a small or a
	// large balloon, often spiky.
	HardShort = "short"
	// HardOpen is a balloon whose outline is interrupted: open on one side, or cut by its
	// panel's frame so that the frame closes it.
	HardOpen = "open"
	// HardOnArt is free text over screentone or hatching, with or without a white halo.
	HardOnArt = "on-art"
	// HardSquare is a block of two or more columns about as wide as tall, whose direction the
	// block's shape does not tell.
	HardSquare = "square"
)

// HardKinds lists the hard kinds in the order reports show them.
var HardKinds = []string{HardShort, HardOpen, HardOnArt, HardSquare}

// shoutsJA are short shouts and replies: one to four letters and their punctuation.
var shoutsJA = []dialogue{
	{"まかせて！", "Leave it to me!"},
	{"キャー！", "Eek!"},
	{"別に。", "Not really."},
	{"ね？", "Right?"},
	{"え！？", "Huh!?"},
	{"待て！", "Wait!"},
	{"はい！", "Yes!"},
	{"うん。", "Yeah."},
	{"なに！？", "What!?"},
	{"やだ！", "No way!"},
	{"嘘…", "No..."},
	{"おい！", "Hey!"},
	{"行け！", "Go!"},
	{"よし！", "All right!"},
	{"ほら。", "Here."},
	{"逃げろ！", "Run!"},
}

// letterHard places the hard kinds of lettering, before the page's ordinary dialogue so that
// each finds room: shouts, open balloons, text on the art and square blocks.
func (g *generator) letterHard(next func() dialogue) error {
	if g.lang != "ja" {
		return errors.New("mangapage: hard pages are drawn in Japanese only")
	}
	rng := g.rng
	plan := []string{HardShort, HardOpen, HardOnArt, HardSquare, HardShort}
	for _, k := range HardKinds {
		if rng.Float64() < 0.5 {
			plan = append(plan, k)
		}
	}
	for _, k := range plan {
		var it *item
		var err error
		switch k {
		case HardShort:
			it, err = g.placeShout()
		case HardOpen:
			if rng.Float64() < 0.5 {
				it, err = g.placeCut(next())
			} else {
				it, err = g.placeGapped(next())
			}
		case HardOnArt:
			it, err = g.placeOnArt(next())
		case HardSquare:
			it, err = g.placeSquare(next)
		}
		if err != nil {
			return err
		}
		if it != nil {
			it.Hard = k
			g.items = append(g.items, it)
		}
	}
	return nil
}

// placeShout places a short shout at the dialogue's size or larger, in a spiky balloon half
// the time.
func (g *generator) placeShout() (*item, error) {
	rng := g.rng
	d := pick(rng, shoutsJA)
	style := pick(rng, []balloonStyle{styleSpiky, styleSpiky, styleEllipse, styleRound})
	size := g.s * uniform(rng, 0.9, 1.15)
	if rng.Float64() < 0.5 {
		size = g.s * uniform(rng, 1.4, 2.2)
	}
	fnt := g.face
	if style == styleSpiky {
		fnt = g.bold
	}
	return g.place(KindBubble, style, size, nil, func(size float64) (*item, error) {
		return g.layout(KindBubble, d, fnt, size, style)
	})
}

// placeGapped places a tailless balloon and leaves a fifth to a third of its outline out.
func (g *generator) placeGapped(d dialogue) (*item, error) {
	rng := g.rng
	style := pick(rng, []balloonStyle{styleEllipse, styleRound})
	it, err := g.place(KindBubble, style, g.s*uniform(rng, 0.92, 1.08), nil, func(size float64) (*item, error) {
		return g.layout(KindBubble, d, g.face, size, style)
	})
	if it == nil || err != nil {
		return nil, err
	}
	b := it.Balloon
	b.Tails, b.TailOut = nil, nil
	r := bounds(b.Body)
	c := pt{float64(r.Min.X+r.Max.X) / 2, float64(r.Min.Y+r.Max.Y) / 2}
	far := float64(r.Dx() + r.Dy())
	ang, span := uniform(rng, 0, 2*math.Pi), uniform(rng, 1.3, 2)
	b.Gap = []pt{c, c.add(polar(far, ang-span/2)), c.add(polar(far, ang)), c.add(polar(far, ang+span/2))}
	return it, nil
}

// placeCut places a tailless balloon across a side of a panel that faces the page's margin,
// with a fifth or more of it beyond the frame, and draws only the part inside the frame.
func (g *generator) placeCut(d dialogue) (*item, error) {
	rng := g.rng
	style := pick(rng, []balloonStyle{styleEllipse, styleRound})
	size := g.s * uniform(rng, 0.92, 1.08)
	for range 3 {
		it, err := g.layout(KindBubble, d, g.face, size, style)
		if err != nil {
			return nil, err
		}
		tb := it.Mask.Rect
		w, h := float64(tb.Dx()), float64(tb.Dy())
		b := makeBalloon(rng, style, w, h, size, g.u)
		b.Tails, b.TailOut = nil, nil
		ob := bounds(b.outer())
		for range 60 {
			pi := rng.IntN(len(g.panels))
			p := g.panels[pi]
			pb := p.Box
			var sides []int // 0 left, 1 top, 2 right, 3 bottom
			for side, faces := range []bool{pb.Min.X <= g.rw/10, pb.Min.Y <= g.rh/10, pb.Max.X >= g.rw-g.rw/10, pb.Max.Y >= g.rh-g.rh/10} {
				if faces {
					sides = append(sides, side)
				}
			}
			if len(sides) == 0 {
				continue
			}
			side := pick(rng, sides)
			// half is the balloon's reach across the side, text the text's.
			half, text := float64(ob.Max.X), w/2
			if side%2 == 1 {
				half, text = float64(ob.Max.Y), h/2
			}
			least := text + 0.4*size + p.Frame
			if least > 0.8*half {
				continue
			}
			in := uniform(rng, least, 0.8*half)
			var c pt
			switch side {
			case 0:
				c = pt{float64(pb.Min.X) + in, uniform(rng, float64(pb.Min.Y), float64(pb.Max.Y))}
			case 1:
				c = pt{uniform(rng, float64(pb.Min.X), float64(pb.Max.X)), float64(pb.Min.Y) + in}
			case 2:
				c = pt{float64(pb.Max.X) - in, uniform(rng, float64(pb.Min.Y), float64(pb.Max.Y))}
			default:
				c = pt{uniform(rng, float64(pb.Min.X), float64(pb.Max.X)), float64(pb.Max.Y) - in}
			}
			c = pt{math.Round(c.X), math.Round(c.Y)}
			placed := b.translate(c)
			placed.Clip = offset(p.Quad, -p.Frame/2)
			occupied := placed.box().Intersect(bounds(placed.Clip))
			off := image.Pt(int(c.X-w/2)-tb.Min.X, int(c.Y-h/2)-tb.Min.Y)
			if !tb.Add(off).Inset(-int(size/4)).In(bounds(placed.Clip).Inset(int(p.Frame))) || !g.fits(occupied, int(size/2)) {
				continue
			}
			it.Mask = moved(it.Mask, off)
			it.Balloon = &placed
			it.Panel = pi
			g.taken = append(g.taken, occupied)
			return it, nil
		}
		size *= 0.85
	}
	return nil, nil
}

// placeOnArt places free text and lays screentone or hatching under it, with a white halo
// around the glyphs half the time.
func (g *generator) placeOnArt(d dialogue) (*item, error) {
	rng := g.rng
	it, err := g.place(KindFree, styleEllipse, g.s*uniform(rng, 0.8, 1.0), nil, func(size float64) (*item, error) {
		return g.layout(KindFree, d, g.face, size, styleEllipse)
	})
	if it == nil || err != nil {
		return nil, err
	}
	r := it.Mask.Rect
	c := pt{float64(r.Min.X+r.Max.X) / 2, float64(r.Min.Y+r.Max.Y) / 2}
	grow := g.s * uniform(rng, 0.8, 2)
	region := rasterize(g.page.Rect, ellipse(c, float64(r.Dx())/2*math.Sqrt2+grow, float64(r.Dy())/2*math.Sqrt2+grow, 0, 48))
	if region == nil {
		return nil, nil
	}
	mul(region, rasterize(g.page.Rect, g.panels[it.Panel].Quad))
	// The art under the text replaces what the panel had there, so that its density is known.
	paint(g.page, region, nil, 255, 1)
	a := &artist{rng: rng, c: g.page, u: g.u, box: region.Rect}
	if rng.Float64() < 0.6 {
		t := a.randomTone()
		t.Lo, t.Hi = uniform(rng, 0.15, 0.4), uniform(rng, 0.15, 0.4)
		a.applyTone(t, region)
	} else {
		a.hatch(region, uniform(rng, 0, math.Pi), g.u*uniform(rng, 3, 6), g.u*uniform(rng, 0.6, 1.4), rng.Float64() < 0.5)
	}
	it.Halo = 0
	if rng.Float64() < 0.5 {
		it.Halo = g.s * uniform(rng, 0.12, 0.25)
	}
	return it, nil
}

// placeSquare places a line of the table set in columns so that the block is about as wide as
// it is tall.
func (g *generator) placeSquare(next func() dialogue) (*item, error) {
	rng := g.rng
	for range 6 {
		d := next()
		if len(parseJA(d.Source).Glyphs) < 7 {
			continue
		}
		style := pick(rng, []balloonStyle{styleEllipse, styleRound})
		it, err := g.place(KindBubble, style, g.s*uniform(rng, 0.92, 1.08), nil, func(size float64) (*item, error) {
			return g.layoutSquare(d, size)
		})
		if it != nil || err != nil {
			return it, err
		}
	}
	return nil, nil
}

// layoutSquare sets d in two or more columns of the length that makes the block squarest; nil
// when no length gives a block within a quarter of square.
func (g *generator) layoutSquare(d dialogue, size float64) (*item, error) {
	face, err := newFace(g.face, size)
	if err != nil {
		return nil, err
	}
	defer face.Close()
	s := parseJA(d.Source)
	var best *image.Alpha
	bestOff := math.Inf(1)
	for maxLen := 2; maxLen <= len(s.Glyphs); maxLen++ {
		cols := columns(s, maxLen, false)
		if len(cols) < 2 || len(cols) > 5 {
			continue
		}
		m, err := g.setColumns(s, cols, g.face, face, size)
		if err != nil {
			return nil, err
		}
		m = trim(m, 1)
		if off := math.Abs(math.Log(float64(m.Rect.Dx()) / float64(m.Rect.Dy()))); off < bestOff {
			best, bestOff = m, off
		}
	}
	if best == nil || bestOff > math.Log(squareAspect) {
		return nil, nil
	}
	return &item{Kind: KindBubble, D: d, Text: s.text(), Vertical: true, Mask: moved(best, best.Rect.Min.Mul(-1))}, nil
}

// squareAspect is the most a square block's width and height may differ by, as a ratio.
const squareAspect = 1.25
