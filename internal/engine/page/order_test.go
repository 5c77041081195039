package page

import (
	"image"
	"slices"
	"testing"
)

// Blocks are read in rows top to bottom, a block sharing a row with another when their heights
// overlap by half the shorter; within a row, right to left on a Japanese page (a balloon to the
// right is read first even when it starts lower) and left to right otherwise.
func TestOrderReadsRowsThenAcross(t *testing.T) {
	blocks := func() []*Block {
		return []*Block{
			{ID: "low-left", Box: image.Rect(10, 300, 60, 400)},
			{ID: "top-left", Box: image.Rect(10, 20, 60, 120)},
			{ID: "top-right", Box: image.Rect(200, 40, 260, 140)}, // lower than top-left, same row
			{ID: "low-right", Box: image.Rect(200, 290, 260, 330)},
		}
	}
	ids := func(bs []*Block) []string {
		var out []string
		for _, b := range bs {
			out = append(out, b.ID)
		}
		return out
	}
	rtl := blocks()
	Order(rtl, true)
	if got, want := ids(rtl), []string{"top-right", "top-left", "low-right", "low-left"}; !slices.Equal(got, want) {
		t.Errorf("right to left: %v, want %v", got, want)
	}
	ltr := blocks()
	Order(ltr, false)
	if got, want := ids(ltr), []string{"top-left", "top-right", "low-left", "low-right"}; !slices.Equal(got, want) {
		t.Errorf("left to right: %v, want %v", got, want)
	}
}
