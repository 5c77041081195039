package crops

import (
	"image"
	"image/color"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
)

// A line of light lettering on a dark box is given to Tesseract as dark strokes on white in
// both preparations, as lettering on paper is.
func TestCropOfLightLetteringIsItsNegative(t *testing.T) {
	g, ink := drawn(func(x, y int) (uint8, bool) {
		if x >= 15 && x < 25 && y >= 5 && y < 55 {
			return 235, true // a white stroke
		}
		return 20, false // the box
	})
	line := image.Rect(15, 5, 25, 55)
	b := &page.Block{Box: line, Char: 20, Vertical: true, Ink: ink, Lines: []image.Rectangle{line},
		Paper: color.RGBA{20, 20, 20, 255}}
	for _, reach := range []int{0, 3} {
		soft := reach > 0
		crop := Line(g, b, line, reach, 128)
		c := crop.Bounds()
		if mid := crop.GrayAt((c.Min.X+c.Max.X)/2, (c.Min.Y+c.Max.Y)/2).Y; mid > 60 {
			t.Errorf("soft %v: the stroke's middle is %d in the crop, want dark", soft, mid)
		}
		if corner := crop.GrayAt(c.Min.X+1, c.Min.Y+1).Y; corner < 250 {
			t.Errorf("soft %v: the crop's margin is %d, want white", soft, corner)
		}
	}
}

// Small lettering scanned at a low resolution is grey, and its mask holds only the darkest
// cores of its strokes. The grey preparation takes the rest of a stroke beside the core, through
// ink darker than the paper's edge, and stretches the line so its darkest ink is black; ink
// that the mask does not reach (a stroke of art beside the line) stays out.
func TestGreyCropTakesTheFaintStrokesTheMaskReaches(t *testing.T) {
	g, ink := drawn(func(x, y int) (uint8, bool) {
		switch {
		case x == 20 && y >= 5 && y < 55:
			return 150, true // the faint stroke's core, all the mask holds
		case x >= 17 && x < 24 && y >= 5 && y < 55:
			return 190, false // a faint stroke, darker than the paper's edge (200)
		case x >= 28 && x < 30 && y >= 5 && y < 55:
			return 150, false // art, touching nothing of the line
		}
		return 240, false // the paper
	})
	line := image.Rect(15, 5, 32, 55)
	b := &page.Block{Box: line, Char: 20, Vertical: true, Ink: ink, Lines: []image.Rectangle{line}}
	crop := Line(g, b, line, GreyReach(b), 200)
	at := func(x, y int) uint8 { return pageAt(crop, line, b.Char, x, y) }
	if v := at(20, 27); v > 20 {
		t.Errorf("the darkest ink is %d in the crop, want black", v)
	}
	if v := at(18, 27); v > 200 {
		t.Errorf("the faint side of the stroke is %d in the crop, want it kept", v)
	}
	if v := at(29, 27); v < 250 {
		t.Errorf("art beside the line is %d in the crop, want it left out", v)
	}
}

// On a tone without a halo, the dots touching a stroke are ink next to ink: the usual grey
// preparation reaches them through the stroke's edge and reads them as strokes, where the look
// with a reach of one pixel (the third, for lettering on art) keeps the stroke's edge alone.
func TestGreyCropOnToneWithAReachOfOne(t *testing.T) {
	g, ink := drawn(func(x, y int) (uint8, bool) {
		switch {
		case x >= 18 && x < 22 && y >= 5 && y < 55:
			return 30, true // the stroke, all in the mask
		case x == 22 && y >= 5 && y < 55:
			return 150, false // its soft edge
		case x >= 23 && x < 26 && y >= 25 && y < 28:
			return 60, false // a tone's dot against the edge
		}
		return 240, false
	})
	line := image.Rect(15, 5, 32, 55)
	b := &page.Block{Box: line, Char: 24, Vertical: true, Ink: ink, Lines: []image.Rectangle{line}}
	at := func(crop *image.Gray, x, y int) uint8 { return pageAt(crop, line, b.Char, x, y) }
	usual, one := Line(g, b, line, GreyReach(b), 200), Line(g, b, line, 1, 200)
	if v := at(usual, 24, 26); v > 128 {
		t.Errorf("the usual grey look took the dot as %d, want it dark (the test's premise)", v)
	}
	if v := at(one, 24, 26); v < 250 {
		t.Errorf("the look with a reach of one took the dot as %d, want it left out", v)
	}
	if v := at(one, 22, 40); v > 200 {
		t.Errorf("the look with a reach of one lost the stroke's soft edge: %d", v)
	}
}

// A short column's crop laid out as a row keeps each character whole: the cuts fall in the gaps
// between them, even when the characters are set a little apart, and the row reads left to right
// as the column reads down.
func TestShortColumnAsRow(t *testing.T) {
	pad := ReadPx * 2 / 3
	step := ReadPx + ReadPx/5 // characters set a fifth apart
	col := image.NewGray(image.Rect(0, 0, ReadPx+2*pad, 3*step-ReadPx/5+2*pad))
	for i := range col.Pix {
		col.Pix[i] = 255
	}
	for k := range 3 {
		// character k: a filled box k+1 eighths of a character wide, to tell them apart
		for y := pad + k*step + 4; y < pad+k*step+ReadPx-4; y++ {
			for x := pad + 4; x < pad+4+(k+1)*ReadPx/8; x++ {
				col.Pix[y*col.Stride+x] = 0
			}
		}
	}
	row := AsRow(col)
	if b := row.Bounds(); b.Dx() < 3*ReadPx || b.Dy() > ReadPx+ReadPx/5+2*pad {
		t.Fatalf("the row is %v, want three characters side by side", b)
	}
	// Widths of the runs of ink along the row's middle.
	var runs []int
	y := row.Bounds().Dy() / 2
	for x, in := 0, 0; x <= row.Bounds().Dx(); x++ {
		dark := x < row.Bounds().Dx() && row.GrayAt(x, y).Y < 128
		if dark {
			in++
		} else if in > 0 {
			runs, in = append(runs, in), 0
		}
	}
	if len(runs) != 3 || runs[0] >= runs[1] || runs[1] >= runs[2] {
		t.Errorf("the row's characters are runs %v wide, want three, in the column's order", runs)
	}
}

// In a balloon filled with a coarse tone the ink mask takes in the dots that lie beside the
// strokes, and Tesseract reads them as strokes (終わりだ！ not read at all). Both preparations
// leave out specks far smaller than any mark of the lettering, and keep the smallest marks, a 、
// or a dakuten. On art, where specks are as likely what the art left of a stroke, and in a plain
// balloon, where art rid of them reads as surely as lettering, they stay.
func TestCropLeavesOutATonesDots(t *testing.T) {
	const char = 44
	g := image.NewGray(image.Rect(0, 0, 60, 120))
	ink := page.NewMask(g.Bounds())
	mark := func(r image.Rectangle) {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				g.Pix[y*60+x] = 30
				ink.Mask[y*60+x] = true
			}
		}
	}
	line := image.Rect(8, 5, 52, 110)
	for i := range g.Pix {
		g.Pix[i] = 240
		if x, y := i%60, i/60; !image.Pt(x, y).In(line) && x%6 < 3 && y%6 < 3 {
			g.Pix[i] = 30 // the balloon's tone around the lettering
		}
	}
	stroke, comma := image.Rect(26, 10, 33, 80), image.Rect(36, 90, 42, 96) // a 、 of 6×6 px
	mark(stroke)
	mark(comma)
	dots := []image.Point{{12, 20}, {12, 40}, {44, 30}, {44, 50}, {20, 100}}
	for _, d := range dots {
		mark(image.Rect(d.X, d.Y, d.X+3, d.Y+3)) // a tone's dot, 3×3 px
	}
	b := &page.Block{Box: line, Char: char, Vertical: true, Ink: ink, Lines: []image.Rectangle{line}, Bubble: page.FullMask(g.Bounds())}
	scale := float64(ReadPx) / char
	pad := ReadPx * 2 / 3
	for _, reach := range []int{0, GreyReach(b)} {
		crop := Line(g, b, line, reach, 128)
		at := func(p image.Point) uint8 {
			return crop.GrayAt(pad+int((float64(p.X-line.Min.X)+0.5)*scale), pad+int((float64(p.Y-line.Min.Y)+0.5)*scale)).Y
		}
		for _, d := range dots {
			if v := at(d.Add(image.Pt(1, 1))); v < 200 {
				t.Errorf("reach %d: the dot at %v is %d in the crop, want it left out", reach, d, v)
			}
		}
		if v := at(image.Pt(29, 45)); v > 60 {
			t.Errorf("reach %d: the stroke is %d in the crop, want it kept", reach, v)
		}
		if v := at(image.Pt(39, 93)); v > 60 {
			t.Errorf("reach %d: the 、 is %d in the crop, want it kept", reach, v)
		}
	}
	// On art, and in a plain balloon, the specks stay.
	for _, plain := range []bool{false, true} {
		if b.Bubble = nil; plain {
			for i, v := range g.Pix {
				if x, y := i%60, i/60; v == 30 && !image.Pt(x, y).In(line) {
					g.Pix[i] = 240
				}
			}
			b.Bubble = page.FullMask(g.Bounds())
		}
		crop := Line(g, b, line, 0, 128)
		if v := crop.GrayAt(pad+int((float64(12+1-line.Min.X)+0.5)*scale), pad+int((float64(20+1-line.Min.Y)+0.5)*scale)).Y; v > 60 {
			t.Errorf("plain balloon %v: the speck at (12, 20) is %d in the crop, want it kept", plain, v)
		}
	}
}

// drawn is a 40×60 page whose pixels fill gives, with the mask of those it says are ink.
func drawn(fill func(x, y int) (grey uint8, ink bool)) (*image.Gray, *page.Mask) {
	g := image.NewGray(image.Rect(0, 0, 40, 60))
	m := page.NewMask(g.Bounds())
	for y := range 60 {
		for x := range 40 {
			g.Pix[y*40+x], m.Mask[y*40+x] = fill(x, y)
		}
	}
	return g, m
}

// pageAt is the crop of line (characters char across) at the page's pixel (x, y).
func pageAt(crop *image.Gray, line image.Rectangle, char, x, y int) uint8 {
	scale, pad := float64(ReadPx)/float64(char), ReadPx*2/3
	return crop.GrayAt(pad+int((float64(x-line.Min.X)+0.5)*scale), pad+int((float64(y-line.Min.Y)+0.5)*scale)).Y
}
