package read

import (
	"image"
	"image/color"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
)

// A line of light lettering on a dark box is given to Tesseract as dark strokes on white in
// both preparations, as lettering on paper is.
func TestCropOfLightLetteringIsItsNegative(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 40, 60))
	ink := page.NewMask(g.Bounds())
	for y := range 60 {
		for x := range 40 {
			g.Pix[y*40+x] = 20 // the box
			if x >= 15 && x < 25 && y >= 5 && y < 55 {
				g.Pix[y*40+x] = 235 // a white stroke
				ink.Mask[y*40+x] = true
			}
		}
	}
	line := image.Rect(15, 5, 25, 55)
	b := &page.Block{Box: line, Char: 20, Vertical: true, Ink: ink, Lines: []image.Rectangle{line},
		Paper: color.RGBA{20, 20, 20, 255}}
	for _, soft := range []bool{false, true} {
		crop := cropFor(g, b, line, soft, 128)
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
// parts of its strokes. The grey preparation takes the rest of a stroke the mask reaches through
// ink darker than the paper's edge, and stretches the line so its darkest ink is black; ink
// that the mask does not reach (a stroke of art beside the line) stays out.
func TestGreyCropTakesTheFaintStrokesTheMaskReaches(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 40, 60))
	ink := page.NewMask(g.Bounds())
	for y := range 60 {
		for x := range 40 {
			g.Pix[y*40+x] = 240 // the paper
			switch {
			case x >= 18 && x < 22 && y >= 5 && y < 55:
				g.Pix[y*40+x] = 190 // a faint stroke, darker than the paper's edge (200)
				if y >= 25 && y < 30 {
					g.Pix[y*40+x] = 150 // the only part the mask holds
					ink.Mask[y*40+x] = true
				}
			case x >= 28 && x < 30 && y >= 5 && y < 55:
				g.Pix[y*40+x] = 150 // art, touching nothing of the line
			}
		}
	}
	line := image.Rect(15, 5, 32, 55)
	b := &page.Block{Box: line, Char: 20, Vertical: true, Ink: ink, Lines: []image.Rectangle{line}}
	crop := cropFor(g, b, line, true, 200)
	scale := float64(readPx) / 20
	pad := readPx * 2 / 3
	at := func(x, y int) uint8 {
		return crop.GrayAt(pad+int(float64(x-line.Min.X)*scale), pad+int(float64(y-line.Min.Y)*scale)).Y
	}
	if v := at(20, 27); v > 20 {
		t.Errorf("the darkest ink is %d in the crop, want black", v)
	}
	if v := at(20, 10); v > 200 {
		t.Errorf("the faint stroke the mask reaches is %d in the crop, want it kept", v)
	}
	if v := at(29, 27); v < 250 {
		t.Errorf("art beside the line is %d in the crop, want it left out", v)
	}
}
