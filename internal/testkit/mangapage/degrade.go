package mangapage

import (
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"strings"
)

// degradation is what scanning, re-encoding and sharing do to a page.
type degradation struct {
	Angle   float64    // rotation in degrees
	Blur    float64    // Gaussian sigma in pixels
	Noise   float64    // Gaussian noise sigma in grey levels
	Ink     float64    // grey level of black ink
	Paper   [3]float64 // paper colour
	Gray    bool       // a greyscale image rather than RGB
	Dust    int        // specks of scanner dust
	Format  string
	Quality int // JPEG quality
	// Texture is the amplitude, in grey levels, of the paper's blotches (Options.Harsh).
	Texture float64
}

func (d degradation) String() string {
	var parts []string
	if d.Angle != 0 {
		parts = append(parts, fmt.Sprintf("rotated %.1f°", d.Angle))
	}
	if d.Blur > 0 {
		parts = append(parts, fmt.Sprintf("blur %.1f", d.Blur))
	}
	if d.Noise > 0.5 {
		parts = append(parts, fmt.Sprintf("noise %.1f", d.Noise))
	}
	if d.Gray {
		parts = append(parts, "grey")
	} else {
		parts = append(parts, fmt.Sprintf("rgb paper %.0f,%.0f,%.0f", d.Paper[0], d.Paper[1], d.Paper[2]))
	}
	if d.Texture > 0 {
		parts = append(parts, fmt.Sprintf("paper texture %.0f", d.Texture))
	}
	if d.Format == "jpeg" {
		parts = append(parts, fmt.Sprintf("jpeg q%d", d.Quality))
	} else {
		parts = append(parts, d.Format)
	}
	return strings.Join(parts, ", ")
}

// apply maps the drawing through m (drawing to output pixels) onto a w×h page and degrades it.
func (d degradation) apply(rng *rand.Rand, src *image.Gray, tint *image.RGBA, m affine, w, h int) image.Image {
	g := resample(src, m, w, h)
	if d.Blur > 0 {
		gaussian(g, d.Blur)
	}
	for range d.Dust {
		c := pt{uniform(rng, 0, float64(w)), uniform(rng, 0, float64(h))}
		r := uniform(rng, 0.5, 2) * float64(w) / 1000
		var poly []pt
		if rng.Float64() < 0.3 {
			poly = segment(c, c.add(polar(r*uniform(rng, 4, 15), uniform(rng, 0, math.Pi))), r*0.6, r*0.6)
		} else {
			poly = ellipse(c, r, r*uniform(rng, 0.5, 1), uniform(rng, 0, math.Pi), 8)
		}
		paint(g, rasterize(g.Rect, poly), nil, uint8(uniform(rng, 0, 120)), 1)
	}
	var t *image.RGBA
	if tint != nil {
		t = image.NewRGBA(image.Rect(0, 0, w, h))
		inv := m.invert()
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				s := inv.apply(pt{float64(x) + 0.5, float64(y) + 0.5})
				sx, sy := int(s.X), int(s.Y)
				si := t.PixOffset(x, y)
				if (image.Point{sx, sy}).In(tint.Rect) {
					copy(t.Pix[si:si+4], tint.Pix[tint.PixOffset(sx, sy):])
				} else {
					t.Pix[si], t.Pix[si+1], t.Pix[si+2], t.Pix[si+3] = 255, 255, 255, 255
				}
			}
		}
	}
	var texture []float64
	if d.Texture > 0 {
		texture = paperTexture(rng, w, h, d.Texture)
	}
	paperAt := func(i, k int) float64 {
		p := d.Paper[k]
		if texture != nil {
			p += texture[i]
		}
		return p
	}
	if d.Gray {
		out := image.NewGray(g.Rect)
		for i, v := range g.Pix {
			f := d.Ink + (paperAt(i, 0)-d.Ink)*float64(v)/255 + rng.NormFloat64()*d.Noise
			out.Pix[i] = uint8(clampf(math.Round(f), 0, 255))
		}
		return out
	}
	out := image.NewRGBA(g.Rect)
	for i, v := range g.Pix {
		n := rng.NormFloat64() * d.Noise
		for k := range 3 {
			paper := paperAt(i, k)
			if t != nil {
				paper *= float64(t.Pix[i*4+k]) / 255
			}
			f := d.Ink + (paper-d.Ink)*float64(v)/255 + n + rng.NormFloat64()*d.Noise*0.3
			out.Pix[i*4+k] = uint8(clampf(math.Round(f), 0, 255))
		}
		out.Pix[i*4+3] = 255
	}
	return out
}

// resample maps src through m onto a w×h page, bilinearly, with white outside the drawing.
func resample(src *image.Gray, m affine, w, h int) *image.Gray {
	out := image.NewGray(image.Rect(0, 0, w, h))
	if m == (affine{A: 1, E: 1}) && src.Rect == out.Rect {
		copy(out.Pix, src.Pix)
		return out
	}
	inv := m.invert()
	get := func(x, y int) float64 {
		if x < 0 || y < 0 || x >= src.Rect.Max.X || y >= src.Rect.Max.Y {
			return 255
		}
		return float64(src.Pix[y*src.Stride+x])
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			s := inv.apply(pt{float64(x) + 0.5, float64(y) + 0.5})
			fx, fy := s.X-0.5, s.Y-0.5
			x0, y0 := int(math.Floor(fx)), int(math.Floor(fy))
			tx, ty := fx-float64(x0), fy-float64(y0)
			v := (get(x0, y0)*(1-tx)+get(x0+1, y0)*tx)*(1-ty) + (get(x0, y0+1)*(1-tx)+get(x0+1, y0+1)*tx)*ty
			out.Pix[y*out.Stride+x] = uint8(v + 0.5)
		}
	}
	return out
}

// gaussian blurs g in place with a separable kernel.
func gaussian(g *image.Gray, sigma float64) {
	r := int(math.Ceil(sigma * 3))
	k := make([]float64, 2*r+1)
	sum := 0.0
	for i := range k {
		x := float64(i - r)
		k[i] = math.Exp(-x * x / (2 * sigma * sigma))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	w, h := g.Rect.Dx(), g.Rect.Dy()
	tmp := make([]float64, w*h)
	for y := 0; y < h; y++ {
		row := g.Pix[y*g.Stride:]
		for x := 0; x < w; x++ {
			s := 0.0
			for i, kv := range k {
				xx := min(max(x+i-r, 0), w-1)
				s += kv * float64(row[xx])
			}
			tmp[y*w+x] = s
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			s := 0.0
			for i, kv := range k {
				yy := min(max(y+i-r, 0), h-1)
				s += kv * tmp[yy*w+x]
			}
			g.Pix[y*g.Stride+x] = uint8(clampf(s+0.5, 0, 255))
		}
	}
}
