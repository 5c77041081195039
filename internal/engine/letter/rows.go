package letter

import (
	"image"
	"image/color"

	"github.com/vtsproject/vts/internal/engine/page"
)

// plainFor reports whether a rectangle of img lies on the page, is all background bg and
// overlaps no block of blocks but block i.
func plainFor(img *image.RGBA, blocks []page.Block, i int, bg color.RGBA) func(image.Rectangle) bool {
	bounds := img.Bounds()
	return func(r image.Rectangle) bool {
		if !r.In(bounds) || r.Empty() {
			return false
		}
		for j, o := range blocks {
			if j != i && r.Overlaps(o.Box) {
				return false
			}
		}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if page.ColorDist(img.RGBAAt(x, y), bg) > 40 {
					return false
				}
			}
		}
		return true
	}
}

// grownBox is the box to letter block i of blocks into when its text was set in rows of height
// lh on background bg (a Latin page): the block's own box, grown into the surrounding background
// (the rest of the bubble) by up to two line heights across and one down where that background is
// plain and no other block lies, so a longer translation keeps a readable size, then inset by a
// small margin.
func grownBox(img *image.RGBA, blocks []page.Block, i int, bg color.RGBA, lh int) image.Rectangle {
	box := blocks[i].Box
	plain := plainFor(img, blocks, i, bg)
	step := max(1, lh/8)
	limitX, limitY := 2*lh, lh
	for grown := 0; grown < limitX; grown += step {
		l := image.Rect(box.Min.X-step, box.Min.Y, box.Min.X, box.Max.Y)
		r := image.Rect(box.Max.X, box.Min.Y, box.Max.X+step, box.Max.Y)
		if !plain(l) || !plain(r) {
			break
		}
		box.Min.X, box.Max.X = l.Min.X, r.Max.X
	}
	for grown := 0; grown < limitY; grown += step {
		t := image.Rect(box.Min.X, box.Min.Y-step, box.Max.X, box.Min.Y)
		b := image.Rect(box.Min.X, box.Max.Y, box.Max.X, box.Max.Y+step)
		if !plain(t) || !plain(b) {
			break
		}
		box.Min.Y, box.Max.Y = t.Min.Y, b.Max.Y
	}
	margin := lh / 6
	if box.Dx() > 4*margin && box.Dy() > 2*margin {
		box = box.Inset(margin)
	}
	return box
}

// roomAcross is the box to letter block i of blocks into when it is a column that no bubble
// holds (free text on the panel's paper) and the translation is set in lines across: a column
// is a poor shape for lines across, which there break every word or two and shrink to fit. The
// box around the column (half a character of margin) grows left and right, each side on its own
// as far as the paper around it is plain (of colour bg), no other block lies and the page's
// margin (a character) is not reached, until it is two thirds as wide as the column is tall; a
// grown side keeps a quarter character off what stopped it.
func roomAcross(img *image.RGBA, blocks []page.Block, i int, bg color.RGBA, char int) image.Rectangle {
	col := blocks[i].Box
	box := col.Inset(-char / 2).Intersect(img.Bounds())
	plainPaper := plainFor(img, blocks, i, bg)
	// Nor into the page's margin, which a letterer leaves to the trim.
	inner := img.Bounds().Inset(char)
	plain := func(r image.Rectangle) bool { return r.In(inner) && plainPaper(r) }
	step := max(1, char/8)
	limit := col.Dy() * 2 / 3
	left, right := true, true
	for (left || right) && box.Dx() < limit {
		if left {
			s := image.Rect(box.Min.X-step, col.Min.Y, box.Min.X, col.Max.Y)
			if left = plain(s); left {
				box.Min.X = s.Min.X
			}
		}
		if right && box.Dx() < limit {
			s := image.Rect(box.Max.X, col.Min.Y, box.Max.X+step, col.Max.Y)
			if right = plain(s); right {
				box.Max.X = s.Max.X
			}
		}
	}
	margin := char / 4
	box.Min.X = min(box.Min.X+margin, max(box.Min.X, col.Min.X-char/2))
	box.Max.X = max(box.Max.X-margin, min(box.Max.X, col.Max.X+char/2))
	return box
}
