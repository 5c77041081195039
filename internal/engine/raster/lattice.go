package raster

import (
	"cmp"
	"image"
	"math"
	"slices"
)

// A printed tone's lattice is seldom a whole number of pixels: 45° dots of a 60-line screen
// scanned at 300 dpi repeat every 3.5 px along the diagonal. Copied or compared a whole pixel
// off, the dots drift out of step with the tone around them; so the lattice is measured to a few
// hundredths of a pixel, over several periods, and read between pixels.

// Lattice is a tone's two shortest periods, in pixels: the tone repeats at every i·A + j·B. B is
// zero for a tone of lines, which repeats along A only (and along its lines, at any step).
type Lattice struct{ A, B [2]float64 }

// maxPeriod is the longest period looked for: a coarse tone on a large scan.
const maxPeriod = 20

// MeasureLattice looks in box, around the pixels masked (the lettering), for the lattice of a
// screentone: the offsets at which the pixels repeat far more closely than their neighbours do.
// ok is false when the background does not repeat (flat paper, art).
func MeasureLattice(gray *image.Gray, masked func(x, y int) bool, box image.Rectangle) (Lattice, bool) {
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
			if i++; i%step != 0 || masked(x, y) {
				continue
			}
			samples = append(samples, image.Pt(x, y))
		}
	}
	if len(samples) < 200 {
		return Lattice{}, false
	}
	// The box's pixels clear of the mask, and its greys, looked up by index: the offsets are
	// hundreds, each over thousands of samples.
	w, h := box.Dx(), box.Dy()
	free := make([]bool, w*h)
	greys := make([]float32, w*h)
	for y := range h {
		for x := range w {
			free[y*w+x] = !masked(box.Min.X+x, box.Min.Y+y)
			greys[y*w+x] = float32(gray.Pix[gray.PixOffset(box.Min.X+x, box.Min.Y+y)])
		}
	}
	// diffAt is how far the pixels of v (over box) at samples differ from those d away, on
	// average (bilinear between pixels, all four clear of the mask); diff, over all the samples.
	diffAt := func(samples []image.Point, v []float32, d [2]float64) (float64, bool) {
		sum, n := 0.0, 0
		for _, p := range samples {
			x, y := float64(p.X)+d[0], float64(p.Y)+d[1]
			fx0, fy0 := math.Floor(x), math.Floor(y)
			x0, y0 := int(fx0)-box.Min.X, int(fy0)-box.Min.Y
			if x0 < 0 || y0 < 0 || x0+1 >= w || y0+1 >= h {
				continue
			}
			o := y0*w + x0
			if !free[o] || !free[o+1] || !free[o+w] || !free[o+w+1] {
				continue
			}
			fx, fy := x-fx0, y-fy0
			between := (float64(v[o])*(1-fx)+float64(v[o+1])*fx)*(1-fy) + (float64(v[o+w])*(1-fx)+float64(v[o+w+1])*fx)*fy
			sum += math.Abs(float64(v[(p.Y-box.Min.Y)*w+p.X-box.Min.X]) - between)
			n++
		}
		if n < len(samples)/3 {
			return 0, false
		}
		return sum / float64(n), true
	}
	diff := func(v []float32, d [2]float64) (float64, bool) { return diffAt(samples, v, d) }
	// How much neighbouring pixels differ: large on a tone (dot against paper), small on flat
	// paper and smooth art.
	if near := nearDiff(func(d [2]float64) (float64, bool) { return diff(greys, d) }); near < 12 {
		return Lattice{}, false // flat paper, smooth art: no dots to repeat
	}
	// The periods are measured on the tone slightly smoothed: a copy taken between pixels is
	// itself smoothed, and on the sharp tone it would lose, to the copy a whole pixel off,
	// as much as it gains by being in step.
	smooth := smoothed(gray, box)
	at := func(d [2]float64) (float64, bool) { return diff(smooth, d) }
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
	solve := func(dips []period, good func(p period) bool, lines bool) (Lattice, bool) {
		// The tone repeats at its periods nearly as closely as a pixel repeats itself: no closer
		// than at a pixel's neighbour means art, not a tone.
		dips = slices.DeleteFunc(dips, func(p period) bool { return !good(p) })
		if len(dips) == 0 {
			return Lattice{}, false
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
				return Lattice{}, false
			}
			// A tone of lines repeats across them only (and along them at any step). Lines that
			// repeat along themselves alone (speed lines spaced at random, ending at a black band)
			// have no such period: half their step repeats as closely, and copied along them,
			// what ends them (the band) would run down over the erased lettering.
			a := longer(dips[0])
			if v, ok := at([2]float64{a[0] / 2, a[1] / 2}); !ok || v <= near*0.4 {
				return Lattice{}, false
			}
			return Lattice{A: a}, true
		}
		pairs = slices.DeleteFunc(pairs, func(p pair) bool { return p.worst > best*1.05 })
		smallest := slices.MinFunc(pairs, func(p, q pair) int { return cmp.Compare(p.det, q.det) })
		return Lattice{A: longer(smallest.a), B: longer(smallest.b)}, true
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
		for _, d := range [][2]float64{l.A, l.B} {
			if v, ok := diffAt(part, smooth, d); ok && v > typical*0.5 {
				return Lattice{}, false
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

// Step is an offset of a whole number of a tone's periods, and its length.
type Step struct {
	D      [2]float64
	Length float64
}

// Steps are the offsets i·A + j·B of l, shortest first, up to reach pixels long.
func (l Lattice) Steps(reach float64) []Step {
	var out []Step
	n := int(reach/math.Hypot(l.A[0], l.A[1])) + 1
	m := 0
	if l.B != ([2]float64{}) {
		m = int(reach/math.Hypot(l.B[0], l.B[1])) + 1
	}
	for i := -n; i <= n; i++ {
		for j := -m; j <= m; j++ {
			d := [2]float64{float64(i)*l.A[0] + float64(j)*l.B[0], float64(i)*l.A[1] + float64(j)*l.B[1]}
			if length := math.Hypot(d[0], d[1]); (i != 0 || j != 0) && length <= reach {
				out = append(out, Step{d, length})
			}
		}
	}
	slices.SortFunc(out, func(p, q Step) int { return cmp.Compare(p.Length, q.Length) })
	return out
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
