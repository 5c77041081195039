package crops

import (
	"image"
	"math"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// tonedBalloon is a balloon filled with a coarse tone, soft round dots as dark as grey 110 on
// a lattice 4.6 px apart (a period of no whole number of pixels), with a column's strokes, grey
// 40 and 3 px wide, drawn over it: a stroke down the line and a bar across it. It returns the
// page, the block of the column, and the line.
func tonedBalloon(withTone bool) (*image.Gray, *page.Block, image.Rectangle) {
	const w, h, period, radius = 160, 200, 4.6, 1.4
	g := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := 235.0
			if withTone {
				cx := math.Round(float64(x)/period) * period
				cy := math.Round(float64(y)/period) * period
				cover := min(max(radius+0.5-math.Hypot(float64(x)-cx, float64(y)-cy), 0), 1)
				v -= (235 - 110) * cover
			}
			g.Pix[y*w+x] = uint8(v)
		}
	}
	ink := page.NewMask(g.Bounds())
	for _, r := range []image.Rectangle{image.Rect(79, 50, 82, 150), image.Rect(68, 98, 94, 101)} {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				g.Pix[y*w+x] = 40
				ink.Mask[y*w+x] = true
			}
		}
	}
	line := image.Rect(66, 48, 96, 152)
	b := &page.Block{Box: line, Char: 26, Vertical: true, Ink: ink, Lines: []image.Rectangle{line}, Bubble: page.FullMask(g.Bounds())}
	return g, b, line
}

// In a balloon filled with a coarse tone, the tone's lattice is measured beside the lettering to
// a fraction of a pixel, and the line read with the tone taken out: the strokes black, even
// where they cross a dot, and the dots between and beside them near white (a sharp dot read
// between pixels is a little lighter than at its centre, so its centre stays a light grey), on
// the paper's side of any threshold between the two, though they are as large as a stroke is
// wide and darker than its soft edges. So too on a toned panel, with no balloon about the
// lettering. Plain paper has no tone.
func TestDescreenedLineKeepsTheStrokesAndDropsTheTone(t *testing.T) {
	g, b, line := tonedBalloon(true)
	tone, ok := Tone(g, b, 128)
	if !ok {
		t.Fatal("no tone found in a balloon filled with one")
	}
	// Each step of the lattice found is one of the tone's, a whole number of 4.6 px across and
	// down, to a tenth of a pixel.
	for _, d := range [][2]float64{tone.A, tone.B} {
		for _, c := range d {
			if k := math.Round(c / 4.6); math.Abs(c-k*4.6) > 0.1 || d == [2]float64{} {
				t.Errorf("the tone's step %v is not one of its lattice's (4.6 px square)", d)
			}
		}
	}
	crop := Descreened(g, b, line, tone)
	for _, p := range []image.Point{{80, 60}, {80, 92}, {80, 140}, {72, 99}, {90, 99}} {
		if v := pageAt(crop, line, b.Char, p.X, p.Y); v > 80 {
			t.Errorf("the stroke at %v is %d in the descreened crop, want black", p, v)
		}
	}
	// The dots' centres in the line, off the strokes and their soft edges.
	dots := 0
	for y := line.Min.Y + 2; y < line.Max.Y-2; y++ {
		for x := line.Min.X + 2; x < line.Max.X-2; x++ {
			if g.Pix[y*g.Stride+x] != 110 || raster.Abs(x-80) < 4 || raster.Abs(y-99) < 4 {
				continue
			}
			dots++
			if v := pageAt(crop, line, b.Char, x, y); v < 170 {
				t.Errorf("the tone's dot at (%d, %d) is %d in the descreened crop, want near white", x, y, v)
			}
		}
	}
	if dots < 40 {
		t.Fatalf("only %d dots checked", dots)
	}
	// Lettering on a toned panel, no balloon about it: the same.
	b.Bubble = nil
	if art, ok := Tone(g, b, 128); !ok || art != tone {
		t.Errorf("on a toned panel the tone is %v (found %v), want %v as in a balloon", art, ok, tone)
	} else if v := pageAt(Descreened(g, b, line, art), line, b.Char, 87, 128); v < 170 {
		t.Errorf("on a toned panel the tone's dot at (87, 128) is %d in the descreened crop, want near white", v)
	}
	if g, b, _ := tonedBalloon(false); func() bool { _, ok := Tone(g, b, 128); return ok }() {
		t.Error("a tone found in a balloon of plain paper")
	}
	if g, b, _ := tonedBalloon(false); func() bool { b.Bubble = nil; _, ok := Tone(g, b, 128); return ok }() {
		t.Error("a tone found around lettering on plain paper")
	}
}
