package letter

import (
	"image"
	"image/color"

	"github.com/vtsproject/vts/internal/engine/page"
)

// grownBox is the box to letter block i of blocks into when its text was set in rows of height
// lh on background bg (a Latin page): the block's own box, grown into the surrounding background
// (the rest of the bubble) by up to two line heights across and one down where that background is
// plain and no other block lies, so a longer translation keeps a readable size, then inset by a
// small margin.
func grownBox(img *image.RGBA, blocks []page.Block, i int, bg color.RGBA, lh int) image.Rectangle {
	box := blocks[i].Box
	bounds := img.Bounds()
	plain := func(r image.Rectangle) bool {
		if r = r.Intersect(bounds); r.Empty() {
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
	step := max(1, lh/8)
	limitX, limitY := 2*lh, lh
	for grown := 0; grown < limitX; grown += step {
		l := image.Rect(box.Min.X-step, box.Min.Y, box.Min.X, box.Max.Y)
		r := image.Rect(box.Max.X, box.Min.Y, box.Max.X+step, box.Max.Y)
		if l.Min.X < bounds.Min.X || r.Max.X > bounds.Max.X || !plain(l) || !plain(r) {
			break
		}
		box.Min.X, box.Max.X = l.Min.X, r.Max.X
	}
	for grown := 0; grown < limitY; grown += step {
		t := image.Rect(box.Min.X, box.Min.Y-step, box.Max.X, box.Min.Y)
		b := image.Rect(box.Min.X, box.Max.Y, box.Max.X, box.Max.Y+step)
		if t.Min.Y < bounds.Min.Y || b.Max.Y > bounds.Max.Y || !plain(t) || !plain(b) {
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
