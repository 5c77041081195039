package clean

import (
	"image"
	"image/color"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
)

// gradientPage is a horizontal gradient from dark to light: art that cleaning must rebuild, not
// cover with one colour.
func gradientPage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(40 + 180*x/w)
			img.SetRGBA(x, y, color.RGBA{v, v / 2, 255 - v, 255})
		}
	}
	return img
}

// Text on art is rebuilt from its surroundings: where a stroke was, the gradient continues.
func TestBlockOnArtRebuildsTheBackground(t *testing.T) {
	want := gradientPage(200, 100)
	img := gradientPage(200, 100)
	box := image.Rect(60, 40, 140, 60)
	ink := page.NewMask(box)
	for y := 45; y < 55; y++ { // a thick stroke across the box
		for x := 65; x < 135; x++ {
			img.SetRGBA(x, y, color.RGBA{0, 0, 0, 255})
			ink.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = true
		}
	}
	Block(img, page.Gray(img), 255, Target{Box: box, Char: 12, Ink: ink})
	for y := 45; y < 55; y++ {
		for x := 65; x < 135; x++ {
			if d := page.ColorDist(img.RGBAAt(x, y), want.RGBAAt(x, y)); d > 12 {
				t.Fatalf("(%d,%d) is %v, want about %v", x, y, img.RGBAAt(x, y), want.RGBAAt(x, y))
			}
		}
	}
}

// Inside a bubble the lettering takes the paper's colour, and the outline outside the bubble's
// area is never touched.
func TestBlockInBubblePaintsPaper(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 100, 100))
	paper := color.RGBA{250, 245, 235, 255}
	black := color.RGBA{0, 0, 0, 255}
	bubble := page.NewMask(image.Rect(10, 10, 90, 90))
	for y := 0; y < 100; y++ {
		for x := 0; x < 100; x++ {
			in := x >= 12 && x < 88 && y >= 12 && y < 88
			c := black // the outline and beyond
			if in {
				c = paper
				bubble.Mask[(y-10)*80+x-10] = true
				bubble.Area++
			}
			img.SetRGBA(x, y, c)
		}
	}
	for y := 40; y < 60; y++ {
		for x := 30; x < 70; x++ {
			img.SetRGBA(x, y, color.RGBA{30, 30, 30, 255})
		}
	}
	Block(img, page.Gray(img), 250, Target{Box: image.Rect(30, 40, 70, 60), Char: 20, Bubble: bubble, Paper: paper})
	for y := 0; y < 100; y++ {
		for x := 0; x < 100; x++ {
			want := black
			if bubble.Has(x, y) {
				want = paper
			}
			if img.RGBAAt(x, y) != want {
				t.Fatalf("(%d,%d) is %v, want %v", x, y, img.RGBAAt(x, y), want)
			}
		}
	}
}

// Glyphs marks the strokes of a word and reads its colours; Fill then removes them.
func TestGlyphsThenFill(t *testing.T) {
	bg := color.RGBA{200, 220, 240, 255}
	red := color.RGBA{200, 20, 20, 255}
	img := image.NewRGBA(image.Rect(0, 0, 80, 40))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = bg.R, bg.G, bg.B, 255
	}
	for y := 15; y < 25; y++ {
		for x := 20; x < 60; x += 4 {
			img.SetRGBA(x, y, red)
			img.SetRGBA(x+1, y, red)
		}
	}
	m := page.NewMask(img.Bounds())
	st := Glyphs(img, m, image.Rect(20, 15, 60, 25))
	if st.Background != bg || st.Ink != red || st.InkPixels != 200 {
		t.Fatalf("stats %+v, want background %v, ink %v, 200 pixels", st, bg, red)
	}
	if m.Has(5, 5) || !m.Has(20, 15) {
		t.Fatal("the mask does not follow the strokes")
	}
	Fill(img, m)
	for y := 0; y < 40; y++ {
		for x := 0; x < 80; x++ {
			if d := page.ColorDist(img.RGBAAt(x, y), bg); d > 2 {
				t.Fatalf("(%d,%d) is %v after filling", x, y, img.RGBAAt(x, y))
			}
		}
	}
}
