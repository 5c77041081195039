package ocr

import (
	"fmt"
	"image"

	"golang.org/x/image/draw"
)

// targetSize is the output size for a resolution: "original" keeps the page's size, the others
// scale its long edge to 1024, 2048 or 4096 pixels with the aspect ratio kept.
func targetSize(src image.Rectangle, resolution string) (image.Point, error) {
	w, h := src.Dx(), src.Dy()
	var long int
	switch resolution {
	case "", "original":
		return image.Pt(w, h), nil
	case "1K":
		long = 1024
	case "2K":
		long = 2048
	case "4K":
		long = 4096
	default:
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
