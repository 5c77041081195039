package mangapage

import (
	"image"
	"math"
	"math/rand/v2"
)

// Options.Harsh draws pages as published scans leave them, where erasing is hardest: JPEG at
// quality 60–80 (ringing around every stroke), glyph edges softened into grey, paper with a
// tint and a blotchy texture, and a light screentone inside some balloons. Every draw it makes
// from the page's random source happens only when Harsh is set, so the default corpus keeps its
// bytes.

// toneBalloon lays a light, even screentone over a balloon's interior, before its lettering is
// drawn: the tone a letterer must keep, or match, around the erased glyphs.
func (g *generator) toneBalloon(b *balloon) {
	a := &artist{rng: g.rng, c: g.page, u: g.u}
	t := tone{
		Pitch: math.Max(2.2, g.u*uniform(g.rng, 3.2, 5)),
		Angle: 45 * math.Pi / 180,
		Lo:    uniform(g.rng, 0.06, 0.16),
	}
	t.Hi = t.Lo
	var region *image.Alpha
	for _, p := range append([][]pt{b.Body}, b.Tails...) {
		m := rasterize(g.page.Rect, p)
		if m == nil {
			continue
		}
		if region == nil {
			region = m
			continue
		}
		over(region, m)
	}
	a.applyTone(t, region)
}

// harshen makes d what a scan shared as JPEG is: lossy compression, softened strokes, and
// tinted, textured paper.
func (d *degradation) harshen(rng *rand.Rand) {
	d.Format = "jpeg"
	d.Quality = 60 + rng.IntN(21)
	d.Blur = math.Max(d.Blur, uniform(rng, 0.6, 1.1))
	d.Ink = uniform(rng, 10, 50)
	d.Gray = false
	p := uniform(rng, 225, 248)
	d.Paper = [3]float64{p + 3, p - uniform(rng, 2, 8), p - uniform(rng, 8, 28)}
	d.Texture = uniform(rng, 4, 9)
}

// paperTexture is a smooth random field of about ±amp grey levels, varying over a few dozen
// pixels as the fibres and uneven printing of paper do, plus a fine grain.
func paperTexture(rng *rand.Rand, w, h int, amp float64) []float64 {
	const cell = 24
	gw, gh := w/cell+2, h/cell+2
	grid := make([]float64, gw*gh)
	for i := range grid {
		grid[i] = rng.NormFloat64() * amp
	}
	out := make([]float64, w*h)
	for y := range h {
		fy := float64(y) / cell
		y0 := int(fy)
		ty := fy - float64(y0)
		for x := range w {
			fx := float64(x) / cell
			x0 := int(fx)
			tx := fx - float64(x0)
			v := (grid[y0*gw+x0]*(1-tx)+grid[y0*gw+x0+1]*tx)*(1-ty) + (grid[(y0+1)*gw+x0]*(1-tx)+grid[(y0+1)*gw+x0+1]*tx)*ty
			out[y*w+x] = v + rng.NormFloat64()*amp*0.3
		}
	}
	return out
}
