package page

import (
	"encoding/json"
	"image"
	"slices"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine"
)

// A transcript written before blocks had IDs reads back with IDs in reading order, and the
// model writes it back with the same fields and values: the wire form is the model's.
func TestTranscriptRoundTrip(t *testing.T) {
	old := `{"page":"p1.png","width":40,"height":30,"sourceLang":"ja","targetLang":"en","engine":"ocr",` +
		`"blocks":[{"box":{"x":1,"y":2,"w":10,"h":20},"shape":[{"x":0,"y":0},{"x":5,"y":0},{"x":5,"y":5}],"kind":"bubble","vertical":true,"lang":"ja","source":"こんにちは","translation":"Hello","confidence":0.91},` +
		`{"box":{"x":20,"y":2,"w":5,"h":5},"shape":null,"kind":"free","vertical":false,"lang":"ja","source":"x","translation":"","confidence":0.2}]}`
	var ts engine.Transcript
	if err := json.Unmarshal([]byte(old), &ts); err != nil {
		t.Fatal(err)
	}
	p := FromTranscript(image.NewRGBA(image.Rect(0, 0, 40, 30)), &ts)
	if got := []string{p.Blocks[0].ID, p.Blocks[1].ID}; !slices.Equal(got, []string{"b1", "b2"}) {
		t.Fatalf("IDs %v, want b1 b2", got)
	}
	if p.Blocks[0].Box != image.Rect(1, 2, 11, 22) || p.Blocks[0].Kind != Bubble || !p.Blocks[0].Vertical {
		t.Fatalf("block 0 read as %+v", p.Blocks[0])
	}
	out, err := json.Marshal(p.Transcript())
	if err != nil {
		t.Fatal(err)
	}
	// The old fields come back unchanged; only the block's id is added.
	want := strings.ReplaceAll(old, `"blocks":[{"box"`, `"blocks":[{"id":"b1","box"`)
	want = strings.ReplaceAll(want, `{"box":{"x":20`, `{"id":"b2","box":{"x":20`)
	if string(out) != want {
		t.Fatalf("round trip changed the wire form:\n got %s\nwant %s", out, want)
	}
	// An edited transcript keeps its IDs and statuses.
	p.Blocks[1].Status, p.Blocks[1].Reason = Skipped, "not read with confidence"
	back := FromTranscript(nil, p.Transcript())
	if back.Blocks[1].ID != "b2" || back.Blocks[1].Status != Skipped || back.Blocks[1].Reason != "not read with confidence" {
		t.Fatalf("status lost: %+v", back.Blocks[1])
	}
}

func TestMask(t *testing.T) {
	// A 10×6 mask with its left column and top row off.
	m := &Mask{Box: image.Rect(10, 20, 20, 26), Mask: make([]bool, 60)}
	for y := 1; y < 6; y++ {
		for x := 1; x < 10; x++ {
			m.Mask[y*10+x] = true
			m.Area++
		}
	}
	if m.Has(10, 21) || !m.Has(11, 21) || m.Has(11, 20) || m.Has(25, 25) {
		t.Fatal("Has disagrees with the mask")
	}
	if a, b := m.RowSpan(22); a != 11 || b != 20 {
		t.Fatalf("RowSpan = %d,%d, want 11,20", a, b)
	}
	e := m.Erode(1)
	if e.Area != 7*3 || e.Has(11, 22) || !e.Has(12, 22) {
		t.Fatalf("Erode(1) area %d", e.Area)
	}
	if got := m.Outline(1); len(got) != 10 || got[0] != image.Pt(11, 21) || got[9] != image.Pt(20, 21) {
		t.Fatalf("Outline = %v", got)
	}
	if w := m.Within(image.Rect(0, 0, 12, 23)); w.Box != image.Rect(10, 20, 12, 23) || w.Area != 2 || !w.Has(11, 22) || w.Has(10, 22) {
		t.Fatalf("Within: box %v, area %d", w.Box, w.Area)
	}
	if f := FullMask(image.Rect(1, 2, 4, 6)); f.Area != 12 || !f.Has(3, 5) || f.Has(4, 5) {
		t.Fatalf("FullMask: area %d", f.Area)
	}
}

func TestGray(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 2, 1))
	copy(img.Pix, []uint8{255, 0, 0, 255, 255, 255, 255, 255})
	g := Gray(img)
	if g.Pix[0] != 76 || g.Pix[1] != 255 {
		t.Fatalf("Gray = %v, want [76 255]", g.Pix)
	}
}

// A shape from a transcript is an area again: a right triangle holds half its box, and a point
// on the far side of its hypotenuse is outside.
func TestPolygon(t *testing.T) {
	m := Polygon([]image.Point{{0, 0}, {100, 0}, {0, 100}})
	if m.Box != image.Rect(0, 0, 100, 100) {
		t.Fatalf("box %v", m.Box)
	}
	if m.Area < 4900 || m.Area > 5100 || !m.Has(10, 10) || m.Has(80, 80) {
		t.Fatalf("area %d, has(10,10)=%v has(80,80)=%v", m.Area, m.Has(10, 10), m.Has(80, 80))
	}
	if Polygon([]image.Point{{1, 1}, {5, 5}}) != nil {
		t.Fatal("two points make no area")
	}
}

// Two balloons' lettering on one paper area: each gets the paper nearer its own lettering,
// every pixel of the area goes to one of them, and none to both.
func TestMaskShare(t *testing.T) {
	m := &Mask{Box: image.Rect(0, 0, 100, 40), Mask: make([]bool, 4000), Area: 4000}
	for i := range m.Mask {
		m.Mask[i] = true
	}
	m.Mask[0], m.Area = false, 3999 // a pixel that is no paper goes to nobody
	parts := m.Share([]image.Rectangle{image.Rect(10, 10, 30, 30), image.Rect(70, 10, 90, 30)})
	if len(parts) != 2 || parts[0].Area+parts[1].Area != m.Area {
		t.Fatalf("parts %d, areas %d + %d, want 2 sharing %d", len(parts), parts[0].Area, parts[1].Area, m.Area)
	}
	if !parts[0].Has(45, 20) || parts[1].Has(45, 20) || !parts[1].Has(55, 20) || parts[0].Has(55, 20) || parts[0].Has(0, 0) {
		t.Errorf("the paper between them is not parted at its middle: %v, %v", parts[0].Box, parts[1].Box)
	}
	if parts[0].Box != image.Rect(0, 0, 50, 40) || parts[1].Box != image.Rect(50, 0, 100, 40) {
		t.Errorf("parts %v and %v, want the halves", parts[0].Box, parts[1].Box)
	}
}
