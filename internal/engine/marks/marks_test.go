package marks

import (
	"image"
	"image/color"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
)

// A column of 12 px characters ends in a … whose dots, a pixel or two each, are grey: they are
// given back to it. The same dots among a tone's are the tone.
func TestGreyDotsEndTheirColumn(t *testing.T) {
	for _, toned := range []bool{false, true} {
		g := image.NewGray(image.Rect(0, 0, 60, 90))
		for i := range g.Pix {
			g.Pix[i] = 250
		}
		ink := page.NewMask(image.Rect(20, 10, 32, 46))
		for y := 10; y < 46; y++ { // three characters' strokes, the column's ink
			for _, x := range []int{21, 26, 30} {
				g.Pix[y*g.Stride+x] = 20
				ink.Mask[(y-10)*12+x-20] = true
			}
		}
		for _, y := range []int{49, 54, 59} { // the dots: one pixel nearly as dark as ink, one grey
			g.SetGray(26, y, color.Gray{130})
			g.SetGray(26, y+1, color.Gray{180})
		}
		if toned {
			for y := 47; y < 80; y += 4 {
				for x := 15; x < 40; x += 4 {
					g.SetGray(x, y, color.Gray{100})
				}
			}
		}
		tb := &page.Block{Box: ink.Box, Vertical: true, Lines: []image.Rectangle{ink.Box}, Char: 12, Ink: ink}
		AtEnd(g, &page.Analysis{Gray: g, Paper: 250, InkMax: 140, InkSoft: 195}, tb, nil)
		if got := tb.Lines[0].Max.Y; toned && got != 46 || !toned && got != 61 {
			t.Errorf("toned %v: the column ends at %d; want %d", toned, got, map[bool]int{false: 61, true: 46}[toned])
		}
	}
}
