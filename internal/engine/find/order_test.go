package find

import (
	"image"
	"image/color"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
)

// A column of two kanji that touch, with their furigana set tight against them, beside a
// thinner column of kana: the furigana are cut from the reading, and the kana column, which
// looked thin only beside a column the furigana widened, is read as text at the kanji's size
// (page 18 of the default set read さくせん開始だ。 for よし、作戦開始だ。).
func TestTightFuriganaDoNotTurnAColumnOfKanaIntoFurigana(t *testing.T) {
	g := blankPage()
	outline := func(r image.Rectangle, stroke int) { drawOutline(g, r, stroke) }
	// The kanji: one piece 18 wide, three characters tall.
	outline(image.Rect(50, 10, 68, 64), 2)
	outline(image.Rect(50, 28, 68, 30), 1)
	outline(image.Rect(50, 46, 68, 48), 1)
	// Their furigana: four small kana a pixel right of them.
	var furigana []image.Rectangle
	for i := range 4 {
		r := image.Rect(69, 12+9*i, 76, 19+9*i)
		outline(r, 1)
		furigana = append(furigana, r)
	}
	// The kana column: three characters 14 wide.
	for i := range 3 {
		outline(image.Rect(20, 10+20*i, 34, 26+20*i), 2)
	}
	b := blockOf(g)
	if b == nil || !b.Vertical {
		t.Fatalf("no vertical block: %+v", b)
	}
	if len(b.Lines) != 2 {
		t.Fatalf("lines %v, furigana %v: want the kanji column and the kana column", b.Lines, b.Ruby)
	}
	if kanji := b.Lines[0]; kanji.Max.X > 69 || kanji.Min.X != 50 {
		t.Errorf("the kanji column read is %v: want the kanji without their furigana (50 to 68)", kanji)
	}
	if kana := b.Lines[1]; kana != image.Rect(20, 10, 34, 66) {
		t.Errorf("the kana column read is %v: want (20,10)-(34,66)", kana)
	}
	if b.Char < 14 || b.Char > 18 {
		t.Errorf("character size %d: want the columns' own width, 14 to 18", b.Char)
	}
	for _, f := range furigana {
		if b.InkAt(f.Min.X, f.Min.Y) {
			t.Errorf("the furigana at %v are still read", f)
		}
	}
}

// The dakuten of a kana at a column's edge stay with it: stacked beside the body they look like
// a run of furigana, but the column is no wider for them than a character.
func TestDakutenAreNotFurigana(t *testing.T) {
	g := blankPage()
	for _, x := range []int{20, 40} {
		for i := range 4 {
			w := 11
			if x == 40 && i == 1 {
				w = 8 // the kana the dakuten mark
			}
			drawOutline(g, image.Rect(x, 10+16*i, x+w, 23+16*i), 2)
		}
	}
	dakuten := []image.Rectangle{image.Rect(50, 27, 53, 30), image.Rect(50, 31, 53, 36)}
	for _, r := range dakuten {
		drawOutline(g, r, 1)
	}
	b := blockOf(g)
	if b == nil || len(b.Lines) != 2 {
		t.Fatalf("want a block of two columns, got %+v", b)
	}
	for _, r := range dakuten {
		if !b.InkAt(r.Min.X, r.Min.Y) {
			t.Errorf("the dakuten at %v were cut from the reading as furigana", r)
		}
	}
}

func blankPage() *image.Gray {
	g := image.NewGray(image.Rect(0, 0, 100, 80))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	return g
}

func drawOutline(g *image.Gray, r image.Rectangle, stroke int) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if x < r.Min.X+stroke || x >= r.Max.X-stroke || y < r.Min.Y+stroke || y >= r.Max.Y-stroke {
				g.SetGray(x, y, color.Gray{})
			}
		}
	}
}

// blockOf is the block the finder makes of all the ink of g.
func blockOf(g *image.Gray) *page.Block {
	var bl blob
	for y := 0; y < g.Rect.Dy(); y++ {
		for x := 0; x < g.Rect.Dx(); x++ {
			if g.GrayAt(x, y).Y == 0 {
				bl.pix = append(bl.pix, y*g.Stride+x)
				bl.Box = bl.Box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	bl.Ink = len(bl.pix)
	pa := &page.Analysis{Gray: g, Paper: 255, InkMax: 128, InkSoft: 190}
	return makeBlock(g, []blob{bl}, pa, 8, 100, 2)
}
