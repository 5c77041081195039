package raster

import (
	"image"
	"math"
	"testing"
)

// A bar's axes are its length and width whatever its slant, which is what tells a hatching line
// drawn at 45° (a square box) from a character's stroke.
func TestMomentsAxesOfASlantedBar(t *testing.T) {
	for _, deg := range []float64{0, 30, 45, 90, 135} {
		var m Moments
		a := deg * math.Pi / 180
		const length, width = 120, 3
		for s := -length / 2.0; s < length/2; s += 0.25 {
			for u := -width / 2.0; u < width/2; u += 0.25 {
				m.Add(int(math.Round(s*math.Cos(a)-u*math.Sin(a))), int(math.Round(s*math.Sin(a)+u*math.Cos(a))))
			}
		}
		l, w := m.Axes()
		if math.Abs(l-length) > length/10 || w > 2*width {
			t.Errorf("a %v° bar %dx%d measured %.1fx%.1f", deg, length, width, l, w)
		}
		angle, _ := m.Orientation()
		if d := math.Abs(angle - math.Mod(a, math.Pi)); d > 0.05 && math.Pi-d > 0.05 {
			t.Errorf("a %v° bar measured at %.1f°", deg, angle*180/math.Pi)
		}
	}
}

// Cluster joins items transitively and keeps the order of each group's first item.
func TestClusterIsSingleLinkage(t *testing.T) {
	got := Cluster([]int{1, 10, 2, 11, 3, 30}, func(v int) (int, int) { return v - 1, v + 1 }, func(a, b int) bool { return a-b <= 1 && b-a <= 1 })
	want := [][]int{{1, 2, 3}, {10, 11}, {30}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if len(got[i]) != len(want[i]) || got[i][0] != want[i][0] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// SquareFilter shrinks a square by its radius on every side and grows it back.
func TestSquareFilterOpensASquare(t *testing.T) {
	const w, h = 20, 20
	m := make([]bool, w*h)
	for y := 5; y < 15; y++ {
		for x := 5; x < 15; x++ {
			m[y*w+x] = true
		}
	}
	m[2*w+2] = true // a speck the opening removes
	shrunk := SquareFilter(m, w, h, 2, true)
	grown := SquareFilter(shrunk, w, h, 2, false)
	for y := range h {
		for x := range w {
			in := x >= 7 && x < 13 && y >= 7 && y < 13
			if shrunk[y*w+x] != in {
				t.Fatalf("shrunk at %d,%d = %v", x, y, shrunk[y*w+x])
			}
			if want := m[y*w+x] && !(x == 2 && y == 2); grown[y*w+x] != want {
				t.Fatalf("opened at %d,%d = %v, want %v", x, y, grown[y*w+x], want)
			}
		}
	}
}

// A tone's lattice is fitted from its dots' centres, and of the dots a stroke touches, those
// stuck to its side are told as the tone's while those it runs through stay the stroke's.
func TestToneDotsStuckToAStroke(t *testing.T) {
	const period, r = 12, 3.0
	var centres [][2]float64
	for j := range 8 {
		for i := range 8 {
			centres = append(centres, [2]float64{float64(2 + i*period), float64(2 + j*period)})
		}
	}
	tone, ok := FitTone(centres, [2]float64{50, 50})
	if !ok {
		t.Fatal("no lattice fitted to a square grid of dots")
	}
	for _, s := range [][2]float64{tone.U, tone.V} {
		if l := math.Hypot(s[0], s[1]); math.Abs(l-period) > 0.01 {
			t.Fatalf("a step of %.2f, want %d", l, period)
		}
	}
	if d := tone.U[0]*tone.V[0] + tone.U[1]*tone.V[1]; math.Abs(d) > 0.01 {
		t.Fatalf("steps %v and %v are not square", tone.U, tone.V)
	}
	ink := func(x, y int) bool {
		if y >= 10 && y < 80 && (x >= 48 && x < 53 || x >= 56 && x < 59) { // two strokes down
			return true
		}
		c, _, _ := tone.Nearest(float64(x), float64(y))
		return math.Hypot(float64(x)-c[0], float64(y)-c[1]) <= r
	}
	stuck := tone.Stuck(r, ink)
	for _, c := range []struct {
		x, y int
		want bool
		what string
	}{
		{50, 38, false, "a dot a stroke runs through"},
		{51, 39, false, "a stroke over a dot"},
		{62, 38, true, "a dot stuck to a stroke's side"},
		{57, 38, false, "the stroke beside it"},
		{26, 38, true, "a dot on its own"},
	} {
		if got := stuck(c.x, c.y); got != c.want {
			t.Errorf("%s (%d,%d): stuck %v, want %v", c.what, c.x, c.y, got, c.want)
		}
	}
}

// Two areas joined by a neck narrower than the opening are two areas, each given back the end
// of the neck beside it; the middle of the neck belongs to neither.
func TestOpenedPartsAreasJoinedByANeck(t *testing.T) {
	const w, h = 30, 10
	m := &Bitmap{W: w, H: h, On: make([]bool, w*h)}
	for y := range h {
		for x := range w {
			m.On[y*w+x] = x < 10 || x >= 16 && x < 26 || y >= 4 && y < 6
		}
	}
	l := Opened(m, 2)
	id := func(x, y int) int32 { return l.ID[y*w+x] }
	if a, b := id(5, 5), id(20, 5); a == 0 || b == 0 || a == b {
		t.Fatalf("the two areas are labelled %d and %d", a, b)
	}
	for _, c := range []struct {
		x    int
		want int32
	}{{10, id(5, 5)}, {11, id(5, 5)}, {12, 0}, {13, 0}, {14, id(20, 5)}, {15, id(20, 5)}, {27, id(20, 5)}, {29, 0}} {
		if got := id(c.x, 4); got != c.want {
			t.Errorf("the neck at x=%d is labelled %d, want %d", c.x, got, c.want)
		}
	}
}

func TestHistMedian(t *testing.T) {
	var hist [256]int
	hist[10], hist[200], hist[250] = 3, 1, 3 // 10 10 10 200 250 250 250
	if got := HistMedian(hist[:], 7); got != 200 {
		t.Errorf("median %d, want 200", got)
	}
	hist[200] = 0 // 10 10 10 250 250 250: the lower middle
	if got := HistMedian(hist[:], 6); got != 10 {
		t.Errorf("median %d, want 10", got)
	}
}

// A grey crop of a soft scan: a stroke whose core is dark and whose edges are grey, and beside
// it a tone's lighter dots, on white. Its cores are the stroke's core alone, in black on white.
func TestCoresKeepTheStrokesCoreAndDropTheDots(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 30, 30))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	for y := 2; y < 28; y++ {
		g.Pix[y*30+9], g.Pix[y*30+13] = 120, 120 // the stroke's soft edges
		for x := 10; x < 13; x++ {
			g.Pix[y*30+x] = 40 + uint8(y%3)*10 // its core
		}
	}
	for y := 3; y < 28; y += 5 {
		g.Pix[y*30+20], g.Pix[y*30+21], g.Pix[y*30+25] = 165, 175, 160 // the dots
	}
	c := Cores(g)
	for y := range 30 {
		for x := range 30 {
			want := uint8(255)
			if y >= 2 && y < 28 && x >= 10 && x < 13 {
				want = 0
			}
			if got := c.Pix[y*30+x]; got != want {
				t.Fatalf("(%d,%d) is %d in the cores of %d, want %d", x, y, got, g.Pix[y*30+x], want)
			}
		}
	}
}

// A black box 40 px wide (of an image 100 px wide) has a core 17 px wide; the outline of a
// character as large, its strokes 6 px thick, has none.
func TestHasCoreTellsAMassFromStrokes(t *testing.T) {
	const stride = 100
	box := image.Rect(30, 20, 70, 80)
	var mass, strokes []int
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			mass = append(mass, y*stride+x)
			if x < box.Min.X+6 || x >= box.Max.X-6 || y < box.Min.Y+6 || y >= box.Max.Y-6 || (y >= 47 && y < 53) {
				strokes = append(strokes, y*stride+x)
			}
		}
	}
	if !HasCore(mass, stride, box, 8) {
		t.Error("a solid box 40 px wide has no core 17 px wide")
	}
	if HasCore(strokes, stride, box, 8) {
		t.Error("strokes 6 px thick hold a core 17 px wide")
	}
}
