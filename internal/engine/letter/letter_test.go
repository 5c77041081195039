package letter

import (
	"image"
	"image/color"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
)

func testFonts(t *testing.T) *Fonts {
	t.Helper()
	f, err := LoadFonts(FontPaths{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func blank(w, h int, c color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, 255
	}
	return img
}

// inkBox is the box of the pixels of img that differ from c.
func inkBox(img *image.RGBA, within image.Rectangle, c color.RGBA) (image.Rectangle, int) {
	var box image.Rectangle
	n := 0
	for y := within.Min.Y; y < within.Max.Y; y++ {
		for x := within.Min.X; x < within.Max.X; x++ {
			if img.RGBAAt(x, y) != c {
				box = box.Union(image.Rect(x, y, x+1, y+1))
				n++
			}
		}
	}
	return box, n
}

// A cleaned page and its transcript are enough to letter the page: the edited translation goes
// into its bubble's shape and nowhere else, a block without translation and a skipped block are
// left as the cleaned page has them, and the model says what was lettered.
func TestLetterFromTranscriptAlone(t *testing.T) {
	white := color.RGBA{255, 255, 255, 255}
	img := blank(600, 400, white)
	// A diamond-shaped bubble interior, as the transcript keeps a bubble's outline.
	diamond := []image.Point{{150, 40}, {260, 200}, {150, 360}, {40, 200}}
	p := &page.Page{Image: img, TargetLang: "en", Blocks: []page.Block{
		{ID: "b1", Box: image.Rect(120, 150, 180, 250), Shape: diamond, Kind: page.Bubble, Lang: "ja",
			Source: "お前は何者だ", Translation: "WHO ARE YOU?", Status: page.Translated},
		{ID: "b2", Box: image.Rect(350, 50, 550, 120), Shape: page.Corners(image.Rect(350, 50, 550, 120)), Kind: page.Free,
			Lang: "ja", Source: "ドン"},
		{ID: "b3", Box: image.Rect(350, 250, 550, 350), Shape: page.Corners(image.Rect(350, 250, 550, 350)), Kind: page.Free,
			Lang: "ja", Source: "バン", Translation: "BANG", Status: page.Skipped, Reason: "art"},
	}}
	if n := Letter(p, testFonts(t)); n != 1 {
		t.Fatalf("lettered %d blocks, want 1", n)
	}
	box, n := inkBox(img, img.Bounds(), white)
	if n < 200 {
		t.Fatalf("only %d pixels of ink: the translation was not lettered", n)
	}
	area := page.Polygon(diamond)
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if img.RGBAAt(x, y) != white && !area.Has(x, y) {
				t.Fatalf("ink at (%d,%d), outside the bubble's shape", x, y)
			}
		}
	}
	if c := img.RGBAAt(box.Min.X+box.Dx()/2, box.Min.Y+box.Dy()/2); c.R > 128 && box.Dx() < 20 {
		t.Fatalf("lettering box %v is implausibly narrow", box)
	}
	if p.Blocks[0].Status != page.Lettered || p.Blocks[1].Status != "" || p.Blocks[2].Status != page.Skipped {
		t.Fatalf("statuses %q %q %q, want lettered, unchanged, skipped", p.Blocks[0].Status, p.Blocks[1].Status, p.Blocks[2].Status)
	}
	tr := p.Transcript()
	if tr.Blocks[0].ID != "b1" || tr.Blocks[0].Status != "lettered" || tr.Blocks[2].Reason != "art" {
		t.Fatalf("transcript blocks %+v", tr.Blocks)
	}
}

// On dark paper the lettering is white, and a vertical CJK block is set in columns inside its
// box.
func TestLetterInkAndVertical(t *testing.T) {
	dark := color.RGBA{20, 20, 30, 255}
	img := blank(300, 300, dark)
	box := image.Rect(100, 40, 200, 260)
	p := &page.Page{Image: img, TargetLang: "ja", Blocks: []page.Block{{
		Box: box, Shape: page.Corners(box), Kind: page.Bubble, Vertical: true, Lang: "en",
		Source: "Who are you", Translation: "お前は何者だ",
	}}}
	if n := Letter(p, testFonts(t)); n != 1 {
		t.Fatalf("lettered %d, want 1", n)
	}
	ink, n := inkBox(img, img.Bounds(), dark)
	if n == 0 || !ink.In(box) {
		t.Fatalf("ink box %v (%d px), want inside %v", ink, n, box)
	}
	if ink.Dy() < 2*ink.Dx() {
		t.Fatalf("ink box %v is not a column", ink)
	}
	white := 0
	for y := ink.Min.Y; y < ink.Max.Y; y++ {
		for x := ink.Min.X; x < ink.Max.X; x++ {
			if c := img.RGBAAt(x, y); c.R > 200 && c.G > 200 && c.B > 200 {
				white++
			}
		}
	}
	if white < n/4 {
		t.Fatalf("%d of %d lettered pixels are white: black ink on dark paper", white, n)
	}
}

// Text too long for the smallest readable size still comes out, over the area, rather than
// being dropped.
func TestBlockOverflowsRatherThanDrops(t *testing.T) {
	white := color.RGBA{255, 255, 255, 255}
	img := blank(200, 100, white)
	f := testFonts(t)
	shape := f.Block(img, Target{Box: image.Rect(80, 40, 120, 60), Char: 12, Paper: white}, "a very long translation that cannot fit in so small a box", "en")
	if len(shape) < 3 {
		t.Fatalf("shape %v", shape)
	}
	if _, n := inkBox(img, img.Bounds(), white); n == 0 {
		t.Fatal("nothing lettered")
	}
}

// A paragraph found on a Latin page, its ink measured before cleaning, is lettered in that ink
// in its box grown into the plain paper around it; the shape kept is that grown box, and nothing
// is drawn outside it.
func TestLetterFoundParagraphInItsInk(t *testing.T) {
	white, red := color.RGBA{255, 255, 255, 255}, color.RGBA{180, 20, 20, 255}
	img := blank(800, 300, white)
	box := image.Rect(300, 120, 500, 160)
	p := &page.Page{Image: img, TargetLang: "es", Blocks: []page.Block{
		{ID: "b1", Box: box, Kind: page.Free, Lang: "en", Source: "I have to find my brother.", Char: 30,
			Paper: white, InkColor: red, Translation: "Tengo que encontrar a mi hermano.", Status: page.Translated},
		{ID: "b2", Box: image.Rect(600, 100, 700, 180), Kind: page.Free, Lang: "en", Source: "Bang",
			Char: 30, Paper: white, InkColor: red, Translation: "Pum", Status: page.Skipped, Reason: "the translator gave no translation"},
	}}
	if n := Letter(p, testFonts(t)); n != 1 || p.Blocks[0].Status != page.Lettered || p.Blocks[1].Status != page.Skipped {
		t.Fatalf("lettered %d blocks, statuses %s, %s", n, p.Blocks[0].Status, p.Blocks[1].Status)
	}
	shape := p.Blocks[0].Shape
	if len(shape) != 4 {
		t.Fatalf("shape %v, want the corners of a box", shape)
	}
	area := image.Rectangle{Min: shape[0], Max: shape[2]}
	if area.Dx() <= box.Dx() || !area.Overlaps(box) {
		t.Errorf("lettered into %v, want %v grown into the paper around it", area, box)
	}
	ink, n := inkBox(img, img.Bounds(), white)
	if n == 0 || !ink.In(area) {
		t.Errorf("ink at %v (%d pixels), want it inside %v", ink, n, area)
	}
	solid := 0
	for y := ink.Min.Y; y < ink.Max.Y; y++ {
		for x := ink.Min.X; x < ink.Max.X; x++ {
			if img.RGBAAt(x, y) == red {
				solid++
			}
		}
	}
	if solid*4 < n {
		t.Errorf("%d of %d lettered pixels in the measured ink, want most", solid, n)
	}
}

// A column of free text on the panel's paper, lettered in lines across, gets room across from
// the plain paper around it: the translation is set wider than the column, at a readable size,
// and stops short of the art on one side and of another block on the other. On art (no plain
// paper around) it keeps the column's own box.
func TestLetterColumnOnPlainPaperTakesRoomAcross(t *testing.T) {
	white, black := color.RGBA{255, 255, 255, 255}, color.RGBA{0, 0, 0, 255}
	col := image.Rect(240, 100, 262, 380)
	page1 := func(bg color.RGBA) *page.Page {
		img := blank(500, 500, bg)
		for y := 0; y < 500; y++ {
			for x := 320; x < 500; x++ {
				img.SetRGBA(x, y, black) // art to the right
			}
		}
		return &page.Page{Image: img, TargetLang: "en", Blocks: []page.Block{
			{ID: "b1", Box: image.Rect(100, 150, 150, 300), Kind: page.Free, Lang: "ja", Source: "ドン", Char: 22, Paper: bg},
			{ID: "b2", Box: col, Kind: page.Free, Vertical: true, Lang: "ja", Source: "どうして泣いてるの？", Char: 22,
				Paper: bg, Translation: "Why are you crying?", Status: page.Translated},
		}}
	}
	p := page1(white)
	if n := Letter(p, testFonts(t)); n != 1 {
		t.Fatalf("lettered %d blocks, want 1", n)
	}
	ink, n := inkBox(p.Image, image.Rect(0, 0, 320, 500), white)
	if n == 0 {
		t.Fatal("nothing lettered")
	}
	if ink.Dx() < 3*col.Dx() {
		t.Errorf("lettering %v is %d px wide, want the room across a %d px column gives (≥ %d)", ink, ink.Dx(), col.Dx(), 3*col.Dx())
	}
	if ink.Min.X < 150 || ink.Max.X > 320 {
		t.Errorf("lettering %v runs into the block at x < 150 or the art at x ≥ 320", ink)
	}
	if shape := p.Blocks[1].Shape; len(shape) < 4 || page.Polygon(shape).Box.Dx() <= col.Dx()+22 {
		t.Errorf("shape %v: want the room lettered into kept, wider than the column", shape)
	}

	grey := color.RGBA{128, 128, 128, 255}
	p = page1(grey)
	for y := 0; y < 500; y++ { // a tone all round: no plain paper
		for x := 0; x < 320; x++ {
			if (x/3+y/3)%2 == 0 && !image.Pt(x, y).In(col) {
				p.Image.SetRGBA(x, y, white)
			}
		}
	}
	Letter(p, testFonts(t))
	if room := page.Polygon(p.Blocks[1].Shape).Box; room.Dx() > col.Dx()+22+2 {
		t.Errorf("on art, lettered into %v, want the column's box with half a character around (%v)", room, col.Inset(-11))
	}
}
