package letter

import (
	"image"
	"image/color"
	"math/rand/v2"
	"testing"
)

// dotTone is a page of white paper under a dot screentone: round black dots every period.
func dotTone(w, h, period, radius int) *image.RGBA {
	img := blank(w, h, color.RGBA{255, 255, 255, 255})
	for y := range h {
		for x := range w {
			dx, dy := x%period-period/2, y%period-period/2
			if dx*dx+dy*dy <= radius*radius {
				img.SetRGBA(x, y, color.RGBA{0, 0, 0, 255})
			}
		}
	}
	return img
}

// letteredInk is where the lettering of text in t puts ink on plain white paper.
func letteredInk(t *testing.T, f *Fonts, size image.Point, tg Target, text string) []bool {
	t.Helper()
	white := color.RGBA{255, 255, 255, 255}
	img := blank(size.X, size.Y, white)
	f.Block(img, tg, text, "en")
	ink := make([]bool, size.X*size.Y)
	n := 0
	for i := range ink {
		if c := img.RGBAAt(i%size.X, i/size.X); c.R < 160 {
			ink[i], n = true, n+1
		}
	}
	if n == 0 {
		t.Fatal("nothing was lettered")
	}
	return ink
}

// Lettering set over screentone gets a halo of paper around its strokes, as a letterer gives
// text on art, so the tone's dots never touch the letters; the same lettering on plain paper,
// even yellowed and noisy, gets none.
func TestLetteringOverToneHasAHalo(t *testing.T) {
	f := testFonts(t)
	size := image.Pt(360, 240)
	tg := Target{Box: image.Rect(60, 60, 300, 180), Char: 28, Paper: color.RGBA{200, 200, 200, 255}}
	const text = "Hey, what do you think you're doing!?"
	ink := letteredInk(t, f, size, tg, text)
	// The ring: pixels within 2 px of a stroke that are not the stroke itself.
	ring := func(fn func(x, y int)) {
		for y := 2; y < size.Y-2; y++ {
			for x := 2; x < size.X-2; x++ {
				if ink[y*size.X+x] {
					continue
				}
				near := false
				for dy := -2; dy <= 2 && !near; dy++ {
					for dx := -2; dx <= 2 && !near; dx++ {
						near = dx*dx+dy*dy <= 4 && ink[(y+dy)*size.X+x+dx]
					}
				}
				if near {
					fn(x, y)
				}
			}
		}
	}

	toned := dotTone(size.X, size.Y, 8, 2)
	f.Block(toned, tg, text, "en")
	dark, total := 0, 0
	ring(func(x, y int) {
		total++
		if toned.RGBAAt(x, y).R < 128 {
			dark++
		}
	})
	if share := float64(dark) / float64(total); share > 0.01 {
		t.Errorf("%.1f %% of the pixels around the strokes are the tone's dots, want the paper of a halo", 100*share)
	}
	// Without a halo the dots would cover about a fifth of that ring: the test can tell.
	bare := dotTone(size.X, size.Y, 8, 2)
	dots := 0
	ring(func(x, y int) {
		if bare.RGBAAt(x, y).R < 128 {
			dots++
		}
	})
	if float64(dots)/float64(total) < 0.1 {
		t.Fatalf("the tone covers only %d of %d ring pixels; the test cannot tell a halo", dots, total)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	paper := blank(size.X, size.Y, color.RGBA{240, 232, 214, 255})
	for i := 0; i < len(paper.Pix); i += 4 {
		d := uint8(rng.IntN(9))
		paper.Pix[i], paper.Pix[i+1], paper.Pix[i+2] = paper.Pix[i]-d, paper.Pix[i+1]-d, paper.Pix[i+2]-d
	}
	before := image.NewRGBA(paper.Bounds())
	copy(before.Pix, paper.Pix)
	f.Block(paper, tg, text, "en")
	changed := 0
	ring(func(x, y int) {
		if c := paper.RGBAAt(x, y); c.R > 245 && c != before.RGBAAt(x, y) {
			changed++
		}
	})
	if changed > 0 {
		t.Errorf("%d pixels around lettering on plain paper were painted white: plain paper needs no halo", changed)
	}
}

// A translation too long for a small block on the art runs over its box at the readable size,
// and over tone it runs over whole: every stroke it sets on plain paper it sets on the tone, in
// ink, not cut off at the box where its halo ends (the top line of "This time I'll beat you for
// sure!" was cut in half over a tone).
func TestOverflowOverToneIsNotCutOff(t *testing.T) {
	f := testFonts(t)
	size := image.Pt(1650, 1000)
	tg := Target{Box: image.Rect(810, 480, 826, 516), Char: 12, Paper: color.RGBA{255, 255, 255, 255}}
	const text = "This time I'll beat you for sure, whatever it takes!"
	ink := letteredInk(t, f, size, tg, text)
	toned := dotTone(size.X, size.Y, 8, 2)
	f.Block(toned, tg, text, "en")
	outside, lost := 0, 0
	clip := tg.Box.Inset(-tg.Char)
	for i, on := range ink {
		x, y := i%size.X, i/size.X
		if !on || image.Pt(x, y).In(clip) {
			continue
		}
		outside++
		if toned.RGBAAt(x, y).R >= 160 {
			lost++
		}
	}
	if outside == 0 {
		t.Fatal("the lettering did not run over its box: the test needs a longer text")
	}
	if lost > 0 {
		t.Errorf("%d of the %d strokes' pixels set beyond the box on plain paper are missing over the tone", lost, outside)
	}
}
