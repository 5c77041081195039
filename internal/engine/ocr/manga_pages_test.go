package ocr

import (
	"image"
	"image/color"
	"math"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
)

// Japanese test lettering: vertical columns, right to left, in real Japanese fonts.

const (
	ipaMincho = "/usr/share/fonts/opentype/ipafont-mincho/ipam.ttf"
	ipaGothic = "/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf"
)

// verticalText draws columns right to left starting with the right edge at right, top at top;
// it returns the box of the ink.
func verticalText(t testing.TB, dst *image.RGBA, cols []string, fontPath string, size float64, right, top int) image.Rectangle {
	face := testFace(t, fontPath, size)
	pitch := int(size * 1.5)
	d := font.Drawer{Dst: dst, Src: image.NewUniform(color.RGBA{10, 10, 10, 255}), Face: face}
	var box image.Rectangle
	for i, col := range cols {
		x := right - (i+1)*pitch + (pitch-int(size))/2
		y := top
		for _, r := range col {
			adv, _ := face.GlyphAdvance(r)
			dx := (int(size) - adv.Round()) / 2
			d.Dot = fixed.P(x+dx, y+int(size*0.88))
			d.DrawString(string(r))
			box = box.Union(image.Rect(x, y, x+int(size), y+int(size)))
			y += int(size * 1.05)
		}
	}
	return box
}

// screentone fills r with dots of the given pitch, as printed tone.
func screentone(dst *image.RGBA, r image.Rectangle, pitch int, radius float64) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cx := float64(x%pitch) - float64(pitch)/2
			cy := float64(y%pitch) - float64(pitch)/2
			if math.Hypot(cx, cy) <= radius {
				dst.SetRGBA(x, y, color.RGBA{30, 30, 30, 255})
			}
		}
	}
}

type mangaBubble struct {
	cols   []string
	font   string
	size   float64
	center image.Point
	rx, ry int
}

// mangaPage draws a page with tone and hatching and vertical Japanese in white bubbles; it
// returns the page and each bubble's text box.
func mangaPage(t testing.TB, w, h int, bubbles []mangaBubble) (*image.RGBA, []image.Rectangle) {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	fillRect(img, img.Bounds(), color.RGBA{250, 250, 248, 255})
	screentone(img, image.Rect(20, 20, w-20, h/2), 6, 1.6)
	for x := 0; x < w; x += 9 { // hatching in the lower half
		for y := h / 2; y < h-20; y++ {
			if (x+y)%9 < 2 {
				img.SetRGBA(x, y, color.RGBA{20, 20, 20, 255})
			}
		}
	}
	var boxes []image.Rectangle
	for _, b := range bubbles {
		fillEllipse(img, b.center, b.rx, b.ry, color.RGBA{255, 255, 255, 255}, color.RGBA{0, 0, 0, 255})
		pitch := int(b.size * 1.5)
		right := b.center.X + len(b.cols)*pitch/2
		longest := 0
		for _, c := range b.cols {
			longest = max(longest, len([]rune(c)))
		}
		top := b.center.Y - int(float64(longest)*b.size*1.05)/2
		boxes = append(boxes, verticalText(t, img, b.cols, b.font, b.size, right, top))
	}
	return img, boxes
}

var sampleBubbles = []mangaBubble{
	{cols: []string{"お前は", "何者だ？"}, font: ipaMincho, size: 34, center: image.Pt(760, 260), rx: 110, ry: 150},
	{cols: []string{"私の名前は", "田中です。"}, font: ipaGothic, size: 30, center: image.Pt(300, 330), rx: 110, ry: 150},
	{cols: []string{"ここから", "逃げよう！"}, font: ipaGothic, size: 32, center: image.Pt(640, 950), rx: 115, ry: 160},
}

func sampleMangaPage(t testing.TB) (*image.RGBA, []image.Rectangle) {
	return mangaPage(t, 1000, 1400, sampleBubbles)
}

// inBubble reports whether p lies inside one of the sample page's bubbles, outline excluded.
func inBubble(p image.Point) bool {
	for _, b := range sampleBubbles {
		dx, dy := float64(p.X-b.center.X)/float64(b.rx), float64(p.Y-b.center.Y)/float64(b.ry)
		if dx*dx+dy*dy < 1 {
			return true
		}
	}
	return false
}
