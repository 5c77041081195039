// Package testimage draws the page images tests and benchmarks upload. It depends on nothing of
// the service, so that any package's tests can use it without an import cycle.
package testimage

import (
	"image"
	"image/color"
)

// Pattern is a w×h page with a colour pattern that differs by seed.
func Pattern(w, h int, seed byte) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x*3) + seed, uint8(y * 5), seed * 7, 255})
		}
	}
	return img
}

// Noise is a w×h page of pseudo-random pixels, which barely compresses: a PNG of it takes about
// 4·w·h bytes, which is how tests make large files that are still valid images.
func Noise(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	state := uint32(2463534242)
	for i := range img.Pix {
		state ^= state << 13
		state ^= state >> 17
		state ^= state << 5
		img.Pix[i] = byte(state)
	}
	return img
}
