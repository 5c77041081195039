package raster

import (
	"image"
	"image/color"
	"testing"
)

// rects is a w by h mask on in the given rectangles.
func rects(w, h int, rs ...image.Rectangle) []bool {
	m := make([]bool, w*h)
	for _, r := range rs {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				m[y*w+x] = true
			}
		}
	}
	return m
}

// A body joined to the rest through a neck narrower than the opening is that body alone; one
// joined across its width, or running on past the window, is none.
func TestBodyOfAnOpening(t *testing.T) {
	const w, h = 100, 100
	body, seed := image.Rect(10, 10, 50, 50), image.Rect(25, 25, 35, 35)
	all := image.Rect(0, 0, w, h)
	never := func(x, y int) bool { return true }
	m := rects(w, h, body, image.Rect(50, 28, 90, 31), image.Rect(88, 0, 92, 100)) // a 3-px neck to a strip
	got := Body(m, w, h, 3, seed, all.Inset(5), never)
	if got == nil {
		t.Fatal("the body behind a narrow neck was not found")
	}
	for i, on := range got {
		if p := image.Pt(i%w, i/w); on != p.In(body) {
			t.Fatalf("(%d,%d) in the body %v, want %v", p.X, p.Y, on, p.In(body))
		}
	}
	wide := rects(w, h, body, image.Rect(50, 10, 80, 50), image.Rect(80, 0, 100, 100))
	if Body(wide, w, h, 3, seed, all.Inset(5), never) != nil {
		t.Error("a body that runs on across its width past the window was taken for one")
	}
	if Body(rects(w, h, image.Rect(30, 30, 32, 32)), w, h, 3, seed, all, never) != nil {
		t.Error("a seed the opening leaves nothing of has a body")
	}
}

// Walking out of a balloon into the gutter its paper runs on into, the run across widens at
// once where the gutter begins; a balloon that narrows and closes does not widen.
func TestWidensWhereTheGutterBegins(t *testing.T) {
	const w, h = 200, 100
	m := rects(w, h, image.Rect(80, 0, 120, 60), image.Rect(0, 60, 200, 80))
	if p, ok := Widens(m, w, image.Pt(100, 10), image.Pt(0, 1), 5, 30); !ok || p.Y != 60 {
		t.Errorf("widened at %v (%v), want at row 60", p, ok)
	}
	closed := rects(w, h, image.Rect(80, 0, 120, 40), image.Rect(90, 40, 110, 50))
	if p, ok := Widens(closed, w, image.Pt(100, 10), image.Pt(0, 1), 5, 30); ok {
		t.Errorf("a closing balloon widened at %v", p)
	}
	if p, ok := Widens(m, w, image.Pt(100, 70), image.Pt(0, -1), 5, 30); ok {
		t.Errorf("walking up out of the gutter into the balloon widened at %v", p)
	}
	// A balloon filled with a tone, whose dots break its paper into short runs: stepping out
	// of them onto clean paper is no frame.
	if p, ok := Widens(m, w, image.Pt(100, 10), image.Pt(0, 1), 5, 50); ok {
		t.Errorf("runs shorter than the lettering across widened at %v", p)
	}
}

// A 。 a few pixels across, scanned soft: a rim of greys, none as dark as ink, round a middle of
// paper. It is a ring; a dot of the same size and greys (darkest in its middle), and a hook open
// on one side, are not.
func TestRingInGrey(t *testing.T) {
	ring := []string{
		"..###.",
		".#o.o#",
		"#o...#",
		"#o..o#",
		".#oo#.",
	}
	dot := []string{
		"..oo..",
		".o##o.",
		"o####o",
		".o##o.",
		"..oo..",
	}
	hook := []string{
		"..###.",
		".#o.o#",
		"#o....",
		"#o..o#",
		".#oo#.",
	}
	for _, c := range []struct {
		name string
		rows []string
		want bool
	}{{"ring", ring, true}, {"dot", dot, false}, {"hook", hook, false}} {
		g := image.NewGray(image.Rect(0, 0, 20, 20))
		for i := range g.Pix {
			g.Pix[i] = 250
		}
		for y, row := range c.rows {
			for x, ch := range row {
				switch ch {
				case '#':
					g.SetGray(7+x, 7+y, color.Gray{Y: 160})
				case 'o':
					g.SetGray(7+x, 7+y, color.Gray{Y: 185})
				}
			}
		}
		if got := RingInGrey(g, image.Rect(7, 7, 13, 12)); got != c.want {
			t.Errorf("%s: a ring %v, want %v", c.name, got, c.want)
		}
	}
}
