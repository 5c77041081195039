package find

import (
	"testing"

	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// Shouts in spiky balloons whose spikes run into the gutter share their paper with it, so the
// paper around them is page-wide; the finder still gives each the body of its own balloon (the
// bubble that erasing and lettering use), not the gutter, and not nothing.
func TestOpenBalloonsKeepTheirBody(t *testing.T) {
	p, err := mangapage.Generate(1, mangapage.Options{Hard: true})
	if err != nil {
		t.Fatal(err)
	}
	blocks, _ := Manga(p.RGBA(), true)
	checked := 0
	for _, bb := range p.Bubbles {
		if bb.Text != "うん。" && bb.Text != "なに！？" {
			continue
		}
		checked++
		b := found(blocks, bb.Box)
		if b == nil {
			t.Errorf("the shout %q at %v was not found", bb.Text, bb.Box)
			continue
		}
		if b.Bubble == nil {
			t.Errorf("the shout %q at %v has no balloon (its balloon is %v)", bb.Text, bb.Box, bb.Balloon)
			continue
		}
		grown := bb.Balloon.Inset(-b.Char)
		if !b.Bubble.Box.In(grown) || !b.Box.In(b.Bubble.Box) || b.Bubble.Area*2 < bb.Box.Dx()*bb.Box.Dy()*3 {
			t.Errorf("the shout %q at %v got the balloon %v (%d px), want its own body inside %v", bb.Text, bb.Box, b.Bubble.Box, b.Bubble.Area, bb.Balloon)
		}
	}
	if checked != 2 {
		t.Fatalf("the page of seed 1 has %d of its two shouts: the generator changed", checked)
	}
}
