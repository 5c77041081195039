package crops

import (
	"image"
	"image/color"

	"golang.org/x/image/draw"

	"github.com/vtsproject/vts/internal/engine/page"
)

// View is the grayscale image given to Tesseract and how it maps back to the page.
type View struct {
	Gray *image.Gray
	// Scale is OCR pixels per page pixel.
	Scale float64
}

// Prepare converts the page to grayscale and upscales it when its text is likely too small for
// Tesseract, which reads best with x-heights of 20 pixels or more; best upscales more pages,
// for small print.
func Prepare(img *image.RGBA, best bool) View {
	b := img.Bounds()
	long := max(b.Dx(), b.Dy())
	scale := 1.0
	switch {
	case best && long < 3000:
		scale = 2
	case long < 1200:
		scale = 2
	}
	gray := page.Gray(img)
	if scale == 1 {
		return View{Gray: gray, Scale: 1}
	}
	up := image.NewGray(image.Rect(0, 0, int(float64(b.Dx())*scale), int(float64(b.Dy())*scale)))
	draw.CatmullRom.Scale(up, up.Bounds(), gray, b, draw.Src, nil)
	return View{Gray: up, Scale: scale}
}

// Inverted returns the negative of g, so that light-on-dark lettering becomes the dark-on-light
// text Tesseract's recogniser was trained on.
func Inverted(g *image.Gray) *image.Gray {
	out := image.NewGray(g.Bounds())
	for i, v := range g.Pix {
		out.Pix[i] = 255 - v
	}
	return out
}

// MostlyDark reports whether the median pixel of g is dark: the page is light text on a dark
// background, and a single OCR pass should read the inverted image.
func MostlyDark(g *image.Gray) bool {
	var hist [256]int
	for _, v := range g.Pix {
		hist[v]++
	}
	half, n := len(g.Pix)/2, 0
	for v, c := range hist {
		n += c
		if n >= half {
			return v < 110
		}
	}
	return false
}

// latinLinePx is the least line height a Latin crop is read at; smaller lettering is enlarged.
const latinLinePx = 32

// LatinBlock renders b's lettering black on white, enlarged when its lines are small, padded.
func LatinBlock(g *image.Gray, b *page.Block) *image.Gray {
	src := image.NewGray(b.Box)
	for i := range src.Pix {
		src.Pix[i] = 255
	}
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if b.InkAt(x, y) {
				src.SetGray(x, y, color.Gray{})
			}
		}
	}
	scale := max(1, float64(latinLinePx)/float64(max(b.Char, 1)))
	w, h := int(float64(b.Box.Dx())*scale), int(float64(b.Box.Dy())*scale)
	pad := latinLinePx
	out := image.NewGray(image.Rect(0, 0, w+2*pad, h+2*pad))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	draw.CatmullRom.Scale(out, image.Rect(pad, pad, pad+w, pad+h), src, src.Bounds(), draw.Src, nil)
	return out
}
