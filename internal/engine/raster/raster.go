// Package raster provides the pixel primitives the engine's stages share: grey-level
// statistics, binary images and their connected pieces and the small ones near a box, box
// filters over images and masks, the shape of a set of pixels, clustering, and a screentone's
// lattice of dots.
package raster

import (
	"image"
	"math"
	"slices"
)

// Otsu is the threshold that best separates the histogram of g into two classes.
func Otsu(g *image.Gray) uint8 {
	var hist [256]float64
	for _, v := range g.Pix {
		hist[v]++
	}
	total := float64(len(g.Pix))
	var sum float64
	for i, h := range hist {
		sum += float64(i) * h
	}
	var sumB, wB, best float64
	thresh := 128
	for t := 0; t < 256; t++ {
		wB += hist[t]
		if wB == 0 {
			continue
		}
		wF := total - wB
		if wF == 0 {
			break
		}
		sumB += float64(t) * hist[t]
		mB, mF := sumB/wB, (sum-sumB)/wF
		between := wB * wF * (mB - mF) * (mB - mF)
		if between > best {
			best, thresh = between, t
		}
	}
	return uint8(thresh)
}

// BoxBlur averages g over a (2r+1)² window with running sums, so its cost does not grow with r.
// Screentone and hatching average out into grey while paper stays white, which is what tells a
// bubble on tone from the tone around it.
func BoxBlur(g *image.Gray, r int) *image.Gray {
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	tmp := make([]int32, w*h)
	for y := 0; y < h; y++ {
		row := g.Pix[g.PixOffset(b.Min.X, b.Min.Y+y):]
		var acc int32
		for x := -r; x <= r; x++ {
			acc += int32(row[clamp(x, 0, w-1)])
		}
		for x := 0; x < w; x++ {
			tmp[y*w+x] = acc
			acc += int32(row[clamp(x+r+1, 0, w-1)]) - int32(row[clamp(x-r, 0, w-1)])
		}
	}
	out := image.NewGray(image.Rect(0, 0, w, h))
	n := int32((2*r + 1) * (2*r + 1))
	for x := 0; x < w; x++ {
		var acc int32
		for y := -r; y <= r; y++ {
			acc += tmp[clamp(y, 0, h-1)*w+x]
		}
		for y := 0; y < h; y++ {
			out.Pix[y*w+x] = uint8(acc / n)
			acc += tmp[clamp(y+r+1, 0, h-1)*w+x] - tmp[clamp(y-r, 0, h-1)*w+x]
		}
	}
	return out
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }

// SquareFilter shrinks (all) or grows (!all) the w×h mask m by a square of radius r, as two
// passes of running counts, so that its cost does not grow with r. Outside the mask is off.
func SquareFilter(m []bool, w, h, r int, all bool) []bool {
	pass := func(src []bool, n, stride, lines, step int) []bool {
		out := make([]bool, len(src))
		for l := range lines {
			base := l * step
			count := 0
			// count holds the pixels on among [i-r, i+r] of the line.
			for k := 0; k < min(r, n); k++ {
				if src[base+k*stride] {
					count++
				}
			}
			for i := range n {
				if j := i + r; j < n && src[base+j*stride] {
					count++
				}
				if j := i - r - 1; j >= 0 && src[base+j*stride] {
					count--
				}
				span := min(n-1, i+r) - max(0, i-r) + 1
				if all {
					out[base+i*stride] = count == 2*r+1 && span == 2*r+1
				} else {
					out[base+i*stride] = count > 0
				}
			}
		}
		return out
	}
	return pass(pass(m, w, 1, h, w), h, w, w, 1)
}

// Moments are the sums that give a piece's direction and elongation.
type Moments struct{ n, sx, sy, sxx, syy, sxy float64 }

func (m *Moments) Add(x, y int) {
	fx, fy := float64(x), float64(y)
	*m = Moments{m.n + 1, m.sx + fx, m.sy + fy, m.sxx + fx*fx, m.syy + fy*fy, m.sxy + fx*fy}
}

// Orientation is the angle of the piece's long axis in [0, π) and the ratio of its length to
// its width.
func (m *Moments) Orientation() (angle, elongation float64) {
	a, b, c := m.second()
	length, width := m.Axes()
	return math.Mod(0.5*math.Atan2(2*c, a-b)+math.Pi, math.Pi), length / max(width, 1)
}

// Axes are the length and width of the bar with the piece's second moments (a bar of length L
// has a variance of L²/12 along it).
func (m *Moments) Axes() (length, width float64) {
	a, b, c := m.second()
	d := math.Sqrt((a-b)*(a-b)/4 + c*c)
	return math.Sqrt(12 * ((a+b)/2 + d)), math.Sqrt(12 * max((a+b)/2-d, 1.0/12))
}

// Centroid is the mean of the pixels added.
func (m *Moments) Centroid() (x, y float64) { return m.sx / m.n, m.sy / m.n }

func (m *Moments) second() (a, b, c float64) {
	mx, my := m.Centroid()
	return m.sxx/m.n - mx*mx, m.syy/m.n - my*my, m.sxy/m.n - mx*my
}

// Cluster partitions items into the connected groups of the relation same (single linkage), in the
// order of each group's first item. same must hold only for items whose spans along x overlap: a
// sweep tests just those pairs, as all pairs of a toned page's thousands of blobs took a second.
func Cluster[T any](items []T, span func(T) (lo, hi int), same func(a, b T) bool) [][]T {
	parent, lo, hi, byX := make([]int, len(items)), make([]int, len(items)), make([]int, len(items)), make([]int, len(items))
	for i, it := range items {
		parent[i], byX[i] = i, i
		lo[i], hi[i] = span(it)
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i], i = parent[parent[i]], parent[parent[i]]
		}
		return i
	}
	slices.SortFunc(byX, func(i, j int) int { return lo[i] - lo[j] })
	for k, i := range byX {
		for m := k + 1; m < len(byX) && lo[byX[m]] <= hi[i]; m++ {
			if j := byX[m]; same(items[min(i, j)], items[max(i, j)]) {
				parent[find(i)] = find(j)
			}
		}
	}
	var out [][]T
	group := make([]int, len(items)) // 1 + the index in out of the group whose root is i
	for i, it := range items {
		if group[find(i)] == 0 {
			out = append(out, nil)
			group[find(i)] = len(out)
		}
		out[group[find(i)]-1] = append(out[group[find(i)]-1], it)
	}
	return out
}

// Bitmap is a binary image with the page's bounds starting at 0,0.
type Bitmap struct {
	W, H int
	On   []bool
}

func (b *Bitmap) At(x, y int) bool {
	return x >= 0 && y >= 0 && x < b.W && y < b.H && b.On[y*b.W+x]
}

// Threshold marks pixels darker than t.
func Threshold(g *image.Gray, t uint8) *Bitmap {
	b := g.Bounds()
	m := &Bitmap{W: b.Dx(), H: b.Dy(), On: make([]bool, b.Dx()*b.Dy())}
	for y := 0; y < m.H; y++ {
		row := g.Pix[g.PixOffset(b.Min.X, b.Min.Y+y):]
		for x := 0; x < m.W; x++ {
			m.On[y*m.W+x] = row[x] < t
		}
	}
	return m
}

// Component is one connected piece of a Bitmap.
type Component struct {
	Box  image.Rectangle
	Area int
}

// Labels holds a labelling of a Bitmap: 0 for off pixels, otherwise 1 + the component's index.
type Labels struct {
	W, H  int
	ID    []int32
	Comps []Component
}

// Label finds the 8-connected (or 4-connected) components of the on pixels of m with a scanline
// flood fill.
func Label(m *Bitmap, eight bool) *Labels {
	l := &Labels{W: m.W, H: m.H, ID: make([]int32, m.W*m.H)}
	var stack []int
	for start, on := range m.On {
		if !on || l.ID[start] != 0 {
			continue
		}
		n := int32(len(l.Comps) + 1)
		c := Component{Box: image.Rect(start%m.W, start/m.W, start%m.W+1, start/m.W+1)}
		stack = append(stack[:0], start)
		l.ID[start] = n
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := i%m.W, i/m.W
			c.Area++
			c.Box = c.Box.Union(image.Rect(x, y, x+1, y+1))
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if (dx == 0 && dy == 0) || (!eight && dx != 0 && dy != 0) {
						continue
					}
					nx, ny := x+dx, y+dy
					if nx < 0 || ny < 0 || nx >= m.W || ny >= m.H {
						continue
					}
					j := ny*m.W + nx
					if m.On[j] && l.ID[j] == 0 {
						l.ID[j] = n
						stack = append(stack, j)
					}
				}
			}
		}
		l.Comps = append(l.Comps, c)
	}
	return l
}

// Gap is the gap between two boxes: zero when they touch or overlap, else the larger of the
// horizontal and vertical gaps.
func Gap(a, b image.Rectangle) int {
	dx := max(0, max(a.Min.X, b.Min.X)-min(a.Max.X, b.Max.X))
	dy := max(0, max(a.Min.Y, b.Min.Y)-min(a.Max.Y, b.Max.Y))
	return max(dx, dy)
}

// Tone is a screentone's lattice of dots: dot (i, j) is centred at Origin + i·U + j·V.
type Tone struct{ Origin, U, V [2]float64 }

// FitTone fits a lattice to the centres of a tone's dots, read from around ref (the dot nearest
// it sets the origin): the two shortest steps between dots that are not parallel, refined by
// least squares over every centre that lies near a lattice point. ok is false when the centres
// make no lattice (fewer than six, or all in a line).
func FitTone(centres [][2]float64, ref [2]float64) (t Tone, ok bool) {
	if len(centres) < 6 {
		return t, false
	}
	d2 := func(a, b [2]float64) float64 { return (a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) }
	norm2 := func(s [2]float64) float64 { return d2(s, [2]float64{}) }
	o := centres[0]
	for _, c := range centres {
		if d2(c, ref) < d2(o, ref) {
			o = c
		}
	}
	var u, v [2]float64
	for _, c := range centres {
		if s := [2]float64{c[0] - o[0], c[1] - o[1]}; norm2(s) > 1 && (u == [2]float64{} || norm2(s) < norm2(u)) {
			u = s
		}
	}
	lu := math.Sqrt(norm2(u))
	for _, c := range centres {
		s := [2]float64{c[0] - o[0], c[1] - o[1]}
		ls := math.Sqrt(norm2(s))
		// Steps more than 30° from u either way.
		if ls > 1 && math.Abs(s[0]*u[0]+s[1]*u[1]) < ls*lu*math.Cos(math.Pi/6) && (v == [2]float64{} || ls*ls < norm2(v)) {
			v = s
		}
	}
	t = Tone{Origin: o, U: u, V: v}
	if lu == 0 || v == [2]float64{} {
		return t, false
	}
	// Least squares of x (and y) = origin + i·U + j·V over the centres near a lattice point.
	var m [3][3]float64
	var bx, by [3]float64
	n := 0
	for _, c := range centres {
		i, j := t.index(c[0], c[1])
		p := t.At(i, j)
		if d2(p, c) > lu*lu/16 {
			continue
		}
		row := [3]float64{1, float64(i), float64(j)}
		for a := range 3 {
			for b := range 3 {
				m[a][b] += row[a] * row[b]
			}
			bx[a] += row[a] * c[0]
			by[a] += row[a] * c[1]
		}
		n++
	}
	if n < 6 {
		return t, false
	}
	sx, okx := solve3(m, bx)
	sy, oky := solve3(m, by)
	if !okx || !oky {
		return t, true // the first guess stands
	}
	return Tone{Origin: [2]float64{sx[0], sy[0]}, U: [2]float64{sx[1], sy[1]}, V: [2]float64{sx[2], sy[2]}}, true
}

// At is the centre of dot (i, j).
func (t Tone) At(i, j int) [2]float64 {
	return [2]float64{t.Origin[0] + float64(i)*t.U[0] + float64(j)*t.V[0], t.Origin[1] + float64(i)*t.U[1] + float64(j)*t.V[1]}
}

// index is the dot whose centre is nearest (x, y), in lattice steps.
func (t Tone) index(x, y float64) (i, j int) {
	det := t.U[0]*t.V[1] - t.U[1]*t.V[0]
	dx, dy := x-t.Origin[0], y-t.Origin[1]
	a := (dx*t.V[1] - dy*t.V[0]) / det
	b := (t.U[0]*dy - t.U[1]*dx) / det
	return int(math.Round(a)), int(math.Round(b))
}

// Nearest is the centre of the dot nearest (x, y), and its index.
func (t Tone) Nearest(x, y float64) (c [2]float64, i, j int) {
	i, j = t.index(x, y)
	return t.At(i, j), i, j
}

// solve3 solves m·s = b by Cramer's rule; ok is false when m is singular.
func solve3(m [3][3]float64, b [3]float64) (s [3]float64, ok bool) {
	det := func(a [3][3]float64) float64 {
		return a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) - a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) + a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
	}
	d := det(m)
	if math.Abs(d) < 1e-9 {
		return s, false
	}
	for k := range 3 {
		mk := m
		for r := range 3 {
			mk[r][k] = b[r]
		}
		s[k] = det(mk) / d
	}
	return s, true
}

// Neighbours finds the small pieces near a box through a grid of their corners.
type Neighbours struct {
	comps []Component
	cell  int
	grid  map[image.Point][]int
}

// NewNeighbours indexes the pieces of comps no larger than small.
func NewNeighbours(comps []Component, small int) *Neighbours {
	n := &Neighbours{comps: comps, cell: small, grid: map[image.Point][]int{}}
	for i, c := range comps {
		if max(c.Box.Dx(), c.Box.Dy()) <= small {
			p := c.Box.Min.Div(n.cell)
			n.grid[p] = append(n.grid[p], i)
		}
	}
	return n
}

// Each calls f with every small piece within reach of r.
func (n *Neighbours) Each(r image.Rectangle, reach int, f func(j int)) {
	lo, hi := r.Min.Sub(image.Pt(reach+n.cell, reach+n.cell)).Div(n.cell), r.Max.Add(image.Pt(reach, reach)).Div(n.cell)
	for cy := lo.Y; cy <= hi.Y; cy++ {
		for cx := lo.X; cx <= hi.X; cx++ {
			for _, j := range n.grid[image.Pt(cx, cy)] {
				if Gap(r, n.comps[j].Box) <= reach {
					f(j)
				}
			}
		}
	}
}

// Stuck tells the pixels of the tone's dots, of radius r, that other ink (lettering drawn over
// the tone without a halo) has joined: within r of a dot's centre, where the dot is there (most
// of its disk is ink) and paper mostly surrounds it (under half of a ring just outside it is
// ink, its neighbours' disks aside, and that ink on one side). Under a stroke that ring is ink
// on opposite sides, and the dot is left to the stroke.
func (t Tone) Stuck(r float64, ink func(x, y int) bool) func(x, y int) bool {
	dist := func(x, y int, c [2]float64) float64 { return math.Hypot(float64(x)-c[0], float64(y)-c[1]) }
	memo := map[[2]int]bool{}
	stuck := func(i, j int) bool {
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		c := t.At(i, j)
		disk, in, ring, out := 0, 0, 0, 0
		var sx, sy float64 // the sum of the directions to the ring's ink
		for y := int(math.Floor(c[1] - r - 3)); y <= int(math.Ceil(c[1]+r+3)); y++ {
			for x := int(math.Floor(c[0] - r - 3)); x <= int(math.Ceil(c[0]+r+3)); x++ {
				switch d := dist(x, y, c); {
				case d <= r:
					disk++
					if ink(x, y) {
						in++
					}
				case d > r+1.5 && d <= r+3:
					if o, oi, oj := t.Nearest(float64(x), float64(y)); (oi != i || oj != j) && dist(x, y, o) <= r+1 {
						continue
					}
					ring++
					if ink(x, y) {
						out++
						sx, sy = sx+(float64(x)-c[0])/d, sy+(float64(y)-c[1])/d
					}
				}
			}
		}
		// Ink on one side is what the dot is stuck to; ink on opposite sides is a stroke that
		// runs through it.
		v := in*10 >= disk*7 && out*2 < ring && math.Hypot(sx, sy) >= float64(out)/2
		memo[[2]int{i, j}] = v
		return v
	}
	return func(x, y int) bool {
		c, i, j := t.Nearest(float64(x), float64(y))
		return dist(x, y, c) <= r+0.7 && stuck(i, j)
	}
}

// Opened labels the 4-connected components of m opened by a square of radius r (so that paper
// joined only through gaps narrower than 2r+1 falls apart), then gives the on pixels of m the
// opening took the label of an opened pixel within r across, then down: each area keeps its
// edges, and the gaps belong to no area.
func Opened(m *Bitmap, r int) *Labels {
	w, h := m.W, m.H
	l := Label(&Bitmap{W: w, H: h, On: SquareFilter(SquareFilter(m.On, w, h, r, true), w, h, r, false)}, false)
	// Across (lines of w pixels one apart, h of them w apart), then down.
	for _, d := range [...]struct{ step, n, along, lines int }{{1, w, w, h}, {w, h, 1, w}} {
		step, n, along, lines := d.step, d.n, d.along, d.lines
		next := slices.Clone(l.ID)
		for line := range lines {
			base := line * along
			for k := range n {
				i := base + k*step
				if !m.On[i] || l.ID[i] != 0 {
					continue
				}
				for o := 1; o <= r && next[i] == 0; o++ {
					if k-o >= 0 && l.ID[i-o*step] != 0 {
						next[i] = l.ID[i-o*step]
					} else if k+o < n && l.ID[i+o*step] != 0 {
						next[i] = l.ID[i+o*step]
					}
				}
			}
		}
		l.ID = next
	}
	return l
}

// Filled is the component n of l with its holes filled: the pixels of its box (row by row) that
// the box's border cannot reach without crossing the component, and how many they are.
func (l *Labels) Filled(n int32) (mask []bool, area int) {
	c := l.Comps[n-1]
	box := c.Box
	w, h := box.Dx(), box.Dy()
	outside := make([]bool, w*h)
	var stack []int
	push := func(x, y int) {
		i := y*w + x
		if outside[i] || l.ID[(box.Min.Y+y)*l.W+box.Min.X+x] == n {
			return
		}
		outside[i] = true
		stack = append(stack, i)
	}
	for x := 0; x < w; x++ {
		push(x, 0)
		push(x, h-1)
	}
	for y := 0; y < h; y++ {
		push(0, y)
		push(w-1, y)
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		if x > 0 {
			push(x-1, y)
		}
		if x < w-1 {
			push(x+1, y)
		}
		if y > 0 {
			push(x, y-1)
		}
		if y < h-1 {
			push(x, y+1)
		}
	}
	mask = make([]bool, w*h)
	for i := range outside {
		if !outside[i] {
			mask[i] = true
			area++
		}
	}
	return mask, area
}
