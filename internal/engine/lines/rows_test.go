package lines

import (
	"image"
	"slices"
	"testing"
)

// Rows picks the rows of lettering out of a cluster of pieces that also holds the art they were
// chained to, with the pieces that lie in each row (the marks that end it, a character lower
// than its neighbours), and nothing of a column or of art alone.
func TestRows(t *testing.T) {
	const size, minChar, maxChar = 24, 8, 200
	// The pieces of 你骗我！ over a tone's dots: two characters of two halves each (亻 and 尔),
	// a third whole, then the ！'s bar and dot in a square of their own.
	shout := []image.Rectangle{
		image.Rect(100, 50, 109, 74), image.Rect(111, 50, 124, 73), // 你
		image.Rect(129, 51, 153, 74),                               // 骗
		image.Rect(158, 50, 182, 74),                               // 我
		image.Rect(195, 52, 200, 67), image.Rect(195, 70, 200, 74), // ！
	}
	dots := []image.Rectangle{}
	for x := 90; x < 210; x += 10 {
		dots = append(dots, image.Rect(x, 80, x+4, 84), image.Rect(x+5, 86, x+9, 90))
	}
	hair := image.Rect(40, 30, 96, 130) // the art the shout's 你 touched
	lower := []image.Rectangle{
		image.Rect(300, 50, 324, 74), // 等
		image.Rect(329, 61, 353, 63), // 一, a bar at mid height
		image.Rect(358, 50, 382, 74), // 下
	}
	// 你到底是 and, a line below, 谁 alone.
	twoLines := append(row(500, 50, size, 4), image.Rect(529, 80, 553, 104))

	for _, c := range []struct {
		name  string
		boxes []image.Rectangle
		want  [][]int // indices into boxes, in order
	}{
		{"a shout chained to a tone and hair", slices.Concat(shout, dots, []image.Rectangle{hair}), [][]int{{0, 1, 2, 3, 4, 5}}},
		{"a character lower than its neighbours", lower, [][]int{{0, 1, 2}}},
		{"a line of one character under a row", twoLines, [][]int{{0, 1, 2, 3}, {4}}},
		{"a column", column(700, 50, size, 5), nil},
		{"one character of two halves", shout[:2], nil},
		{"a tone's dots alone", dots, nil},
		{"a lone mass far larger than small lettering", []image.Rectangle{image.Rect(0, 0, 300, 100)}, nil},
	} {
		got := Rows(c.boxes, minChar, maxChar)
		for _, r := range got {
			slices.Sort(r)
		}
		if !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("%s: rows %v, want %v", c.name, got, c.want)
		}
	}
}
