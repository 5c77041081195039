package ocr

import (
	"image"
	"image/color"
	"image/draw"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Test pages are drawn by the tests, so the text on them is known exactly.

const (
	notoBold    = "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf"
	notoRegular = "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"
	dejaVuSerif = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"
	dejaVuSans  = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
)

func testFace(t testing.TB, path string, size float64) font.Face {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading test font: %v", err)
	}
	f, err := opentype.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	return face
}

// lettering is a block of text drawn on a test page, centred on Center.
type lettering struct {
	Lines  []string
	Font   string
	Size   float64
	Ink    color.Color
	Center image.Point
}

// drawLettering draws l and returns the box its lines occupy.
func drawLettering(t testing.TB, dst draw.Image, l lettering) image.Rectangle {
	face := testFace(t, l.Font, l.Size)
	m := face.Metrics()
	lh := m.Height.Ceil()
	top := l.Center.Y - lh*len(l.Lines)/2
	d := font.Drawer{Dst: dst, Src: image.NewUniform(l.Ink), Face: face}
	var box image.Rectangle
	for i, s := range l.Lines {
		w := d.MeasureString(s).Ceil()
		x := l.Center.X - w/2
		y := top + i*lh + m.Ascent.Ceil()
		d.Dot = fixed.P(x, y)
		d.DrawString(s)
		r := image.Rect(x, top+i*lh, x+w, top+(i+1)*lh)
		box = box.Union(r)
	}
	return box
}

func fillRect(dst draw.Image, r image.Rectangle, c color.Color) {
	draw.Draw(dst, r, image.NewUniform(c), image.Point{}, draw.Src)
}

// fillEllipse draws a filled ellipse with a dark outline, as a speech bubble.
func fillEllipse(dst *image.RGBA, c image.Point, rx, ry int, fillC, outline color.RGBA) {
	for y := c.Y - ry - 4; y <= c.Y+ry+4; y++ {
		for x := c.X - rx - 4; x <= c.X+rx+4; x++ {
			dx, dy := float64(x-c.X)/float64(rx), float64(y-c.Y)/float64(ry)
			d := dx*dx + dy*dy
			switch {
			case d <= 1:
				dst.SetRGBA(x, y, fillC)
			case d <= 1.03:
				dst.SetRGBA(x, y, outline)
			}
		}
	}
}

// gradient fills dst with a diagonal colour gradient, a background no flat box can match.
func gradient(dst *image.RGBA) {
	b := dst.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			fx, fy := float64(x)/float64(b.Dx()), float64(y)/float64(b.Dy())
			dst.SetRGBA(x, y, color.RGBA{uint8(60 + 150*fx), uint8(120 + 80*fy), uint8(200 - 120*fx*fy), 255})
		}
	}
}

// dumpImage writes img under $VTS_TEST_DUMP when set, for a human to look at.
func dumpImage(t testing.TB, name string, data []byte) {
	dir := os.Getenv("VTS_TEST_DUMP")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+"-"+name), data, 0o644); err != nil {
		t.Logf("dump: %v", err)
	}
}

type testPage struct {
	img *image.RGBA
	// text lists the regions where lettering was drawn; pixels outside them must survive.
	text []image.Rectangle
}

// bubblePage: white speech bubbles on a gradient, with dark lettering in two fonts.
func bubblePage(t testing.TB) testPage {
	img := image.NewRGBA(image.Rect(0, 0, 1000, 1200))
	gradient(img)
	white, black := color.RGBA{255, 255, 255, 255}, color.RGBA{20, 20, 20, 255}
	var p testPage
	p.img = img
	bubbles := []struct {
		c      image.Point
		rx, ry int
		l      lettering
	}{
		{image.Pt(330, 250), 300, 170, lettering{Lines: []string{"I have to find", "my brother."}, Font: notoBold, Size: 48}},
		{image.Pt(640, 700), 320, 170, lettering{Lines: []string{"Where is the", "big house?"}, Font: dejaVuSans, Size: 46}},
	}
	for _, b := range bubbles {
		fillEllipse(img, b.c, b.rx, b.ry, white, black)
		b.l.Center, b.l.Ink = b.c, black
		drawLettering(t, img, b.l)
		p.text = append(p.text, image.Rect(b.c.X-b.rx-6, b.c.Y-b.ry-6, b.c.X+b.rx+6, b.c.Y+b.ry+6))
	}
	return p
}

// captionPage: light lettering on a dark panel and dark lettering on a light one, on one page.
func captionPage(t testing.TB) testPage {
	img := image.NewRGBA(image.Rect(0, 0, 1200, 900))
	fillRect(img, img.Bounds(), color.RGBA{235, 230, 215, 255})
	dark := image.Rect(80, 80, 1120, 400)
	fillRect(img, dark, color.RGBA{25, 30, 60, 255})
	var p testPage
	p.img = img
	r := drawLettering(t, img, lettering{Lines: []string{"The night was cold."}, Font: dejaVuSerif, Size: 64, Ink: color.RGBA{250, 250, 250, 255}, Center: image.Pt(600, 240)})
	p.text = append(p.text, r.Inset(-30))
	r = drawLettering(t, img, lettering{Lines: []string{"My house is green."}, Font: notoRegular, Size: 60, Ink: color.RGBA{30, 30, 30, 255}, Center: image.Pt(600, 640)})
	p.text = append(p.text, r.Inset(-30))
	return p
}

// paragraphPage: a page of running text in one font.
func paragraphPage(t testing.TB) testPage {
	img := image.NewRGBA(image.Rect(0, 0, 1200, 800))
	fillRect(img, img.Bounds(), color.RGBA{255, 255, 255, 255})
	r := drawLettering(t, img, lettering{
		Lines: []string{
			"The children play in the garden",
			"every morning. Their mother",
			"works in the city and their",
			"father writes books at home.",
		},
		Font: notoRegular, Size: 44, Ink: color.RGBA{0, 0, 0, 255}, Center: image.Pt(600, 400),
	})
	return testPage{img: img, text: []image.Rectangle{r.Inset(-40)}}
}
