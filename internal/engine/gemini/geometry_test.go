package gemini

import (
	"image"
	"image/color"
	"testing"

	"github.com/vtsproject/vts/internal/job"
)

func TestSnapAspect(t *testing.T) {
	cases := []struct {
		w, h int
		want string
	}{
		{1000, 1000, "1:1"}, {1000, 1500, "2:3"}, {1200, 1700, "2:3"}, {1240, 1754, "2:3"}, // A4 at 150 dpi
		{900, 1200, "3:4"}, {800, 1000, "4:5"}, {720, 1280, "9:16"}, {500, 1200, "9:16"},
		{1920, 1080, "16:9"}, {2560, 1080, "21:9"}, {4000, 1000, "21:9"}, {1500, 1000, "3:2"},
	}
	for _, c := range cases {
		if got := snapAspect(c.w, c.h).String(); got != c.want {
			t.Errorf("snapAspect(%d, %d) = %s, want %s", c.w, c.h, got, c.want)
		}
	}
}

func TestPadLayout(t *testing.T) {
	for _, c := range []struct{ w, h int }{{300, 500}, {500, 300}, {1240, 1754}, {777, 333}, {1, 1000}, {1000, 1}, {640, 640}} {
		a := snapAspect(c.w, c.h)
		l := padLayout(c.w, c.h, a)
		if l.Content.Size() != image.Pt(c.w, c.h) {
			t.Errorf("%dx%d: content %v has the wrong size", c.w, c.h, l.Content)
		}
		if !l.Content.In(image.Rectangle{Max: l.Canvas}) {
			t.Errorf("%dx%d: content %v outside canvas %v", c.w, c.h, l.Content, l.Canvas)
		}
		if l.Canvas.X != c.w && l.Canvas.Y != c.h {
			t.Errorf("%dx%d: both axes padded: %v", c.w, c.h, l.Canvas)
		}
		// Within one pixel of the ratio: |W*ah - H*aw| < max(aw, ah).
		if d := l.Canvas.X*a.h - l.Canvas.Y*a.w; d < -max(a.w, a.h) || d > max(a.w, a.h) {
			t.Errorf("%dx%d: canvas %v is not %s", c.w, c.h, l.Canvas, a)
		}
		// Centred: the two margins differ by at most a pixel.
		left, right := l.Content.Min.X, l.Canvas.X-l.Content.Max.X
		top, bottom := l.Content.Min.Y, l.Canvas.Y-l.Content.Max.Y
		if right-left > 1 || left > right || bottom-top > 1 || top > bottom {
			t.Errorf("%dx%d: margins l%d r%d t%d b%d", c.w, c.h, left, right, top, bottom)
		}
	}
}

func TestEdgeColour(t *testing.T) {
	cream := color.RGBA{250, 245, 230, 255}
	img := image.NewRGBA(image.Rect(0, 0, 200, 300))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = cream.R, cream.G, cream.B, 255
	}
	// A little ink touching the edge does not stop paper from being paper.
	img.SetRGBA(0, 10, color.RGBA{0, 0, 0, 255})
	if got := edgeColour(img, true); got != cream {
		t.Errorf("uniform paper: %v, want %v", got, cream)
	}
	for y := range 300 {
		if y%2 == 0 {
			img.SetRGBA(0, y, color.RGBA{0, 0, 0, 255})
		}
	}
	if got := edgeColour(img, true); got != color.White {
		t.Errorf("busy edge: %v, want white", got)
	}
	// Transparent paper pads white, not black.
	clear := image.NewNRGBA(image.Rect(0, 0, 10, 10))
	if got := edgeColour(clear, false); got != (color.RGBA{255, 255, 255, 255}) {
		t.Errorf("transparent edge: %v, want white", got)
	}
}

func TestUnpadScalesPerAxis(t *testing.T) {
	l := padLayout(300, 500, aspect{9, 16}) // canvas 300x534, content at y 17..517
	out := image.NewRGBA(image.Rect(0, 0, 768, 1344))
	got := unpad(out, l).Bounds()
	want := image.Rect(0, 43, 768, 1301) // 17*1344/534 = 42.8, 517*1344/534 = 1301.2
	if got != want {
		t.Errorf("unpad = %v, want %v", got, want)
	}
	if same := unpad(out, padLayout(768, 1344, aspect{4, 7})); same.Bounds() != out.Bounds() {
		// 768x1344 is exactly 4:7, so there is nothing to cut.
		t.Errorf("unpadded layout cut to %v", same.Bounds())
	}
}

func TestImageSizeFor(t *testing.T) {
	cases := []struct {
		res  job.Resolution
		w, h int
		want string
	}{
		{"original", 800, 1200, "1K"}, {"original", 1000, 1400, "1K"}, {"original", 1000, 1500, "2K"},
		{"original", 2000, 2800, "2K"}, {"original", 2000, 3000, "4K"}, {"", 5000, 7000, "4K"},
		{"1K", 5000, 7000, "1K"}, {"2K", 10, 10, "2K"}, {"4K", 10, 10, "4K"},
	}
	for _, c := range cases {
		got, err := imageSizeFor(c.res, c.w, c.h)
		if err != nil || got != c.want {
			t.Errorf("imageSizeFor(%q, %d, %d) = %q, %v; want %q", c.res, c.w, c.h, got, err, c.want)
		}
	}
	if _, err := imageSizeFor("8K", 1, 1); err == nil {
		t.Error("8K accepted")
	}
}

func TestFitLongEdge(t *testing.T) {
	if w, h := fitLongEdge(6000, 3000, 3072); w != 3072 || h != 1536 {
		t.Errorf("got %dx%d", w, h)
	}
	if w, h := fitLongEdge(100, 50, 3072); w != 100 || h != 50 {
		t.Errorf("upscaled to %dx%d", w, h)
	}
}
