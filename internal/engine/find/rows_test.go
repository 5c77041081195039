package find

import (
	"testing"

	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// Chinese lettering set in rows in a balloon open to the art (a burst whose spikes cross the
// frame, a balloon without an outline over a figure's shirt or speed lines) is clustered with
// the art it comes near: it is still found, as rows of its own size holding all of it and none
// of the art, and its balloon's paper found around it.
func TestMangaFindsRowsChainedToArt(t *testing.T) {
	for _, c := range []struct {
		seed    int64
		text    string
		lines   int
		balloon bool // whether its balloon has a body to find
	}{
		{3, "你到底是谁？", 2, true}, // over a shirt's dots; 谁？ alone on the second line
		{3, "等一下！", 1, false},  // in a panel's white beside hatching; 一 lower than its neighbours
		{5, "你骗我！", 1, true},   // a burst open to the gutter
		{8, "老师来了！", 1, true},  // over speed lines
	} {
		p, err := mangapage.Generate(c.seed, mangapage.Options{Lang: "zh-Hans"})
		if err != nil {
			t.Fatal(err)
		}
		want := annotated(t, &p, c.text)
		blocks, _ := Manga(p.RGBA(), true)
		b := found(blocks, want.Box)
		if b == nil {
			t.Errorf("seed %d: %q at %v was not found (blocks %v)", c.seed, c.text, want.Box, boxes(blocks))
			continue
		}
		if b.Vertical || len(b.Lines) != c.lines {
			t.Errorf("seed %d: %q was found as %s lettering of %d lines, want horizontal of %d", c.seed, c.text, direction(b.Vertical), len(b.Lines), c.lines)
		}
		// All of the lettering, and no more than a character's margin of anything else.
		if !want.Box.In(b.Box.Inset(-2)) || !b.Box.In(want.Box.Inset(-b.Char/2)) || b.Char*c.lines*5 > want.Box.Dy()*6 {
			t.Errorf("seed %d: %q at %v was found as %v, characters %d", c.seed, c.text, want.Box, b.Box, b.Char)
		}
		if c.balloon && b.Bubble == nil {
			t.Errorf("seed %d: %q was found without its balloon", c.seed, c.text)
		}
	}
}
