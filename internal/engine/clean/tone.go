package clean

import (
	"image"

	"github.com/vtsproject/vts/internal/engine/page"
)

// Lettering set on screentone: rebuilding it by averaging its surroundings smears the dots into
// grey blotches shaped like the erased glyphs, which read as ghosts. A tone is periodic, so each
// erased pixel takes the pixel one or more periods away that the mask does not cover, and the
// dots continue through where the text was.

// tonePeriod looks around the mask m, within box, for the lattice step of a screentone: the
// shortest offset at which the pixels repeat far more closely than their neighbours do. ok is
// false when the background does not repeat (flat paper, art), which Fill rebuilds better.
func tonePeriod(gray *image.Gray, m *page.Mask, box image.Rectangle) (image.Point, bool) {
	const maxPeriod = 14
	var samples []image.Point
	step := max(1, box.Dx()*box.Dy()/3000)
	i := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if i++; i%step != 0 || m.Has(x, y) {
				continue
			}
			samples = append(samples, image.Pt(x, y))
		}
	}
	if len(samples) < 200 {
		return image.Point{}, false
	}
	diff := func(d image.Point) (float64, bool) {
		sum, n := 0, 0
		for _, p := range samples {
			q := p.Add(d)
			if !q.In(box) || m.Has(q.X, q.Y) {
				continue
			}
			v := int(gray.GrayAt(p.X, p.Y).Y) - int(gray.GrayAt(q.X, q.Y).Y)
			sum += max(v, -v)
			n++
		}
		if n < len(samples)/3 {
			return 0, false
		}
		return float64(sum) / float64(n), true
	}
	// How much neighbouring pixels differ: large on a tone (dot against paper), small on flat
	// paper and smooth art.
	near := 0.0
	for _, d := range []image.Point{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
		v, _ := diff(d)
		near = max(near, v)
	}
	if near < 12 {
		return image.Point{}, false // flat paper, smooth art: no dots to repeat
	}
	best, bestDiff := image.Point{}, near
	for dy := 0; dy <= maxPeriod; dy++ {
		for dx := -maxPeriod; dx <= maxPeriod; dx++ {
			if dy == 0 && dx <= 0 || dx*dx+dy*dy < 4 {
				continue
			}
			if v, ok := diff(image.Pt(dx, dy)); ok && v < bestDiff*0.999 {
				best, bestDiff = image.Pt(dx, dy), v
			}
		}
	}
	if best == (image.Point{}) || bestDiff > near*0.4 {
		return image.Point{}, false
	}
	return best, true
}

// copyTone fills every pixel of m inside region from the nearest pixel along ±period (a whole
// number of periods away, within box) that m does not cover and from allows; it returns false,
// changing nothing, when some pixel has none.
func copyTone(img *image.RGBA, m *page.Mask, region image.Rectangle, period image.Point, box image.Rectangle, from func(x, y int) bool) bool {
	type fill struct{ dst, src image.Point }
	var fills []fill
	region = region.Intersect(m.Box)
	for y := region.Min.Y; y < region.Max.Y; y++ {
		for x := region.Min.X; x < region.Max.X; x++ {
			if !m.Has(x, y) {
				continue
			}
			p := image.Pt(x, y)
			found := false
			for k := 1; k < 400 && !found; k++ {
				for _, q := range []image.Point{p.Add(period.Mul(k)), p.Sub(period.Mul(k))} {
					if q.In(box) && !m.Has(q.X, q.Y) && from(q.X, q.Y) {
						fills = append(fills, fill{p, q})
						found = true
						break
					}
				}
				if q1, q2 := p.Add(period.Mul(k)), p.Sub(period.Mul(k)); !q1.In(box) && !q2.In(box) {
					break
				}
			}
			if !found {
				return false
			}
		}
	}
	for _, f := range fills {
		img.SetRGBA(f.dst.X, f.dst.Y, img.RGBAAt(f.src.X, f.src.Y))
	}
	return true
}
