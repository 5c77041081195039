package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os/exec"
	"strings"

	"golang.org/x/image/draw"
)

// readBack runs the Tesseract CLI (English) on the part r of img,
// scaled up so that lettering of a phone-sized page is large enough to read, on a white
// margin.
type readBack struct {
	path string
}

// minReadWidth is the width a crop is scaled up to (by at most 3×) before reading.
const minReadWidth = 500

func (rb readBack) read(ctx context.Context, img image.Image, r image.Rectangle) (string, error) {
	r = r.Intersect(img.Bounds())
	if r.Empty() {
		return "", nil
	}
	scale := 1.0
	if r.Dx() < minReadWidth {
		scale = min(3, float64(minReadWidth)/float64(r.Dx()))
	}
	w, h := int(float64(r.Dx())*scale), int(float64(r.Dy())*scale)
	const margin = 16
	crop := image.NewGray(image.Rect(0, 0, w+2*margin, h+2*margin))
	draw.Draw(crop, crop.Rect, image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.CatmullRom.Scale(crop, image.Rect(margin, margin, margin+w, margin+h), img, r, draw.Src, nil)
	var buf bytes.Buffer
	if err := png.Encode(&buf, crop); err != nil {
		return "", fmt.Errorf("encoding crop: %w", err)
	}
	// A uniform block (psm 6) reads lettering best; sparse text (psm 11) still finds it when
	// art around the balloon confuses the block layout. Both readings count.
	var texts []string
	for _, psm := range []string{"6", "11"} {
		cmd := exec.CommandContext(ctx, rb.path, "stdin", "stdout", "-l", "eng", "--psm", psm)
		cmd.Stdin = bytes.NewReader(buf.Bytes())
		cmd.Env = oneThreadEnv() // one thread: the crops are small
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("tesseract: %w: %s", err, strings.TrimSpace(stderr.String()))
		}
		texts = append(texts, string(out))
	}
	return strings.Join(texts, "\n"), nil
}

// readCrop is the part of the output page where bubble b's translation should be lettered:
// its balloon, or its box grown by a third of its smaller side (at least 8 pixels) for text
// without one; mapped into out's pixels when out is another size than the source page. A
// column without a balloon, translated into lines across, is lettered wider than the column:
// its crop reaches a third of the column's height to either side.
func readCrop(b balloonBoxes, page, out image.Rectangle) image.Rectangle {
	r := b.Balloon
	if r.Empty() {
		g := max(8, min(b.Box.Dx(), b.Box.Dy())/3)
		r = b.Box.Inset(-g)
		if b.Box.Dy() > 2*b.Box.Dx() {
			r.Min.X, r.Max.X = min(r.Min.X, b.Box.Min.X-b.Box.Dy()/3), max(r.Max.X, b.Box.Max.X+b.Box.Dy()/3)
		}
	}
	sx := float64(out.Dx()) / float64(page.Dx())
	sy := float64(out.Dy()) / float64(page.Dy())
	return scaleRect(r, sx, sy).Intersect(out)
}

type balloonBoxes struct{ Box, Balloon image.Rectangle }
