// Package crops prepares the images Tesseract reads: one line of lettering (a column or a row)
// the way its CJK models read best, only the line's own ink, black on white, scaled so a
// character is ReadPx tall, padded, crisp, in grey, as the page shows it, or without the tone
// around it (screen.go); and a whole Latin page, grey and upscaled where its print is small, or
// a Latin block (page.go).
package crops

import (
	"image"
	"math"

	"golang.org/x/image/draw"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// ReadPx is the character size crops are scaled to. Tesseract's LSTM models see text lines
// normalised to a fixed height; around 48 px they stop losing detail of dense kanji.
const ReadPx = 48

// GreyReach is how far the grey preparation reaches from b's mask: a few pixels, an eighth of a
// character, through the soft edges and faint parts of its strokes.
func GreyReach(b *page.Block) int { return max(2, b.Char/8) }

// Line renders one line (column or row) of b's main lettering on white, scaled and padded.
// Tesseract reads a lone column far better than a block of columns of uneven length, whose
// layout it often misjudges. reach 0 is the crisp preparation, the mask in black; otherwise the
// grey one, the ink reached from the mask through dark pixels within reach steps.
func Line(g *image.Gray, b *page.Block, l image.Rectangle, reach int, inkMax uint8) *image.Gray {
	soft := reach > 0
	src := image.NewGray(l)
	for i := range src.Pix {
		src.Pix[i] = 255
	}
	light := b.Light() // lettering light on a dark box: read its negative
	at := func(x, y int) uint8 {
		if light {
			return 255 - g.GrayAt(x, y).Y
		}
		return g.GrayAt(x, y).Y
	}
	// The grey preparation keeps the strokes' anti-aliasing and their faint parts: the ink
	// reached from the mask through pixels darker than the paper's edge, a few pixels deep,
	// stretched so the line's darkest ink is black and the paper's edge stays where it was.
	// Small lettering scanned at a low resolution is grey, its strokes thinner than a pixel and
	// lighter than the mask takes them, and read at a fifth of its contrast Tesseract loses them.
	// In a balloon filled with a coarse tone neither keeps the specks far smaller than any mark of
	// the lettering (a dakuten's tick or a 、 is several times larger), the tone's dots the mask
	// took in beside the strokes, which Tesseract reads as strokes (終わりだ！ was not read at
	// all). Elsewhere they stay: on art they are as likely what the art left of a stroke, and rid
	// of them, art in a plain balloon reads as surely as lettering (に, 一一).
	ink := grownInk(b, l, reach, func(x, y int) bool { return !soft || at(x, y) < inkMax })
	if !light && b.InTone(g, inkMax) {
		raster.DropSpecks(&raster.Bitmap{W: l.Dx(), H: l.Dy(), On: ink}, b.Char*b.Char/150)
	}
	lo := uint8(255)
	for i, on := range ink {
		if on && soft {
			lo = min(lo, at(l.Min.X+i%l.Dx(), l.Min.Y+i/l.Dx()))
		}
	}
	for i, on := range ink {
		if on && soft {
			v := at(l.Min.X+i%l.Dx(), l.Min.Y+i/l.Dx())
			src.Pix[i] = uint8(int(v-lo) * int(inkMax) / int(inkMax-lo))
		} else if on {
			src.Pix[i] = 0
		}
	}
	out := fitted(src, b.Char)
	if !soft {
		for i, v := range out.Pix {
			if v < 128 {
				out.Pix[i] = 0
			} else {
				out.Pix[i] = 255
			}
		}
	}
	return out
}

// fitted is src scaled so a character of char pixels is ReadPx, padded with white.
func fitted(src *image.Gray, char int) *image.Gray {
	scale := float64(ReadPx) / float64(max(char, 1))
	w := max(1, int(float64(src.Rect.Dx())*scale))
	h := max(1, int(float64(src.Rect.Dy())*scale))
	pad := ReadPx * 2 / 3
	out := image.NewGray(image.Rect(0, 0, w+2*pad, h+2*pad))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	draw.CatmullRom.Scale(out, image.Rect(pad, pad, pad+w, pad+h), src, src.Bounds(), draw.Src, nil)
	return out
}

// Paper renders line l of g as the page shows it, every grey of it, stretched so its darkest
// ink is black and the paper about it white. In a soft scan of small lettering, the thin strokes
// of a character (the bars of 日) are a light grey, lighter than any mask or its grey reach takes
// in: without them 今日 reads 全日, お兄ちゃん お史ちゃん. In a plain balloon the line's box holds
// nothing else, and its lightest fifth is paper: a line's ink never covers most of its box.
func Paper(g *image.Gray, char int, l image.Rectangle) *image.Gray {
	var hist [256]int
	for y := l.Min.Y; y < l.Max.Y; y++ {
		for _, v := range g.Pix[g.PixOffset(l.Min.X, y):][:l.Dx()] {
			hist[v]++
		}
	}
	// at is the grey below which a share of the box's pixels lie, in hundredths.
	at := func(share int) int {
		n, want := 0, l.Dx()*l.Dy()*share/100
		for v, c := range hist {
			if n += c; n > want {
				return v
			}
		}
		return 255
	}
	lo, paper := at(1), at(80)
	// The paper's grain and a JPEG's ringing stay a little darker than the paper: a sixth of
	// the way to the ink is still paper.
	edge := paper - (paper-lo)/6
	src := image.NewGray(l)
	for y := l.Min.Y; y < l.Max.Y; y++ {
		row := src.Pix[src.PixOffset(l.Min.X, y):][:l.Dx()]
		for i, v := range g.Pix[g.PixOffset(l.Min.X, y):][:l.Dx()] {
			row[i] = 255
			if int(v) < edge {
				row[i] = uint8(max(0, (int(v)-lo)*255/max(1, edge-lo)))
			}
		}
	}
	return fitted(src, char)
}

// AsRow lays out the characters of a column's crop side by side, cut where the ink is thinnest
// near each multiple of a character's height: the crop as a row of characters.
func AsRow(col *image.Gray) *image.Gray {
	pad := ReadPx * 2 / 3
	b := col.Bounds()
	w, h := b.Dx()-2*pad, b.Dy()-2*pad
	n := max(1, int(math.Round(float64(h)/(ReadPx*1.05))))
	ink := func(y int) int {
		s := 0
		for x := pad; x < pad+w; x++ {
			s += 255 - int(col.Pix[y*col.Stride+x])
		}
		return s
	}
	cuts := []int{pad}
	for k := 1; k < n; k++ {
		at := pad + k*h/n
		best, least := at, ink(at)
		for y := at - ReadPx/4; y <= at+ReadPx/4; y++ {
			if y > cuts[k-1] && y < pad+h {
				if v := ink(y); v < least {
					best, least = y, v
				}
			}
		}
		cuts = append(cuts, best)
	}
	cuts = append(cuts, pad+h)
	tall := 0
	for k := 1; k < len(cuts); k++ {
		tall = max(tall, cuts[k]-cuts[k-1])
	}
	gap := ReadPx / 6
	out := image.NewGray(image.Rect(0, 0, 2*pad+n*w+(n-1)*gap, 2*pad+tall))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	for k := 0; k < n; k++ {
		x0 := pad + k*(w+gap)
		y0 := pad + (tall-(cuts[k+1]-cuts[k]))/2
		for y := cuts[k]; y < cuts[k+1]; y++ {
			copy(out.Pix[(y0+y-cuts[k])*out.Stride+x0:][:w], col.Pix[y*col.Stride+pad:][:w])
		}
	}
	return out
}

// grownInk is b's ink inside l and what it reaches through dark pixels (dark(x, y)) within
// reach steps, as a mask of l's pixels row by row. The reach is short: a faint stroke's soft
// parts lie beside its core, while a tone's dots touching the lettering lead on and on.
func grownInk(b *page.Block, l image.Rectangle, reach int, dark func(x, y int) bool) []bool {
	w := l.Dx()
	ink := make([]bool, w*l.Dy())
	var front []image.Point
	for y := l.Min.Y; y < l.Max.Y; y++ {
		for x := l.Min.X; x < l.Max.X; x++ {
			if b.InkAt(x, y) && dark(x, y) {
				ink[(y-l.Min.Y)*w+x-l.Min.X] = true
				front = append(front, image.Pt(x, y))
			}
		}
	}
	for ; reach > 0 && len(front) > 0; reach-- {
		var next []image.Point
		for _, p := range front {
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					q := p.Add(image.Pt(dx, dy))
					if i := (q.Y-l.Min.Y)*w + q.X - l.Min.X; q.In(l) && !ink[i] && dark(q.X, q.Y) {
						ink[i] = true
						next = append(next, q)
					}
				}
			}
		}
		front = next
	}
	return ink
}
