package clean

import (
	"cmp"
	"image"
	"image/color"
	"math"
	"slices"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// Lettering set on screentone: rebuilding it by averaging its surroundings smears the dots into
// grey blotches shaped like the erased glyphs, which read as ghosts. A tone is periodic, so each
// erased pixel takes the tone one or more periods away where the mask does not cover it, and the
// dots continue through where the text was. The lattice is measured to a few hundredths of a
// pixel (raster.MeasureLattice) and the tone copied from between pixels: copied from the nearest
// whole-pixel offset, the dots drift out of step with the tone around them and the patch shows.

// copyTone fills every pixel of m inside region from the tone the nearest step of l away (a
// whole number of periods, within box) where m does not cover it and from allows, sampled
// between pixels; it returns false, changing nothing, when some pixel has none.
func copyTone(img *image.RGBA, m *page.Mask, region image.Rectangle, l raster.Lattice, box image.Rectangle, from func(x, y int) bool) bool {
	type fill struct {
		dst image.Point
		c   color.RGBA
	}
	var fills []fill
	region = region.Intersect(m.Box)
	usable := func(x, y int) bool { return image.Pt(x, y).In(box) && !m.Has(x, y) && from(x, y) }
	steps := l.Steps(float64(max(box.Dx(), box.Dy())))
	if len(steps) == 0 {
		return false
	}
	period := steps[0].Length
	// No step shorter than the way out of the mask leads out of it: deep in a large mask the
	// search starts at the steps as long as that.
	away := distanceTo(box, usable)
	free := func(x, y int) bool { return image.Pt(x, y).In(box) && away[(y-box.Min.Y)*box.Dx()+x-box.Min.X] == 0 }
	for y := region.Min.Y; y < region.Max.Y; y++ {
		last := -1 // the step the pixel before took, which its neighbour can mostly take too
		for x := region.Min.X; x < region.Max.X; x++ {
			if !m.Has(x, y) {
				continue
			}
			way := math.Inf(1)
			if image.Pt(x, y).In(box) {
				way = away[(y-box.Min.Y)*box.Dx()+x-box.Min.X]
			}
			if last >= 0 && steps[last].Length <= way*1.1+period {
				if c, ok := sampleRGBA(img, float64(x)+steps[last].D[0], float64(y)+steps[last].D[1], 0, free); ok {
					fills = append(fills, fill{image.Pt(x, y), c})
					continue
				}
			}
			// The nearest step clear of the mask for the sharpest interpolation, or failing
			// that, a little further on, the nearest for any.
			var fallback *color.RGBA
			limit := math.Inf(1)
			first, _ := slices.BinarySearchFunc(steps, way/1.083-1, func(s raster.Step, l float64) int { return cmp.Compare(s.Length, l) })
			last = -1
			for i, st := range steps[first:] {
				if length := st.Length; length > limit {
					break
				} else if qx, qy := float64(x)+st.D[0], float64(y)+st.D[1]; free(int(math.Round(qx)), int(math.Round(qy))) {
					if c, ok := sampleRGBA(img, qx, qy, 0, free); ok {
						fallback, last = &c, first+i
						break
					}
					for k := 1; k < len(interpolations) && fallback == nil; k++ {
						if c, ok := sampleRGBA(img, qx, qy, k, free); ok {
							fallback, limit = &c, length*1.5+2*period
						}
					}
				}
			}
			if fallback == nil {
				return false
			}
			fills = append(fills, fill{image.Pt(x, y), *fallback})
		}
	}
	for _, f := range fills {
		img.SetRGBA(f.dst.X, f.dst.Y, f.c)
	}
	return true
}

// distanceTo is, for every pixel of box (row by row), about how far it lies from the nearest
// pixel of box that is: a chamfer distance, never under the true one, and over it by 8 % at
// most.
func distanceTo(box image.Rectangle, is func(x, y int) bool) []float64 {
	w, h := box.Dx(), box.Dy()
	d := make([]float64, w*h)
	for i := range d {
		if is(box.Min.X+i%w, box.Min.Y+i/w) {
			d[i] = 0
		} else {
			d[i] = math.Inf(1)
		}
	}
	const orth, diag = 1, math.Sqrt2
	relax := func(i, x, y, dx, dy int, step float64) {
		if x+dx >= 0 && x+dx < w && y+dy >= 0 && y+dy < h {
			d[i] = min(d[i], d[(y+dy)*w+x+dx]+step)
		}
	}
	for y := range h {
		for x := range w {
			i := y*w + x
			relax(i, x, y, -1, 0, orth)
			relax(i, x, y, 0, -1, orth)
			relax(i, x, y, -1, -1, diag)
			relax(i, x, y, 1, -1, diag)
		}
	}
	for y := h - 1; y >= 0; y-- {
		for x := w - 1; x >= 0; x-- {
			i := y*w + x
			relax(i, x, y, 1, 0, orth)
			relax(i, x, y, 0, 1, orth)
			relax(i, x, y, 1, 1, diag)
			relax(i, x, y, -1, 1, diag)
		}
	}
	return d
}

// An erased pixel takes the tone from between pixels by Catmull-Rom over the sixteen around the
// point (bilinear would blur a fine tone's dots), or where the mask or the balloon's edge leaves
// too few of them, bilinear over four, or the nearest pixel.
var interpolations = []struct {
	from    int // the first of the pixels around, relative to the one at or before the point
	taps    int // how many pixels each way
	weights func(t float64) [4]float64
}{
	{-1, 4, func(t float64) [4]float64 {
		t2, t3 := t*t, t*t*t
		return [4]float64{(-t3 + 2*t2 - t) / 2, (3*t3 - 5*t2 + 2) / 2, (-3*t3 + 4*t2 + t) / 2, (t3 - t2) / 2}
	}},
	{0, 2, func(t float64) [4]float64 { return [4]float64{1 - t, t} }},
	{0, 2, func(t float64) [4]float64 {
		if t < 0.5 {
			return [4]float64{1}
		}
		return [4]float64{0, 1}
	}},
}

// sampleRGBA is img at (x, y) in pixel coordinates by the k-th of interpolations, if usable
// allows every pixel it reads.
func sampleRGBA(img *image.RGBA, x, y float64, k int, usable func(x, y int) bool) (color.RGBA, bool) {
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	in := interpolations[k]
	wx, wy := in.weights(x-float64(x0)), in.weights(y-float64(y0))
	x0, y0 = x0+in.from, y0+in.from
	for j := range in.taps {
		for i := range in.taps {
			if wy[j] != 0 && wx[i] != 0 && !usable(x0+i, y0+j) {
				return color.RGBA{}, false
			}
		}
	}
	var sum [4]float64
	for j := range in.taps {
		for i := range in.taps {
			if w := wy[j] * wx[i]; w != 0 {
				p := img.Pix[img.PixOffset(x0+i, y0+j):]
				for c := range 4 {
					sum[c] += w * float64(p[c])
				}
			}
		}
	}
	var out [4]uint8
	for c, v := range sum {
		out[c] = uint8(math.Round(min(max(v, 0), 255)))
	}
	return color.RGBA{out[0], out[1], out[2], out[3]}, true
}
