package clean

import (
	"cmp"
	"image"
	"image/color"
	"math"
	"slices"

	"github.com/vtsproject/vts/internal/engine/page"
)

// Lettering set on screentone: rebuilding it by averaging its surroundings smears the dots into
// grey blotches shaped like the erased glyphs, which read as ghosts. A tone is periodic, so each
// erased pixel takes the tone one or more periods away where the mask does not cover it, and the
// dots continue through where the text was.
//
// A printed tone's lattice is seldom a whole number of pixels: 45° dots of a 60-line screen
// scanned at 300 dpi repeat every 3.5 px along the diagonal. Copied from the nearest whole-pixel
// offset, the dots drift out of step with the tone around them and the patch shows; so the
// lattice is measured to a few hundredths of a pixel, over several periods, and the tone copied
// from between pixels.

// lattice is a tone's two shortest periods, in pixels: the tone repeats at every i·a + j·b. b is
// zero for a tone of lines, which repeats along a only (and along its lines, at any step).
type lattice struct{ a, b [2]float64 }

// maxPeriod is the longest period looked for: a coarse tone on a large scan.
const maxPeriod = 20

// toneLattice looks around the mask m, within box, for the lattice of a screentone: the
// offsets at which the pixels repeat far more closely than their neighbours do. ok is false when
// the background does not repeat (flat paper, art), which Fill rebuilds better.
func toneLattice(gray *image.Gray, m *page.Mask, box image.Rectangle) (lattice, bool) {
	// About 3,000 pixels are sampled, every step-th in row order. A step sharing a factor with the
	// box's width falls on the same few columns, and on a tone whose period shares it too, on
	// the same spot of every dot, where offsets that are no period look like one: the step is
	// taken prime to the width.
	var samples []image.Point
	step := max(1, box.Dx()*box.Dy()/3000)
	for gcd(step, box.Dx()) != 1 {
		step++
	}
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
		return lattice{}, false
	}
	unmasked := func(x, y int) bool { return image.Pt(x, y).In(box) && !m.Has(x, y) }
	// diffAt is how far the pixels of v at samples differ from those d away, on average
	// (bilinear between pixels); diff, over all the samples.
	diffAt := func(samples []image.Point, v func(x, y int) float64, d [2]float64) (float64, bool) {
		sum, n := 0.0, 0
		for _, p := range samples {
			w, ok := bilinear(v, float64(p.X)+d[0], float64(p.Y)+d[1], unmasked)
			if !ok {
				continue
			}
			sum += math.Abs(v(p.X, p.Y) - w)
			n++
		}
		if n < len(samples)/3 {
			return 0, false
		}
		return sum / float64(n), true
	}
	diff := func(v func(x, y int) float64, d [2]float64) (float64, bool) { return diffAt(samples, v, d) }
	// How much neighbouring pixels differ: large on a tone (dot against paper), small on flat
	// paper and smooth art.
	grey := func(x, y int) float64 { return float64(gray.Pix[gray.PixOffset(x, y)]) }
	if near := nearDiff(func(d [2]float64) (float64, bool) { return diff(grey, d) }); near < 12 {
		return lattice{}, false // flat paper, smooth art: no dots to repeat
	}
	// The periods are measured on the tone slightly smoothed: a copy taken between pixels is
	// itself smoothed, and on the sharp tone it would lose, to the copy a whole pixel off,
	// as much as it gains by being in step.
	smooth := smoothed(gray, box)
	soft := func(x, y int) float64 { return float64(smooth[(y-box.Min.Y)*box.Dx()+x-box.Min.X]) }
	at := func(d [2]float64) (float64, bool) { return diff(soft, d) }
	near := nearDiff(at)
	// The whole-pixel offsets first; the dips among them are the periods, rounded.
	const side = 2*maxPeriod + 1
	var grid [(maxPeriod + 1) * side]float64
	cell := func(dx, dy int) float64 {
		if dy < 0 || dy == 0 && dx <= 0 {
			dx, dy = -dx, -dy
		}
		if dy > maxPeriod || dx < -maxPeriod || dx > maxPeriod {
			return math.Inf(1)
		}
		return grid[dy*side+dx+maxPeriod]
	}
	for dy := 0; dy <= maxPeriod; dy++ {
		for dx := -maxPeriod; dx <= maxPeriod; dx++ {
			v, ok := at([2]float64{float64(dx), float64(dy)})
			if !ok || dy == 0 && dx <= 0 || dx*dx+dy*dy < 4 {
				v = math.Inf(1)
			}
			grid[dy*side+dx+maxPeriod] = v
		}
	}
	length := func(d [2]float64) float64 { return math.Hypot(d[0], d[1]) }
	type period struct {
		d     [2]float64
		diff  float64
		loose bool // a dip only by the coarse tone's measure (see typical)
	}
	// A coarse tone of small soft dots on a noisy scan (JPEG, grain, a textured paper): a
	// pixel's neighbour differs from it little, the dots being soft, and the noise keeps even
	// the tone's true periods from repeating that closely. Where two pixels of the page
	// differ far more at a typical offset than a pixel away, the periods are looked for
	// again, if none is found as above, judged against that typical difference, and only as
	// a lattice of two periods (with their sum and difference) at least four pixels long:
	// smooth art repeats at its shortest offsets, never at two such.
	var finite []float64
	for _, v := range grid {
		if !math.IsInf(v, 1) {
			finite = append(finite, v)
		}
	}
	slices.Sort(finite)
	typical := 0.0
	if len(finite) > 0 {
		typical = finite[len(finite)/2]
	}
	coarse := typical >= 2*near
	loose := func(p period) bool { return coarse && length(p.d) >= 4 && p.diff <= typical*0.4 }
	var dips []period
	for dy := 0; dy <= maxPeriod; dy++ {
		for dx := -maxPeriod; dx <= maxPeriod; dx++ {
			v := cell(dx, dy)
			d := [2]float64{float64(dx), float64(dy)}
			if math.IsInf(v, 1) || v > near*0.8 && !loose(period{d: d, diff: v}) {
				continue
			}
			dip := true
			for _, n := range [][2]int{{-1, -1}, {0, -1}, {1, -1}, {-1, 0}, {1, 0}, {-1, 1}, {0, 1}, {1, 1}} {
				dip = dip && v <= cell(dx+n[0], dy+n[1])
			}
			if dip && (dy > 0 || dx > 0) {
				dips = append(dips, period{d, v, v > near*0.8})
			}
		}
	}
	// Each dip refined, climbing down its slope by ever smaller steps from s, within a pixel of
	// where it was (and never down to no offset at all, where a page repeats itself exactly).
	refine := func(p period, s float64) period {
		start := p.d
		for ; s >= 1.0/32; s /= 2 {
			for moved := true; moved; {
				moved = false
				for _, n := range [][2]float64{{-s, 0}, {s, 0}, {0, -s}, {0, s}, {-s, -s}, {s, s}, {-s, s}, {s, -s}} {
					d := [2]float64{p.d[0] + n[0], p.d[1] + n[1]}
					if math.Abs(d[0]-start[0]) > 1 || math.Abs(d[1]-start[1]) > 1 || length(d) < 1.5 {
						continue
					}
					if v, ok := at(d); ok && v < p.diff*0.999 {
						p.d, p.diff, moved = d, v, true
					}
				}
			}
		}
		return p
	}
	// The closest whole-pixel repeats are near the lattice's shortest steps and their sums.
	slices.SortFunc(dips, func(p, q period) int { return cmp.Compare(p.diff, q.diff) })
	dips = dips[:min(len(dips), 12)]
	for k := range dips {
		dips[k] = refine(dips[k], 0.5)
	}
	// solve finds the lattice among the dips that good says are periods; lines allows a tone of
	// lines (one period alone).
	solve := func(dips []period, good func(p period) bool, lines bool) (lattice, bool) {
		// The tone repeats at its periods nearly as closely as a pixel repeats itself: no closer
		// than at a pixel's neighbour means art, not a tone.
		dips = slices.DeleteFunc(dips, func(p period) bool { return !good(p) })
		if len(dips) == 0 {
			return lattice{}, false
		}
		// The lattice is the pair of repeats whose sum and difference repeat as closely too: on a
		// fine tone blurred by JPEG every offset differs little, and a dip of noise between two
		// periods passes for one alone, never with its sum and difference. Of pairs nearly as good,
		// the one of the smallest cell has the shortest steps, whose copies drift least.
		slices.SortFunc(dips, func(p, q period) int { return cmp.Compare(p.diff, q.diff) })
		dips = dips[:min(len(dips), 10)]
		type pair struct {
			a, b       period
			worst, det float64
		}
		var pairs []pair
		for i, p := range dips {
			for _, q := range dips[i+1:] {
				det := math.Abs(p.d[0]*q.d[1] - p.d[1]*q.d[0])
				if det < length(p.d)*length(q.d)*math.Sin(math.Pi/6) {
					continue // within 30° of each other
				}
				worst := max(p.diff, q.diff)
				for _, d := range [][2]float64{{p.d[0] + q.d[0], p.d[1] + q.d[1]}, {p.d[0] - q.d[0], p.d[1] - q.d[1]}} {
					v, ok := at(d)
					if !ok {
						v = math.Inf(1)
					}
					worst = max(worst, v)
				}
				pairs = append(pairs, pair{p, q, worst, det})
			}
		}
		// A step measured over several periods is known as many times better: copies taken a few
		// periods away stay in step.
		longer := func(p period) [2]float64 {
			for k := 2.0; k*length(p.d) <= 3*maxPeriod; k++ {
				want := [2]float64{p.d[0] * k, p.d[1] * k}
				v, ok := at(want)
				if !ok {
					break
				}
				q := refine(period{d: want, diff: v}, 0.25)
				if length([2]float64{q.d[0] - want[0], q.d[1] - want[1]}) <= 0.5 && q.diff <= p.diff*1.5+1 {
					p.d = [2]float64{q.d[0] / k, q.d[1] / k}
				}
			}
			return p.d
		}
		best := math.Inf(1)
		for _, p := range pairs {
			best = min(best, p.worst)
		}
		if !good(period{diff: best, d: [2]float64{maxPeriod, maxPeriod}}) {
			if !lines {
				return lattice{}, false
			}
			// A tone of lines repeats across them only (and along them at any step). Lines that
			// repeat along themselves alone (speed lines spaced at random, ending at a black band)
			// have no such period: half their step repeats as closely, and copied along them,
			// what ends them (the band) would run down over the erased lettering.
			a := longer(dips[0])
			if v, ok := at([2]float64{a[0] / 2, a[1] / 2}); !ok || v <= near*0.4 {
				return lattice{}, false
			}
			return lattice{a: a}, true
		}
		pairs = slices.DeleteFunc(pairs, func(p pair) bool { return p.worst > best*1.05 })
		smallest := slices.MinFunc(pairs, func(p, q pair) int { return cmp.Compare(p.det, q.det) })
		return lattice{a: longer(smallest.a), b: longer(smallest.b)}, true
	}
	strict := func(p period) bool { return !p.loose && p.diff <= near*0.4 }
	if l, ok := solve(slices.Clone(dips), strict, true); ok || !coarse {
		return l, ok
	}
	l, ok := solve(dips, loose, false)
	if !ok {
		return l, false
	}
	// Judged so loosely, the lattice must hold all round the lettering, not on average: text
	// across a panel's frame has one tone on each side, and the one's lattice copied over the
	// other lays stripes on it.
	c := box.Min.Add(box.Max).Div(2)
	var parts [4][]image.Point
	for _, p := range samples {
		k := 0
		if p.X >= c.X {
			k++
		}
		if p.Y >= c.Y {
			k += 2
		}
		parts[k] = append(parts[k], p)
	}
	for _, part := range parts {
		if len(part) < 50 {
			continue
		}
		for _, d := range [][2]float64{l.a, l.b} {
			if v, ok := diffAt(part, soft, d); ok && v > typical*0.5 {
				return lattice{}, false
			}
		}
	}
	return l, true
}

// nearDiff is how much a page differs from itself a pixel away, at most, by diff.
func nearDiff(diff func(d [2]float64) (float64, bool)) float64 {
	near := 0.0
	for _, d := range [][2]float64{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
		v, _ := diff(d)
		near = max(near, v)
	}
	return near
}

// smoothed is g over box blurred by [1 2 1]/4 both ways.
func smoothed(g *image.Gray, box image.Rectangle) []float32 {
	w, h := box.Dx(), box.Dy()
	rows := make([]float32, w*h)
	for y := range h {
		for x := range w {
			v := func(x int) float32 {
				x = min(max(x, 0), w-1)
				return float32(g.Pix[g.PixOffset(box.Min.X+x, box.Min.Y+y)])
			}
			rows[y*w+x] = (v(x-1) + 2*v(x) + v(x+1)) / 4
		}
	}
	out := make([]float32, w*h)
	for y := range h {
		for x := range w {
			v := func(y int) float32 { return rows[min(max(y, 0), h-1)*w+x] }
			out[y*w+x] = (v(y-1) + 2*v(y) + v(y+1)) / 4
		}
	}
	return out
}

// bilinear is v at (x, y) in pixel coordinates, between the four pixels around it, if usable
// allows all four.
func bilinear(v func(x, y int) float64, x, y float64, usable func(x, y int) bool) (float64, bool) {
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	fx, fy := x-float64(x0), y-float64(y0)
	if !usable(x0, y0) || !usable(x0+1, y0) || !usable(x0, y0+1) || !usable(x0+1, y0+1) {
		return 0, false
	}
	return (v(x0, y0)*(1-fx)+v(x0+1, y0)*fx)*(1-fy) + (v(x0, y0+1)*(1-fx)+v(x0+1, y0+1)*fx)*fy, true
}

// step is an offset of a whole number of a tone's periods, and its length.
type step struct {
	d      [2]float64
	length float64
}

// steps are the offsets i·a + j·b of l, shortest first, up to reach pixels long.
func (l lattice) steps(reach float64) []step {
	var out []step
	n := int(reach/math.Hypot(l.a[0], l.a[1])) + 1
	m := 0
	if l.b != ([2]float64{}) {
		m = int(reach/math.Hypot(l.b[0], l.b[1])) + 1
	}
	for i := -n; i <= n; i++ {
		for j := -m; j <= m; j++ {
			d := [2]float64{float64(i)*l.a[0] + float64(j)*l.b[0], float64(i)*l.a[1] + float64(j)*l.b[1]}
			if length := math.Hypot(d[0], d[1]); (i != 0 || j != 0) && length <= reach {
				out = append(out, step{d, length})
			}
		}
	}
	slices.SortFunc(out, func(p, q step) int { return cmp.Compare(p.length, q.length) })
	return out
}

// copyTone fills every pixel of m inside region from the tone the nearest step of l away (a
// whole number of periods, within box) where m does not cover it and from allows, sampled
// between pixels; it returns false, changing nothing, when some pixel has none.
func copyTone(img *image.RGBA, m *page.Mask, region image.Rectangle, l lattice, box image.Rectangle, from func(x, y int) bool) bool {
	type fill struct {
		dst image.Point
		c   color.RGBA
	}
	var fills []fill
	region = region.Intersect(m.Box)
	usable := func(x, y int) bool { return image.Pt(x, y).In(box) && !m.Has(x, y) && from(x, y) }
	steps := l.steps(float64(max(box.Dx(), box.Dy())))
	if len(steps) == 0 {
		return false
	}
	period := steps[0].length
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
			if last >= 0 && steps[last].length <= way*1.1+period {
				if c, ok := sampleRGBA(img, float64(x)+steps[last].d[0], float64(y)+steps[last].d[1], 0, free); ok {
					fills = append(fills, fill{image.Pt(x, y), c})
					continue
				}
			}
			// The nearest step clear of the mask for the sharpest interpolation, or failing
			// that, a little further on, the nearest for any.
			var fallback *color.RGBA
			limit := math.Inf(1)
			first, _ := slices.BinarySearchFunc(steps, way/1.083-1, func(s step, l float64) int { return cmp.Compare(s.length, l) })
			last = -1
			for i, st := range steps[first:] {
				if length := st.length; length > limit {
					break
				} else if qx, qy := float64(x)+st.d[0], float64(y)+st.d[1]; free(int(math.Round(qx)), int(math.Round(qy))) {
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

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
