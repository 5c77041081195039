package find

import (
	"image"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
)

// column is a block of one column of 20 px characters in box r, its paper area reaching margin
// beyond it on every side.
func column(r image.Rectangle, margin int) *page.Block {
	return &page.Block{Box: r, Vertical: true, Char: 20, Lines: []image.Rectangle{r},
		Ink: page.FullMask(r), Bubble: page.FullMask(r.Inset(-margin))}
}

// Columns of one piece of lettering with a halo each are joined, right to left; columns with a
// balloon each, or set apart, or not level, or of another direction, are not.
func TestJoinHalos(t *testing.T) {
	right, left := image.Rect(200, 100, 220, 200), image.Rect(170, 110, 190, 180)
	joined := joinHalos([]*page.Block{column(left, 5), column(right, 5)}, true)
	if len(joined) != 1 {
		t.Fatalf("%d blocks, want the two haloed columns joined", len(joined))
	}
	j := joined[0]
	if j.Box != left.Union(right) || len(j.Lines) != 2 || j.Lines[0] != right || j.Lines[1] != left {
		t.Errorf("joined as %v with lines %v; want %v, the right column first", j.Box, j.Lines, left.Union(right))
	}
	if !j.Ink.Has(175, 150) || !j.Ink.Has(210, 150) || j.Ink.Has(195, 150) || !j.Bubble.Has(166, 150) || j.Bubble.Area != (30*110+30*80) {
		t.Errorf("joined ink or paper lost a column's or took the gap: ink %d px, paper %d px", j.Ink.Area, j.Bubble.Area)
	}

	horizontal := column(left, 5)
	horizontal.Vertical = false
	for name, pair := range map[string][2]*page.Block{
		"balloons":       {column(left, 20), column(right, 20)},
		"set apart":      {column(left.Sub(image.Pt(40, 0)), 5), column(right, 5)},
		"not level":      {column(left.Add(image.Pt(0, 90)), 5), column(right, 5)},
		"two directions": {horizontal, column(right, 5)},
		"unlike in size": {func() *page.Block {
			narrow := image.Rect(180, 110, 190, 180)
			b := column(narrow, 5)
			b.Char = 10
			return b
		}(), column(right, 5)},
	} {
		if got := joinHalos(pair[:], true); len(got) != 2 {
			t.Errorf("%s: joined", name)
		}
	}
}
