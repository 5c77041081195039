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
