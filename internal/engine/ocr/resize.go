package ocr

import (
	"fmt"
	"image"

	"golang.org/x/image/draw"

	"github.com/vtsproject/vts/internal/job"
)

// targetSize is the output size for a resolution: "original" keeps the page's size, the others
// scale its long edge to the resolution's with the aspect ratio kept.
func targetSize(src image.Rectangle, resolution job.Resolution) (image.Point, error) {
	w, h := src.Dx(), src.Dy()
	if resolution == "" || resolution == job.Original {
		return image.Pt(w, h), nil
	}
	long := resolution.LongEdge()
	if long == 0 {
		return image.Point{}, fmt.Errorf("unknown resolution %q", resolution)
	}
	if w >= h {
		return image.Pt(long, max(1, (h*long+w/2)/w)), nil
	}
	return image.Pt(max(1, (w*long+h/2)/h), long), nil
}

// toRGBA returns the page as a fresh RGBA image of the given size. Everything after decoding
// works at the output resolution, so lettering is drawn sharp rather than scaled afterwards.
func toRGBA(src image.Image, size image.Point) *image.RGBA {
	dst := image.NewRGBA(image.Rectangle{Max: size})
	if src.Bounds().Size() == size {
		draw.Draw(dst, dst.Bounds(), src, src.Bounds().Min, draw.Src)
		return dst
	}
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	return dst
}
