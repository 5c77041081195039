// Package raster provides the pixel primitives the engine's stages share: grey-level
// statistics, binary images and their connected pieces, box filters over images and masks, the
// shape of a set of pixels, and clustering.
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
