package letter

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"github.com/vtsproject/vts/internal/engine/page"
)

// Lettering over art. Text set straight onto screentone or hatching has dots and lines running
// through its strokes, and a reader loses the letters in them; letterers give such text a halo,
// a band of paper around every stroke. The source lettering usually had one, which the erase
// took away with it, so lettering that lands on a busy background gets its own.

// busyLevels is the spread of grey, as a standard deviation in 8-bit levels, above which a
// background is art rather than paper: flat paper, even yellowed, scanned or JPEG-compressed,
// stays well under it, and a light dot tone or hatching is far over it.
const busyLevels = 18

// busy reports whether the page under the area is textured (tone, hatching, art) rather than
// paper.
func busy(img *image.RGBA, area *page.Mask) bool {
	var n, sum, sq float64
	for y := area.Box.Min.Y; y < area.Box.Max.Y; y++ {
		for x := area.Box.Min.X; x < area.Box.Max.X; x++ {
			if !area.Has(x, y) || !image.Pt(x, y).In(img.Bounds()) {
				continue
			}
			v := float64(page.Luma(img.RGBAAt(x, y)))
			n, sum, sq = n+1, sum+v, sq+v*v
		}
	}
	if n == 0 {
		return false
	}
	mean := sum / n
	return math.Sqrt(max(0, sq/n-mean*mean)) > busyLevels
}

// haloFor is the paper colour of a halo around ink: white around dark ink, black around light.
func haloFor(ink color.RGBA) color.RGBA {
	if luminance(ink) < 0.5 {
		return color.RGBA{255, 255, 255, 255}
	}
	return color.RGBA{0, 0, 0, 255}
}

// drawHaloed letters into dst within r: render draws the text's coverage into a mask, which is
// grown by radius and painted with halo, and the text is then painted with ink over it.
func drawHaloed(dst *image.RGBA, r image.Rectangle, radius int, ink, halo color.RGBA, render func(*image.Alpha)) {
	r = r.Inset(-radius).Intersect(dst.Bounds())
	if r.Empty() {
		return
	}
	text := image.NewAlpha(r)
	render(text)
	draw.DrawMask(dst, r, image.NewUniform(halo), image.Point{}, grow(text, radius), r.Min, draw.Over)
	draw.DrawMask(dst, r, image.NewUniform(ink), image.Point{}, text, r.Min, draw.Over)
}

// grow is the coverage of a dilated by a disc of the radius: each pixel takes the strongest
// coverage within the radius, so the halo keeps the text's anti-aliased edge.
func grow(a *image.Alpha, radius int) *image.Alpha {
	b := a.Bounds()
	// Separable in two passes over a square is a box, not a disc; a disc keeps the halo's
	// corners round, as a letterer's stroke is. The offsets of the disc are few at these radii.
	var offs []image.Point
	for dy := -radius; dy <= radius; dy++ {
		for dx := -radius; dx <= radius; dx++ {
			if dx*dx+dy*dy <= radius*radius {
				offs = append(offs, image.Pt(dx, dy))
			}
		}
	}
	out := image.NewAlpha(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			v := a.AlphaAt(x, y).A
			if v == 0 {
				continue
			}
			for _, o := range offs {
				p := image.Pt(x+o.X, y+o.Y)
				if p.In(b) && out.AlphaAt(p.X, p.Y).A < v {
					out.SetAlpha(p.X, p.Y, color.Alpha{A: v})
				}
			}
		}
	}
	return out
}
