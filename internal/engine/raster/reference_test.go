package raster

import (
	"image"
	"math/rand/v2"
	"slices"
	"testing"
)

// The filters and the labelling are written for speed (runs, running counts, memory read in
// order); these tests hold them to the plain definitions, pixel by pixel, on random masks and
// images of every shape a page's parts take: thin, square, sparse, dense, one pixel wide.

var shapes = []struct{ w, h int }{{1, 1}, {1, 17}, {23, 1}, {7, 5}, {40, 31}, {64, 64}, {97, 13}}

func randomMask(rng *rand.Rand, w, h int, density float64) []bool {
	m := make([]bool, w*h)
	for i := range m {
		m[i] = rng.Float64() < density
	}
	return m
}

// labelByDefinition labels components pixel by pixel, numbered in the order of their first pixel.
func labelByDefinition(m *Bitmap, eight bool) *Labels {
	l := &Labels{W: m.W, H: m.H, ID: make([]int32, m.W*m.H)}
	for start, on := range m.On {
		if !on || l.ID[start] != 0 {
			continue
		}
		n := int32(len(l.Comps) + 1)
		c := Component{Box: image.Rect(start%m.W, start/m.W, start%m.W+1, start/m.W+1)}
		l.ID[start] = n
		for queue := []int{start}; len(queue) > 0; queue = queue[1:] {
			x, y := queue[0]%m.W, queue[0]/m.W
			c.Area++
			c.Box = c.Box.Union(image.Rect(x, y, x+1, y+1))
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if (dx != 0 && dy != 0 && !eight) || !m.At(nx, ny) || l.ID[ny*m.W+nx] != 0 {
						continue
					}
					l.ID[ny*m.W+nx] = n
					queue = append(queue, ny*m.W+nx)
				}
			}
		}
		l.Comps = append(l.Comps, c)
	}
	return l
}

func TestLabelMatchesTheDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, s := range shapes {
		for _, density := range []float64{0.05, 0.3, 0.5, 0.6, 0.9} {
			for _, eight := range []bool{false, true} {
				m := &Bitmap{W: s.w, H: s.h, On: randomMask(rng, s.w, s.h, density)}
				got, want := Label(m, eight), labelByDefinition(m, eight)
				if !slices.Equal(got.ID, want.ID) || !slices.Equal(got.Comps, want.Comps) {
					t.Fatalf("%d×%d at %.2f, eight %v: %d components, want %d", s.w, s.h, density, eight, len(got.Comps), len(want.Comps))
				}
			}
		}
	}
	// A spiral: one component whose runs are met from both ends.
	const n = 41
	m := &Bitmap{W: n, H: n, On: make([]bool, n*n)}
	for k := 0; k < n/2; k += 2 {
		for i := k; i < n-k; i++ {
			m.On[k*n+i], m.On[(n-1-k)*n+i], m.On[i*n+n-1-k] = true, true, true
			if i > k+1 {
				m.On[i*n+k] = true
			}
		}
	}
	if got, want := Label(m, false), labelByDefinition(m, false); !slices.Equal(got.ID, want.ID) || !slices.Equal(got.Comps, want.Comps) {
		t.Fatalf("the spiral: %v, want %v", got.Comps, want.Comps)
	}
}

func TestFilledMatchesTheDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range shapes {
		for _, density := range []float64{0.3, 0.5, 0.6, 0.9} {
			l := Label(&Bitmap{W: s.w, H: s.h, On: randomMask(rng, s.w, s.h, density)}, true)
			for i, c := range l.Comps {
				n := int32(i + 1)
				got, gotArea := l.Filled(n)
				// By definition: a pixel of the box is filled unless a walk from outside the box
				// (a step at a time, never diagonally) reaches it without crossing component n.
				b := c.Box.Inset(-1)
				reached := map[image.Point]bool{b.Min: true}
				for queue := []image.Point{b.Min}; len(queue) > 0; queue = queue[1:] {
					for _, d := range []image.Point{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
						q := queue[0].Add(d)
						inside := q.In(c.Box)
						if !q.In(b) || reached[q] || inside && l.ID[q.Y*l.W+q.X] == n {
							continue
						}
						reached[q] = true
						queue = append(queue, q)
					}
				}
				want, wantArea := make([]bool, c.Box.Dx()*c.Box.Dy()), 0
				for y := c.Box.Min.Y; y < c.Box.Max.Y; y++ {
					for x := c.Box.Min.X; x < c.Box.Max.X; x++ {
						if !reached[image.Pt(x, y)] {
							want[(y-c.Box.Min.Y)*c.Box.Dx()+x-c.Box.Min.X] = true
							wantArea++
						}
					}
				}
				if !slices.Equal(got, want) || gotArea != wantArea {
					t.Fatalf("%d×%d at %.2f, component %d of %v: area %d, want %d", s.w, s.h, density, n, c.Box, gotArea, wantArea)
				}
			}
		}
	}
}

func TestSquareFilterMatchesTheDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range shapes {
		for _, density := range []float64{0.2, 0.7, 0.95} {
			m := randomMask(rng, s.w, s.h, density)
			for _, r := range []int{1, 2, 3} {
				for _, all := range []bool{true, false} {
					got := SquareFilter(m, s.w, s.h, r, all)
					for y := range s.h {
						for x := range s.w {
							// Every pixel of the square on (shrink), or any (grow); outside is off.
							n, on := 0, 0
							for dy := -r; dy <= r; dy++ {
								for dx := -r; dx <= r; dx++ {
									n++
									if xx, yy := x+dx, y+dy; xx >= 0 && yy >= 0 && xx < s.w && yy < s.h && m[yy*s.w+xx] {
										on++
									}
								}
							}
							if want := on == n && all || on > 0 && !all; got[y*s.w+x] != want {
								t.Fatalf("%d×%d, r %d, all %v: (%d,%d) is %v", s.w, s.h, r, all, x, y, got[y*s.w+x])
							}
						}
					}
				}
			}
		}
	}
}

func TestBoxBlurMatchesTheDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range shapes {
		g := image.NewGray(image.Rect(3, 2, 3+s.w, 2+s.h)) // not at the origin, as a crop is
		for i := range g.Pix {
			g.Pix[i] = uint8(rng.IntN(256))
		}
		for _, r := range []int{1, 2, 4} {
			got := BoxBlur(g, r)
			for y := range s.h {
				for x := range s.w {
					// The window's mean, the edge repeated outward.
					sum := 0
					for dy := -r; dy <= r; dy++ {
						for dx := -r; dx <= r; dx++ {
							sum += int(g.GrayAt(3+clamp(x+dx, 0, s.w-1), 2+clamp(y+dy, 0, s.h-1)).Y)
						}
					}
					if want := uint8(sum / ((2*r + 1) * (2*r + 1))); got.Pix[y*s.w+x] != want {
						t.Fatalf("%d×%d, r %d: (%d,%d) is %d, want %d", s.w, s.h, r, x, y, got.Pix[y*s.w+x], want)
					}
				}
			}
		}
	}
}

func TestOpenedMatchesTheDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, s := range shapes {
		for _, density := range []float64{0.5, 0.8, 0.95} {
			m := &Bitmap{W: s.w, H: s.h, On: randomMask(rng, s.w, s.h, density)}
			for _, r := range []int{1, 2} {
				got := Opened(m, r)
				// The opening's labels, then each pass giving an unlabelled pixel of m the
				// label, as it was before the pass, of the nearest pixel within r along it
				// (before it, then after it, at each distance).
				want := Label(&Bitmap{W: s.w, H: s.h, On: SquareFilter(SquareFilter(m.On, s.w, s.h, r, true), s.w, s.h, r, false)}, false)
				for _, d := range [][2]int{{1, 0}, {0, 1}} {
					before := slices.Clone(want.ID)
					for y := range s.h {
						for x := range s.w {
							if !m.On[y*s.w+x] || before[y*s.w+x] != 0 {
								continue
							}
						near:
							for o := 1; o <= r; o++ {
								for _, k := range []int{-o, o} {
									if xx, yy := x+k*d[0], y+k*d[1]; xx >= 0 && yy >= 0 && xx < s.w && yy < s.h && before[yy*s.w+xx] != 0 {
										want.ID[y*s.w+x] = before[yy*s.w+xx]
										break near
									}
								}
							}
						}
					}
				}
				if !slices.Equal(got.ID, want.ID) {
					t.Fatalf("%d×%d at %.2f, r %d: the labels differ", s.w, s.h, density, r)
				}
			}
		}
	}
}
