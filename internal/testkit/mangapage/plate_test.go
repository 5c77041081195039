package mangapage

import (
	"bytes"
	"image"
	"testing"
)

// The plate is the page a perfect erase leaves: the same page (the same noise, paper and JPEG)
// wherever no dialogue was lettered, the lettering gone where it was, and asking for it
// changes nothing of the page.
func TestPlateIsThePageWithoutItsDialogue(t *testing.T) {
	for _, c := range []struct {
		seed int64
		opt  Options
	}{{3, Options{Format: "png"}}, {4, Options{Format: "jpeg"}}, {20, Options{Hard: true}}, {10, Options{Harsh: true}}} {
		plain, err := Generate(c.seed, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		c.opt.Plate = true
		p, err := Generate(c.seed, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p.Encoded, plain.Encoded) || plain.Plate != nil {
			t.Fatalf("seed %d: asking for the plate changed the page", c.seed)
		}
		if p.Plate == nil || p.Plate.Bounds() != p.Image.Bounds() {
			t.Fatalf("seed %d: plate %v for a page of %v", c.seed, p.Plate, p.Image.Bounds())
		}
		// JPEG spreads a change over its 8×8 blocks (16×16 for chroma), and a halo reaches past
		// the glyphs' box: away from them the plate is the page.
		near := func(x, y int) bool {
			for _, b := range p.Bubbles {
				if b.Dialogue() && image.Pt(x, y).In(b.Box.Inset(-b.Box.Dy()/4-b.Box.Dx()/4-24)) {
					return true
				}
			}
			return false
		}
		b := p.Image.Bounds()
		same, far := 0, 0
		for y := b.Min.Y; y < b.Max.Y; y += 3 {
			for x := b.Min.X; x < b.Max.X; x += 3 {
				if !near(x, y) {
					far++
					if luminance(p.Image, x, y) == luminance(p.Plate, x, y) {
						same++
					}
				}
			}
		}
		if same != far {
			t.Errorf("seed %d: %d of %d pixels away from the dialogue differ from the page", c.seed, far-same, far)
		}
		// Where a glyph's core was, the plate shows what was under it, not the glyph: on
		// paper, far lighter (in a black caption box, far darker).
		for _, bb := range p.Bubbles {
			if !bb.Dialogue() || bb.Ink == nil || bb.Balloon.Empty() {
				continue
			}
			n, gone := 0, 0
			r := bb.Ink.Rect
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					if bb.Ink.Pix[bb.Ink.PixOffset(x, y)] < 250 {
						continue
					}
					n++
					if d := luminance(p.Plate, x, y) - luminance(p.Image, x, y); d > 60 || d < -60 {
						gone++
					}
				}
			}
			if n > 0 && gone*10 < n*9 {
				t.Errorf("seed %d: %q: the plate differs at %d of %d of its glyphs' pixels", c.seed, bb.Text, gone, n)
			}
		}
	}
}
