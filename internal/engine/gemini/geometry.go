package gemini

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"slices"

	xdraw "golang.org/x/image/draw"

	"github.com/vtsproject/vts/internal/job"
)

// aspect is a width:height ratio in lowest terms.
type aspect struct{ w, h int }

func (a aspect) String() string { return fmt.Sprintf("%d:%d", a.w, a.h) }

// aspectRatios are the ratios Gemini's image models accept in ImageConfig.AspectRatio. A page
// sent with any other shape comes back in one of these anyway, stretched or re-composed, which
// is what moves lettering off its balloons; so pages are padded to one of them first.
var aspectRatios = []aspect{
	{1, 1}, {2, 3}, {3, 2}, {3, 4}, {4, 3}, {4, 5}, {5, 4}, {9, 16}, {16, 9}, {21, 9},
}

// snapAspect picks the supported ratio nearest to w×h on a log scale, which is the one that
// needs the least padding (the padded area grows by the ratio of the two ratios).
func snapAspect(w, h int) aspect {
	r := math.Log(float64(w) / float64(h))
	best, bestDist := aspectRatios[0], math.Inf(1)
	for _, a := range aspectRatios {
		d := math.Abs(math.Log(float64(a.w)/float64(a.h)) - r)
		if d < bestDist {
			best, bestDist = a, d
		}
	}
	return best
}

// layout is where a page of Size sits inside the padded canvas sent to the model.
type layout struct {
	Canvas  image.Point     // padded size, of exactly (or within a pixel of) the snapped ratio
	Content image.Rectangle // the page inside the canvas, centred
}

// padLayout grows w×h along one axis only, so that the page keeps every pixel and its scale.
// Centring keeps the page where the model expects a page to be and splits the plain border
// over two sides, so neither side gets a margin wide enough to invite new content.
func padLayout(w, h int, a aspect) layout {
	cw, ch := w, h
	if w*a.h < h*a.w { // page is narrower than the ratio: widen it
		cw = (h*a.w + a.h - 1) / a.h
	} else { // page is wider (or equal): heighten it
		ch = (w*a.h + a.w - 1) / a.w
	}
	off := image.Pt((cw-w)/2, (ch-h)/2)
	return layout{
		Canvas:  image.Pt(cw, ch),
		Content: image.Rectangle{Min: off, Max: off.Add(image.Pt(w, h))},
	}
}

// padded reports whether the layout adds any border.
func (l layout) padded() bool { return l.Canvas != l.Content.Size() }

// pad draws src centred on a canvas filled with its edge colour.
func pad(src image.Image, l layout) image.Image {
	if !l.padded() {
		return src
	}
	dst := image.NewRGBA(image.Rectangle{Max: l.Canvas})
	draw.Draw(dst, dst.Bounds(), image.NewUniform(edgeColour(src, l.Canvas.X > l.Content.Dx())), image.Point{}, draw.Src)
	draw.Draw(dst, l.Content, src, src.Bounds().Min, draw.Over)
	return dst
}

// edgeColour is the mean colour of the two edges the padding will touch when those edges are
// nearly uniform (a page's paper or a flat background), so the page seems simply larger; for
// artwork that runs off the edge it is white, since continuing a busy edge in a flat colour
// looks like a frame either way and white is what a printed page's margin is.
func edgeColour(img image.Image, vertical bool) color.Color {
	b := img.Bounds()
	var samples []color.RGBA
	add := func(x, y int) {
		r, g, bl, a := img.At(x, y).RGBA()
		// Composite over white, so transparent edges pad white rather than black.
		inv := 0xffff - a
		samples = append(samples, color.RGBA{
			R: uint8((r + inv) >> 8), G: uint8((g + inv) >> 8), B: uint8((bl + inv) >> 8), A: 0xff,
		})
	}
	if vertical {
		step := max(1, b.Dy()/512)
		for y := b.Min.Y; y < b.Max.Y; y += step {
			add(b.Min.X, y)
			add(b.Max.X-1, y)
		}
	} else {
		step := max(1, b.Dx()/512)
		for x := b.Min.X; x < b.Max.X; x += step {
			add(x, b.Min.Y)
			add(x, b.Max.Y-1)
		}
	}
	var sum [3]int
	for _, s := range samples {
		sum[0] += int(s.R)
		sum[1] += int(s.G)
		sum[2] += int(s.B)
	}
	n := len(samples)
	mean := color.RGBA{R: uint8(sum[0] / n), G: uint8(sum[1] / n), B: uint8(sum[2] / n), A: 0xff}
	const tolerance = 24
	var inSum [3]int
	near := 0
	for _, s := range samples {
		if absDiff(s.R, mean.R) <= tolerance && absDiff(s.G, mean.G) <= tolerance && absDiff(s.B, mean.B) <= tolerance {
			near++
			inSum[0] += int(s.R)
			inSum[1] += int(s.G)
			inSum[2] += int(s.B)
		}
	}
	if near*100 >= n*95 {
		// The paper's own colour, without the specks of ink that touch the edge.
		return color.RGBA{R: uint8(inSum[0] / near), G: uint8(inSum[1] / near), B: uint8(inSum[2] / near), A: 0xff}
	}
	return color.White
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// unpad cuts the page out of the model's answer. The answer's size is the model's own (its
// pixel grid for the ratio, not always exactly the ratio), so the content rectangle is scaled
// per axis rather than by one factor.
func unpad(out image.Image, l layout) image.Image {
	if !l.padded() {
		return out
	}
	b := out.Bounds()
	sx := float64(b.Dx()) / float64(l.Canvas.X)
	sy := float64(b.Dy()) / float64(l.Canvas.Y)
	r := image.Rect(
		b.Min.X+int(math.Round(float64(l.Content.Min.X)*sx)),
		b.Min.Y+int(math.Round(float64(l.Content.Min.Y)*sy)),
		b.Min.X+int(math.Round(float64(l.Content.Max.X)*sx)),
		b.Min.Y+int(math.Round(float64(l.Content.Max.Y)*sy)),
	).Intersect(b)
	if si, ok := out.(interface {
		SubImage(image.Rectangle) image.Image
	}); ok {
		return si.SubImage(r)
	}
	dst := image.NewRGBA(image.Rectangle{Max: r.Size()})
	draw.Draw(dst, dst.Bounds(), out, r.Min, draw.Src)
	return dst
}

// resize scales img to w×h; it returns img itself when it already has that size.
func resize(img image.Image, w, h int) image.Image {
	if b := img.Bounds(); b.Dx() == w && b.Dy() == h {
		return img
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), img, img.Bounds(), xdraw.Src, nil)
	return dst
}

// fitLongEdge scales w×h down (never up) so that its longer side is at most edge.
func fitLongEdge(w, h, edge int) (int, int) {
	long := max(w, h)
	if long <= edge {
		return w, h
	}
	s := float64(edge) / float64(long)
	return max(1, int(math.Round(float64(w)*s))), max(1, int(math.Round(float64(h)*s)))
}

// withLongEdge scales w×h so that its long edge is edge, keeping its shape.
func withLongEdge(w, h, edge int) (int, int) {
	s := float64(edge) / float64(max(w, h))
	return max(1, int(math.Round(float64(w)*s))), max(1, int(math.Round(float64(h)*s)))
}

// imageSizes are the resolutions that are ImageConfig.ImageSize values too, smallest first.
var imageSizes = []job.Resolution{job.Res1K, job.Res2K, job.Res4K}

// imageSizeFor maps a resolution to ImageConfig.ImageSize. "original" takes the size nearest to
// the source's long edge on a log scale, so a 1500 px page asks for 2K rather than losing
// detail at 1K, and only pages beyond ~2900 px ask for the costly 4K.
func imageSizeFor(resolution job.Resolution, w, h int) (string, error) {
	if resolution != job.Original && resolution != "" {
		if slices.Contains(imageSizes, resolution) {
			return string(resolution), nil
		}
		return "", fmt.Errorf("unknown resolution %q", resolution)
	}
	long := math.Log(float64(max(w, h)))
	best, bestDist := job.Resolution(""), math.Inf(1)
	for _, s := range imageSizes {
		if d := math.Abs(math.Log(float64(s.LongEdge())) - long); d < bestDist {
			best, bestDist = s, d
		}
	}
	return string(best), nil
}
