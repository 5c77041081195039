package page

import (
	"image"
	"testing"
)

// A block's length in characters comes from its lines and character size, and outside a bubble
// fewer than three characters are not worth reading: on manga pages that is nearly always art.
func TestCharsAndWorthReading(t *testing.T) {
	b := &Block{Box: image.Rect(0, 0, 40, 100), Vertical: true, Char: 20,
		Lines: []image.Rectangle{image.Rect(20, 0, 40, 100), image.Rect(0, 0, 20, 30)}}
	if got := b.Chars(); got != 5+2 {
		t.Fatalf("Chars() = %d, want 7 (a column of five and one of one and a half)", got)
	}
	short := &Block{Box: image.Rect(0, 0, 20, 40), Vertical: true, Char: 20, Lines: []image.Rectangle{image.Rect(0, 0, 20, 40)}}
	if short.WorthReading() {
		t.Error("two characters on art are worth reading")
	}
	short.Bubble = NewMask(image.Rect(0, 0, 50, 50))
	if !short.WorthReading() {
		t.Error("two characters in a bubble are not worth reading")
	}
	if !b.WorthReading() {
		t.Error("seven characters on art are not worth reading")
	}
}

func TestInkWithin(t *testing.T) {
	b := &Block{Box: image.Rect(10, 10, 14, 14), Ink: NewMask(image.Rect(10, 10, 14, 14))}
	b.Ink.Mask[5] = true // (11, 11)
	area := NewMask(image.Rect(0, 0, 12, 12))
	if b.InkWithin(area) {
		t.Error("an area of none of the ink holds it")
	}
	area.Mask[11*12+11] = true
	if !b.InkWithin(area) {
		t.Error("an area of all the ink does not hold it")
	}
	b.Ink.Mask[15] = true // (13, 13), outside the area
	if b.InkWithin(area) {
		t.Error("an area of part of the ink holds it")
	}
}

// A bubble filled with a tone around its lettering is told from a plain one by the tone's dots
// within a character of the lettering; a block without a bubble is in none.
func TestBlockInTone(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 100, 100))
	b := &Block{Box: image.Rect(40, 30, 60, 70), Char: 20, Bubble: FullMask(g.Bounds())}
	for i := range g.Pix {
		g.Pix[i] = 240
	}
	if b.InTone(g, 180) {
		t.Error("a plain balloon is in a tone")
	}
	for i := range g.Pix {
		if x, y := i%100, i/100; x%6 < 2 && y%6 < 2 {
			g.Pix[i] = 40 // dots of a tenth of the paper
		}
	}
	if !b.InTone(g, 180) {
		t.Error("a toned balloon is not in a tone")
	}
	if b.Bubble = nil; b.InTone(g, 180) {
		t.Error("a block without a bubble is in a tone")
	}
}
