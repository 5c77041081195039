package mangapage

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// finish sorts the lettering into reading order, degrades the page and encodes it.
func (g *generator) finish(seed int64) (Page, error) {
	rng := g.rng
	// Reading order: panel by panel (right to left in a row for Japanese), then top to
	// bottom and right to left inside a panel.
	rtl := g.lang == "ja"
	slices.SortStableFunc(g.items, func(a, b *item) int {
		pa, pb := g.panelOrder(a.Panel, rtl), g.panelOrder(b.Panel, rtl)
		if pa != pb {
			return pa - pb
		}
		ka, kb := readKey(a, rtl), readKey(b, rtl)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})

	d := degradation{Format: g.opt.Format, Ink: 0, Paper: [3]float64{255, 255, 255}, Gray: g.tint == nil}
	scale := float64(g.w) / float64(g.rw)
	m := affine{A: scale, E: scale}
	if !g.opt.Pristine {
		if rng.Float64() < 0.6 {
			d.Angle = uniform(rng, -2, 2)
			m = rotation(pt{float64(g.w) / 2, float64(g.h) / 2}, d.Angle*math.Pi/180)
			m = affine{A: m.A * scale, B: m.B * scale, C: m.C, D: m.D * scale, E: m.E * scale, F: m.F}
		}
		if rng.Float64() < 0.6 {
			// A shrunk or small page is soft already.
			most := 1.1
			if g.rw != g.w || g.w < 1000 {
				most = 0.6
			}
			d.Blur = uniform(rng, 0.3, most)
		}
		d.Noise = uniform(rng, 0, 7)
		d.Ink = uniform(rng, 0, 45)
		if g.tint == nil && rng.Float64() < 0.35 {
			// A colour scan of yellowed paper.
			d.Gray = false
			p := uniform(rng, 228, 252)
			d.Paper = [3]float64{p + 3, p - uniform(rng, 2, 10), p - uniform(rng, 12, 35)}
		} else {
			p := uniform(rng, 232, 255)
			d.Paper = [3]float64{p, p, p}
		}
		d.Dust = rng.IntN(30)
		d.Quality = 55 + rng.IntN(38)
		if d.Format == "" {
			d.Format = "png"
			if rng.Float64() < 0.55 {
				d.Format = "jpeg"
			}
		}
	}
	if g.opt.Harsh {
		d.harshen(rng)
	}
	if d.Format == "" {
		d.Format = "png"
	}
	// The plate is degraded by the same draws of the random source as the page: the same
	// noise, dust and paper.
	var replay []byte
	if g.opt.Plate {
		var err error
		if replay, err = g.src.MarshalBinary(); err != nil {
			return Page{}, fmt.Errorf("mangapage: saving the random state: %w", err)
		}
	}
	img, enc, err := d.encode(d.apply(rng, g.page, g.tint, m, g.w, g.h))
	if err != nil {
		return Page{}, err
	}
	page := Page{Seed: seed, Image: img, Encoded: enc, Format: d.Format, Lang: g.lang}
	if g.opt.Plate {
		src := &rand.PCG{}
		if err := src.UnmarshalBinary(replay); err != nil {
			return Page{}, fmt.Errorf("mangapage: replaying the random state: %w", err)
		}
		if page.Plate, _, err = d.encode(d.apply(rand.New(src), g.plate(), g.tint, m, g.w, g.h)); err != nil {
			return Page{}, err
		}
	}
	out := image.Rect(0, 0, g.w, g.h)
	for _, it := range g.items {
		ink := transformAlpha(it.Mask, m, out)
		b := Bubble{Kind: it.Kind, Lang: g.lang, Vertical: it.Vertical, Text: it.Text, Translation: it.D.English, Ink: ink, Box: inkBounds(ink), Hard: it.Hard}
		if it.Balloon != nil {
			b.Balloon = it.Balloon.pageBox(m, out)
		}
		if b.Box.Empty() {
			continue
		}
		if ink != nil {
			ink = trimmedTo(ink, b.Box.Inset(-2).Intersect(out))
			b.Ink = ink
		}
		page.Bubbles = append(page.Bubbles, b)
	}
	page.Notes = strings.Join(append(g.notes, d.String()), ", ")
	return page, nil
}

func (g *generator) panelOrder(i int, rtl bool) int {
	if !rtl || i >= len(g.panels) {
		return i
	}
	// Panels were made row by row, left to right; a row's panels share their top.
	row := func(j int) int { return g.panels[j].Box.Min.Y / max(1, g.rh/40) }
	first, last := i, i
	for first > 0 && abs(row(first-1)-row(i)) <= 1 {
		first--
	}
	for last < len(g.panels)-1 && abs(row(last+1)-row(i)) <= 1 {
		last++
	}
	return first + last - i
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func readKey(it *item, rtl bool) float64 {
	r := it.Mask.Rect
	x := float64(r.Min.X+r.Max.X) / 2
	if rtl {
		x = -x
	}
	return float64(r.Min.Y) + 0.3*x
}

// trimmedTo copies the part of a inside r.
func trimmedTo(a *image.Alpha, r image.Rectangle) *image.Alpha {
	r = r.Intersect(a.Rect)
	out := image.NewAlpha(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		copy(out.Pix[out.PixOffset(r.Min.X, y):out.PixOffset(r.Max.X, y)], a.Pix[a.PixOffset(r.Min.X, y):a.PixOffset(r.Max.X, y)])
	}
	return out
}

// encode encodes img as d says, and gives back what a reader decodes of it.
func (d degradation) encode(img image.Image) (image.Image, []byte, error) {
	var buf bytes.Buffer
	switch d.Format {
	case "png":
		if err := png.Encode(&buf, img); err != nil {
			return nil, nil, fmt.Errorf("mangapage: encoding png: %w", err)
		}
		return img, buf.Bytes(), nil
	case "jpeg":
		q := d.Quality
		if q == 0 {
			q = 92
		}
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
			return nil, nil, fmt.Errorf("mangapage: encoding jpeg: %w", err)
		}
		dec, err := jpeg.Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			return nil, nil, fmt.Errorf("mangapage: decoding own jpeg: %w", err)
		}
		return dec, buf.Bytes(), nil
	}
	return nil, nil, errors.New("mangapage: format must be png or jpeg")
}
