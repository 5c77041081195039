// Package raster provides the pixel primitives the engine's stages share: grey-level
// statistics, work on a page's parts side by side, binary images and their connected pieces and the small ones near a box, box
// filters over images and masks, the shape of a set of pixels, clustering, which pieces are
// texture (a tone's dots, hatching), and a screentone's lattice of dots.
package raster

import (
	"image"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Otsu is the threshold that best separates the histogram of g into two classes.
func Otsu(g *image.Gray) uint8 {
	hist := make([]int, 256)
	for _, v := range g.Pix {
		hist[v]++
	}
	return HistOtsu(hist)
}

// HistOtsu is the grey level that best separates a histogram of grey levels into two classes.
func HistOtsu(hist []int) uint8 {
	var total, sum float64
	for i, h := range hist {
		total += float64(h)
		sum += float64(i) * float64(h)
	}
	var sumB, wB, best float64
	thresh := 128
	for t, h := range hist {
		wB += float64(h)
		if wB == 0 {
			continue
		}
		wF := total - wB
		if wF == 0 {
			break
		}
		sumB += float64(t) * float64(h)
		mB, mF := sumB/wB, (sum-sumB)/wF
		between := wB * wF * (mB - mF) * (mB - mF)
		if between > best {
			best, thresh = between, t
		}
	}
	return uint8(thresh)
}

// Cores is g, dark strokes on white, in black and white: black where a pixel is darker than
// the Otsu threshold of the pixels that are not white.
func Cores(g *image.Gray) *image.Gray {
	hist := make([]int, 256)
	for _, v := range g.Pix {
		if v < 255 {
			hist[v]++
		}
	}
	t := HistOtsu(hist)
	out := image.NewGray(g.Bounds())
	for i, v := range g.Pix {
		if v > t {
			out.Pix[i] = 255
		}
	}
	return out
}

// PaperLevel estimates the brightness of a page's paper: a high percentile, so that ink, tone
// and art do not pull it down and a few specks of pure white do not push it up.
func PaperLevel(g *image.Gray) uint8 {
	var hist [256]int
	for _, v := range g.Pix {
		hist[v]++
	}
	target := len(g.Pix) * 10 / 100 // the brightest 10 %
	n := 0
	for v := 255; v >= 0; v-- {
		n += hist[v]
		if n >= target {
			return uint8(v)
		}
	}
	return 255
}

// Parallel calls f(i) for every i < n on as many goroutines as the process may run at once, and
// returns when all have returned. Each call must write only its own i's answer.
func Parallel(n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		})
	}
	wg.Wait()
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
	// Down the columns, a row at a time: one running sum per column, so that memory is read in
	// order (a page is too large for its columns to stay in cache).
	out := image.NewGray(image.Rect(0, 0, w, h))
	n := int32((2*r + 1) * (2*r + 1))
	acc := make([]int32, w)
	for y := -r; y <= r; y++ {
		row := tmp[clamp(y, 0, h-1)*w:][:w]
		for x, v := range row {
			acc[x] += v
		}
	}
	for y := 0; y < h; y++ {
		dst := out.Pix[y*w:][:w]
		in, gone := tmp[clamp(y+r+1, 0, h-1)*w:][:w], tmp[clamp(y-r, 0, h-1)*w:][:w]
		for x := range dst {
			dst[x] = uint8(acc[x] / n)
			acc[x] += in[x] - gone[x]
		}
	}
	return out
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }

// MarkPix sets in m, a mask over box, the pixels pix (indices into an image of the given stride).
func MarkPix(m []bool, box image.Rectangle, stride int, pix []int) {
	for _, p := range pix {
		m[(p/stride-box.Min.Y)*box.Dx()+p%stride-box.Min.X] = true
	}
}

// HasCore reports whether the pixels pix (indices into an image of the given stride, within box)
// hold a square 2r+1 wide that is all theirs: a mass of ink rather than strokes thinner than that.
// It is asked of every candidate stroke of a page, most far too small to hold the square, which
// are answered without a mask.
func HasCore(pix []int, stride int, box image.Rectangle, r int) bool {
	w, h, side := box.Dx(), box.Dy(), 2*r+1
	if min(w, h) < side || len(pix) < side*side {
		return false
	}
	m := make([]bool, w*h)
	MarkPix(m, box, stride, pix)
	return slices.Contains(SquareFilter(m, w, h, r, true), true)
}

// SquareFilter shrinks (all) or grows (!all) the w×h mask m by a square of radius r, as two
// passes of running counts, so that its cost does not grow with r. Outside the mask is off.
func SquareFilter(m []bool, w, h, r int, all bool) []bool {
	// Along the rows, then down the columns a row at a time with a count per column, so that
	// memory is read in order either way.
	across := make([]bool, len(m))
	for y := range h {
		src, out := m[y*w:][:w], across[y*w:][:w]
		count := 0 // the pixels on among [x-r, x+r] of the row
		for x := 0; x < min(r, w); x++ {
			if src[x] {
				count++
			}
		}
		for x := range w {
			if j := x + r; j < w && src[j] {
				count++
			}
			if j := x - r - 1; j >= 0 && src[j] {
				count--
			}
			if all {
				out[x] = count == 2*r+1 && min(w-1, x+r)-max(0, x-r)+1 == 2*r+1
			} else {
				out[x] = count > 0
			}
		}
	}
	res := make([]bool, len(m))
	count := make([]int32, w)
	for y := 0; y < min(r, h); y++ {
		for x, on := range across[y*w:][:w] {
			if on {
				count[x]++
			}
		}
	}
	for y := range h {
		if j := y + r; j < h {
			for x, on := range across[j*w:][:w] {
				if on {
					count[x]++
				}
			}
		}
		if j := y - r - 1; j >= 0 {
			for x, on := range across[j*w:][:w] {
				if on {
					count[x]--
				}
			}
		}
		out := res[y*w:][:w]
		if all {
			if min(h-1, y+r)-max(0, y-r)+1 == 2*r+1 {
				for x, c := range count {
					out[x] = c == int32(2*r+1)
				}
			}
		} else {
			for x, c := range count {
				out[x] = c > 0
			}
		}
	}
	return res
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

// Label finds the 8-connected (or 4-connected) components of the on pixels of m. It works on
// runs, not pixels: each row's runs are joined (union-find) to the runs of the row above that
// touch them, so a page's paper, which is most of its pixels in long runs, costs a few
// operations a run. Components are numbered in the order of their first pixel on the page, as
// a flood fill started at each unlabelled pixel in turn would number them.
func Label(m *Bitmap, eight bool) *Labels {
	w, h := m.W, m.H
	l := &Labels{W: w, H: h, ID: make([]int32, w*h)}
	reach := 0 // how far past a run's ends its neighbours in the rows above and below lie
	if eight {
		reach = 1
	}
	type run struct{ y, x0, x1 int32 } // x1 is past the run's end
	var runs []run
	var parent []int32 // a run's parent in its component's tree; a root is its first run
	root := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	above0, above1 := 0, 0 // the runs of the row above
	for y := range h {
		row := m.On[y*w:][:w]
		first := len(runs)
		k := above0
		for x := 0; x < w; {
			if !row[x] {
				x++
				continue
			}
			x0 := x
			for x < w && row[x] {
				x++
			}
			i := int32(len(runs))
			runs = append(runs, run{int32(y), int32(x0), int32(x)})
			parent = append(parent, i)
			for k < above1 && int(runs[k].x1)+reach <= x0 {
				k++
			}
			for j := k; j < above1 && int(runs[j].x0) < x+reach; j++ {
				// The root that comes first on the page stays the root.
				if a, b := root(int32(j)), root(i); a < b {
					parent[b] = a
				} else if b < a {
					parent[a] = b
				}
			}
		}
		above0, above1 = first, len(runs)
	}
	comp := make([]int32, len(runs)) // a root run's label
	for i, r := range runs {
		c := root(int32(i))
		if c == int32(i) {
			l.Comps = append(l.Comps, Component{Box: image.Rect(int(r.x0), int(r.y), int(r.x1), int(r.y)+1)})
			comp[i] = int32(len(l.Comps))
		}
		n := comp[c]
		cc := &l.Comps[n-1]
		cc.Box = cc.Box.Union(image.Rect(int(r.x0), int(r.y), int(r.x1), int(r.y)+1))
		cc.Area += int(r.x1 - r.x0)
		ids := l.ID[int(r.y)*w:]
		for x := r.x0; x < r.x1; x++ {
			ids[x] = n
		}
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

// OverlapRatio is the area two boxes share over the smaller box's area.
func OverlapRatio(a, b image.Rectangle) float64 {
	in := a.Intersect(b)
	small := min(a.Dx()*a.Dy(), b.Dx()*b.Dy())
	if in.Empty() || small == 0 {
		return 0
	}
	return float64(in.Dx()*in.Dy()) / float64(small)
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

// Opened labels the 4-connected components of m opened by a square of radius r (so that paper
// joined only through gaps narrower than 2r+1 falls apart), then gives the on pixels of m the
// opening took the label of an opened pixel within r across, then down: each area keeps its
// edges, and the gaps belong to no area.
func Opened(m *Bitmap, r int) *Labels {
	w, h := m.W, m.H
	l := Label(&Bitmap{W: w, H: h, On: SquareFilter(SquareFilter(m.On, w, h, r, true), w, h, r, false)}, false)
	// Each pass reads the labels as they were before it (a pixel takes a label from within r,
	// not from a neighbour that has just taken one) from copies of the few rows it needs, and
	// writes in place.
	// Across: each row from its own copy.
	old := make([]int32, w)
	for y := range h {
		row := l.ID[y*w:][:w]
		copy(old, row)
		for x, id := range old {
			if id != 0 || !m.On[y*w+x] {
				continue
			}
			for o := 1; o <= r; o++ {
				if x-o >= 0 && old[x-o] != 0 {
					row[x] = old[x-o]
					break
				} else if x+o < w && old[x+o] != 0 {
					row[x] = old[x+o]
					break
				}
			}
		}
	}
	// Down: the rows above from a ring of copies of the last r+1, those below not yet written.
	ring := make([][]int32, r+1)
	for k := range ring {
		ring[k] = make([]int32, w)
	}
	for y := range h {
		row := l.ID[y*w:][:w]
		cur := ring[y%(r+1)]
		copy(cur, row)
		for x, id := range cur {
			if id != 0 || !m.On[y*w+x] {
				continue
			}
			for o := 1; o <= r; o++ {
				if y-o >= 0 && ring[(y-o)%(r+1)][x] != 0 {
					row[x] = ring[(y-o)%(r+1)][x]
					break
				} else if y+o < h && l.ID[(y+o)*w+x] != 0 {
					row[x] = l.ID[(y+o)*w+x]
					break
				}
			}
		}
	}
	return l
}

// Median is the median of f over xs (the upper of the two middle values), 0 for none.
func Median[T any](xs []T, f func(T) int) int {
	if len(xs) == 0 {
		return 0
	}
	v := make([]int, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// HistMedian is the median of the count values counted in hist (hist[v] of them equal to v).
func HistMedian(hist []int, count int) int {
	acc := 0
	for v, k := range hist {
		if acc += k; acc*2 >= count {
			return v
		}
	}
	return len(hist) - 1
}

// DropSpecks turns off the components of m (8-connected) smaller than least pixels.
func DropSpecks(m *Bitmap, least int) {
	if least < 3 {
		return
	}
	l := Label(m, true)
	for i, id := range l.ID {
		if id != 0 && l.Comps[id-1].Area < least {
			m.On[i] = false
		}
	}
}
