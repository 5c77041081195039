package lines

import (
	"image"

	"github.com/vtsproject/vts/internal/engine/raster"
)

// Bars says which of the thin strokes (boxes) are characters of the lines, set vertical or not
// with characters char across: a character that is one thin stroke passes for a speed line in
// the pixels, the long-vowel bar set along the line (upright in a column: the ー of キャー！;
// several in キャーー), the kanji 一 and the strokes of 二 and 三 (across a column, along a row).
// A stroke a character long or a little less, no thicker than a quarter of one, centred on the
// line's axis, within the line or within half a character of its ends (or of a stroke already
// taken), belongs to it. It answers, for each line, the strokes that belong to it.
func Bars(lines []image.Rectangle, vertical bool, char int, boxes []image.Rectangle) [][]int {
	out := make([][]int, len(lines))
	if char <= 0 {
		return out
	}
	taken := make([]bool, len(boxes))
	for k, l := range lines {
		for grown := true; grown; {
			grown = false
			for i, b := range boxes {
				if !taken[i] && isBar(l, b, vertical, char) {
					taken[i], grown, l = true, true, l.Union(b)
					out[k] = append(out[k], i)
				}
			}
		}
	}
	return out
}

// isBar reports whether the stroke b is a character of line l (Bars).
func isBar(l, b image.Rectangle, vertical bool, c int) bool {
	// along and across are the stroke's extent in the line's direction and across it, before
	// and after how far it lies before the line's start and after its end, off its centre's
	// distance from the line's axis, doubled.
	along, across := b.Dy(), b.Dx()
	before, after := l.Min.Y-b.Max.Y, b.Min.Y-l.Max.Y
	off := b.Min.X + b.Max.X - l.Min.X - l.Max.X
	if !vertical {
		along, across = across, along
		before, after = l.Min.X-b.Max.X, b.Min.X-l.Max.X
		off = b.Min.Y + b.Max.Y - l.Min.Y - l.Max.Y
	}
	long := along*10 >= c*5 && along*10 <= c*13 && across*4 <= c
	// Only a column has its 一 across it; a row's stands along it, like its ー.
	wide := vertical && across*10 >= c*5 && across*100 <= c*115 && along*4 <= c
	return (long || wide) && raster.Abs(off)*4 <= c && before*10 <= c*6 && after*10 <= c*6
}
