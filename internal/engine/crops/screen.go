package crops

import (
	"image"
	"math"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// Lettering on a coarse screentone: a balloon, a box or a panel filled with dots as large and as
// dark as the strokes' thin parts, which a small soft scan blurs into the strokes. No threshold
// parts them, and no size does either (a dot is a stroke's width across), but the tone repeats
// and the lettering does not: a pixel's tone is what the page shows a whole number of the
// tone's periods away, where the lettering mostly is not, and what is darker than its tone is
// ink. Read so, the tone is gone (皆さん、 on a 4 px tone read 着さん at 0.27, and 皆さん at
// 0.67 descreened).

// Tone is the lattice of the tone around b's lettering, measured beside it, within its balloon
// if it has one (whose tone's dots are darker than dark); ok is false for plain paper, and for
// art or a tone that does not repeat.
func Tone(g *image.Gray, b *page.Block, dark uint8) (raster.Lattice, bool) {
	if b.Light() || b.Bubble != nil && !b.InTone(g, dark) {
		return raster.Lattice{}, false
	}
	around := b.Box.Inset(-b.Char).Intersect(g.Bounds())
	if b.Bubble != nil {
		around = around.Intersect(b.Bubble.Box)
	}
	// The lettering and its soft edges, which do not repeat (its ink, grown by a tenth of a
	// character), and what lies outside its balloon are left out.
	w := around.Dx()
	ink := make([]bool, w*around.Dy())
	for i := range ink {
		ink[i] = b.InkAt(around.Min.X+i%w, around.Min.Y+i/w)
	}
	masked := page.NewMask(around)
	for i, on := range raster.SquareFilter(ink, w, around.Dy(), max(1, b.Char/10), false) {
		masked.Mask[i] = on || !within(b, around.Min.X+i%w, around.Min.Y+i/w)
	}
	return raster.MeasureLattice(g, masked.Has, around)
}

// toneShare is the share of a pixel's tone samples lighter than the tone taken there: the
// lettering darkens some of them (a column's other characters, a kanji's other strokes), never
// lightens any.
const toneShare = 0.7

// Descreened renders line l of b with the tone t around it taken out (Descreen), scaled and
// padded.
func Descreened(g *image.Gray, b *page.Block, l image.Rectangle, t raster.Lattice) *image.Gray {
	return fitted(Descreen(g, b, l, t), b.Char)
}

// Descreen is line l of b with the tone t around it taken out, at the page's size (over l):
// each pixel as much darker than its tone as the line's darkest ink is, in black, as its tone,
// in white. A pixel's tone is read at every whole number of periods away up to a character and a
// half (at most maxSamples of them), within b's balloon if it has one, between pixels.
func Descreen(g *image.Gray, b *page.Block, l image.Rectangle, t raster.Lattice) *image.Gray {
	// A step lands every pixel of the line the same fraction of a pixel off the pixel grid, so
	// its four pixels and their weights are found once.
	type tap struct {
		dx, dy             int
		w00, w10, w01, w11 float64
	}
	var taps []tap
	for _, s := range t.Steps(1.5 * float64(b.Char)) {
		fx, fy := math.Floor(s.D[0]), math.Floor(s.D[1])
		ax, ay := s.D[0]-fx, s.D[1]-fy
		taps = append(taps, tap{int(fx), int(fy), (1 - ax) * (1 - ay), ax * (1 - ay), (1 - ax) * ay, ax * ay})
		if len(taps) == maxSamples {
			break
		}
	}
	// The pixels within reach of the line that may be read: the balloon's, if there is one.
	reach := 2
	for _, tp := range taps {
		reach = max(reach, raster.Abs(tp.dx)+1, raster.Abs(tp.dy)+1)
	}
	area := l.Inset(-reach).Intersect(g.Bounds())
	inside := make([]bool, area.Dx()*area.Dy())
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			inside[(y-area.Min.Y)*area.Dx()+x-area.Min.X] = within(b, x, y)
		}
	}
	usable := func(x, y int) bool {
		return image.Pt(x, y).In(area) && inside[(y-area.Min.Y)*area.Dx()+x-area.Min.X]
	}
	lo := 255
	for y := l.Min.Y; y < l.Max.Y; y++ {
		for _, v := range g.Pix[g.PixOffset(l.Min.X, y):][:l.Dx()] {
			lo = min(lo, int(v))
		}
	}
	src := image.NewGray(l)
	var hist [256]int
	for y := l.Min.Y; y < l.Max.Y; y++ {
		for x := l.Min.X; x < l.Max.X; x++ {
			hist = [256]int{}
			n := 0
			for _, tp := range taps {
				qx, qy := x+tp.dx, y+tp.dy
				if !usable(qx, qy) || !usable(qx+1, qy+1) || !usable(qx+1, qy) || !usable(qx, qy+1) {
					continue
				}
				o := g.PixOffset(qx, qy)
				v := tp.w00*float64(g.Pix[o]) + tp.w10*float64(g.Pix[o+1]) + tp.w01*float64(g.Pix[o+g.Stride]) + tp.w11*float64(g.Pix[o+g.Stride+1])
				hist[int(v+0.5)]++
				n++
			}
			out := 255
			if n >= 4 {
				tone, seen := 255, 0
				for v, c := range hist {
					if seen += c; seen > int(float64(n)*toneShare) {
						tone = v
						break
					}
				}
				ink := float64(tone-int(g.Pix[g.PixOffset(x, y)])) / float64(max(tone-lo, 1))
				out = int(math.Round(255 * (1 - min(max(ink, 0), 1))))
			}
			src.Pix[src.PixOffset(x, y)] = uint8(out)
		}
	}
	return src
}

// maxSamples bounds the samples of a pixel's tone: on a fine tone a character and a half holds
// hundreds of periods, and a hundred and fifty of them tell the tone as well.
const maxSamples = 150

// within reports whether (x, y) lies in b's balloon, or b has none.
func within(b *page.Block, x, y int) bool { return b.Bubble == nil || b.Bubble.Has(x, y) }
