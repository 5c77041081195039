package clean

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/image/vector"

	"github.com/vtsproject/vts/internal/engine/find"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// coverage rasterizes polygons, anti-aliased, into an alpha mask of size w×h.
func coverage(w, h int, polys ...[][2]float32) *image.Alpha {
	r := vector.NewRasterizer(w, h)
	for _, p := range polys {
		r.MoveTo(p[0][0], p[0][1])
		for _, q := range p[1:] {
			r.LineTo(q[0], q[1])
		}
		r.ClosePath()
	}
	a := image.NewAlpha(image.Rect(0, 0, w, h))
	r.Draw(a, a.Bounds(), image.Opaque, image.Point{})
	return a
}

func ellipsePoly(cx, cy, rx, ry float64, reverse bool) [][2]float32 {
	var p [][2]float32
	for i := range 96 {
		a := 2 * math.Pi * float64(i) / 96
		if reverse {
			a = -a
		}
		p = append(p, [2]float32{float32(cx + rx*math.Cos(a)), float32(cy + ry*math.Sin(a))})
	}
	return p
}

// interiorMask is the area inside the polygon p (at least half covered), as the finder hands
// a bubble over.
func interiorMask(w, h int, p [][2]float32) *page.Mask {
	interior := coverage(w, h, p)
	m := page.NewMask(image.Rect(0, 0, w, h))
	for i := range m.Mask {
		if interior.Pix[i] >= 128 {
			m.Mask[i] = true
			m.Area++
		}
	}
	return m
}

// strokePoly is a slanted bar of width wd from (x0,y0) to (x1,y1): a stroke of a glyph.
func strokePoly(x0, y0, x1, y1, wd float64) [][2]float32 {
	dx, dy := x1-x0, y1-y0
	l := math.Hypot(dx, dy)
	nx, ny := -dy/l*wd/2, dx/l*wd/2
	return [][2]float32{{float32(x0 + nx), float32(y0 + ny)}, {float32(x1 + nx), float32(y1 + ny)}, {float32(x1 - nx), float32(y1 - ny)}, {float32(x0 - nx), float32(y0 - ny)}}
}

// A bubble lettered in anti-aliased grey-edged strokes, on tinted paper, saved as a JPEG at
// quality 65: what a published scan gives the engine. Erasing must leave no ghost a reader
// sees (at most 1 % of the pixels on and around the former glyphs visibly darker than the
// paper) and the outline exactly as it was.
func TestBlockInBubbleLeavesNoGhostsOnJPEG(t *testing.T) {
	const w, h = 260, 200
	paper := color.RGBA{238, 232, 214, 255}
	ink := color.RGBA{28, 26, 24, 255}
	// The outline is a ring from the ellipse of radii 110×80 to 104×74 around (130, 100).
	ring := coverage(w, h, ellipsePoly(130, 100, 110, 80, false), ellipsePoly(130, 100, 104, 74, true))
	var glyphPolys [][][2]float32
	for col := range 4 { // four columns of strokes, like vertical lettering
		x := 85 + float64(col)*26
		for k := range 5 {
			y := 50 + float64(k)*21
			glyphPolys = append(glyphPolys, strokePoly(x, y, x+13, y+4, 3.2), strokePoly(x+7, y-3, x+5.5, y+14, 2.6))
		}
	}
	glyphs := coverage(w, h, glyphPolys...)
	src := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			a := max(float64(ring.AlphaAt(x, y).A), float64(glyphs.AlphaAt(x, y).A)) / 255
			mix := func(p, i uint8) uint8 { return uint8(float64(p)*(1-a) + float64(i)*a + 0.5) }
			src.SetRGBA(x, y, color.RGBA{mix(paper.R, ink.R), mix(paper.G, ink.G), mix(paper.B, ink.B), 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 65}); err != nil {
		t.Fatal(err)
	}
	dec, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(dec.Bounds())
	draw.Draw(img, img.Bounds(), dec, image.Point{}, draw.Src)
	before := image.NewRGBA(img.Bounds())
	copy(before.Pix, img.Pix)

	// The bubble's area is its interior, as the finder hands it over: the paper inside the
	// outline's inner edge, glyphs included.
	bubble := interiorMask(w, h, ellipsePoly(130, 100, 104, 74, false))
	var box image.Rectangle
	for y := range h {
		for x := range w {
			if glyphs.AlphaAt(x, y).A > 0 {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	gray := page.Gray(img)
	tp := page.Paper(img, bubble, box, paper)
	Block(img, gray, 240, Target{Box: box, Char: 20, Bubble: bubble, Paper: tp})

	// Residue: near the former glyphs, pixels visibly (24 levels) darker than the paper.
	paperY := int(page.Luma(paper))
	near, dark := 0, 0
	for y := box.Min.Y - 3; y < box.Max.Y+3; y++ {
		for x := box.Min.X - 3; x < box.Max.X+3; x++ {
			close := false
			for dy := -3; dy <= 3 && !close; dy++ {
				for dx := -3; dx <= 3 && !close; dx++ {
					close = glyphs.AlphaAt(x+dx, y+dy).A > 0
				}
			}
			if !close || ring.AlphaAt(x, y).A > 0 {
				continue
			}
			near++
			if paperY-int(page.Luma(img.RGBAAt(x, y))) > 24 {
				dark++
			}
		}
	}
	if res := float64(dark) / float64(near); res > 0.01 {
		t.Errorf("residue %.3f (%d of %d pixels around the former glyphs still dark), want ≤ 0.01", res, dark, near)
	}
	changed := 0
	for y := range h {
		for x := range w {
			if ring.AlphaAt(x, y).A > 0 && img.RGBAAt(x, y) != before.RGBAAt(x, y) {
				changed++
			}
		}
	}
	if changed > 0 {
		t.Errorf("%d pixels of the outline changed", changed)
	}
}

// tonePage is a light dot screentone: dots of radius 1.6 every 6 pixels on paper.
func tonePage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			dx, dy := float64(x%6)-2.5, float64(y%6)-2.5
			v := uint8(245)
			if dx*dx+dy*dy < 1.6*1.6 {
				v = 60
			}
			img.SetRGBA(x, y, color.RGBA{v, v, v, 255})
		}
	}
	return img
}

// slantedTonePage is a screentone as printed and scanned: round dots of radius r on a lattice of
// pitch pixels turned by angle degrees, anti-aliased, whose periods are no whole number of
// pixels.
func slantedTonePage(w, h int, pitch, angle, r float64) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	cs, sn := math.Cos(angle*math.Pi/180), math.Sin(angle*math.Pi/180)
	const sub = 4
	for y := range h {
		for x := range w {
			in := 0
			for sy := range sub {
				for sx := range sub {
					px, py := float64(x)+(float64(sx)+0.5)/sub, float64(y)+(float64(sy)+0.5)/sub
					u, v := (px*cs+py*sn)/pitch, (-px*sn+py*cs)/pitch
					du, dv := (u-math.Round(u))*pitch, (v-math.Round(v))*pitch
					if du*du+dv*dv < r*r {
						in++
					}
				}
			}
			c := uint8(245 - (245-60)*in/(sub*sub))
			img.SetRGBA(x, y, color.RGBA{c, c, c, 255})
		}
	}
	return img
}

// tones are the screentones lettering is erased from in the tests: one whose lattice is whole
// pixels, and a 45° one of the kind print and scanning give, whose periods fall between pixels.
var tones = []struct {
	name string
	page func(w, h int) *image.RGBA
}{
	{"square 6 px", tonePage},
	{"45° 8.6 px", func(w, h int) *image.RGBA { return slantedTonePage(w, h, 8.6, 45, 2.3) }},
	{"30° 5.3 px", func(w, h int) *image.RGBA { return slantedTonePage(w, h, 5.3, 30, 1.5) }},
	{"5° 16.5 px, large dots", func(w, h int) *image.RGBA { return slantedTonePage(w, h, 16.5, 5, 5.5) }},
}

// toneRestored fails t when more than a fiftieth of the pixels of box in img differ visibly from
// want, the tone without the lettering.
func toneRestored(t *testing.T, img, want *image.RGBA, box image.Rectangle) {
	t.Helper()
	wrong := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if page.ColorDist(img.RGBAAt(x, y), want.RGBAAt(x, y)) > 40 {
				wrong++
			}
		}
	}
	if wrong > box.Dx()*box.Dy()/50 {
		t.Errorf("%d of %d pixels of the erased box differ from the tone", wrong, box.Dx()*box.Dy())
	}
}

// Text lettered over a screentone is erased by carrying the dots on through the strokes, not by
// smearing them into grey: where the strokes were, the tone is back as it was.
func TestBlockOnToneCarriesTheDotsOn(t *testing.T) {
	for _, tone := range tones {
		t.Run(tone.name, func(t *testing.T) {
			want := tone.page(240, 160)
			img := tone.page(240, 160)
			box := image.Rect(80, 50, 160, 110)
			ink := page.NewMask(box)
			for y := box.Min.Y; y < box.Max.Y; y++ {
				for x := box.Min.X; x < box.Max.X; x++ {
					if (x-box.Min.X)%16 < 4 || (y-box.Min.Y)%20 < 4 { // a grid of strokes
						img.SetRGBA(x, y, color.RGBA{0, 0, 0, 255})
						ink.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = true
					}
				}
			}
			Block(img, page.Gray(img), 245, Target{Box: box, Char: 20, Ink: ink})
			toneRestored(t, img, want, box)
		})
	}
}

// A balloon filled with a tone keeps it where its lettering was: painted the paper's one colour,
// the erased text would leave a flat patch in the dots, plain to a reader. The tone is carried
// on from inside the balloon only: its outline and the art beyond it are another pattern.
func TestBlockInATonedBubbleCarriesTheTone(t *testing.T) {
	for _, tone := range tones {
		t.Run(tone.name, func(t *testing.T) {
			const w, h = 240, 200
			want := tone.page(w, h)
			outlined := func(img *image.RGBA) {
				ring := coverage(w, h, ellipsePoly(120, 100, 110, 90, false), ellipsePoly(120, 100, 106, 86, true))
				for y := range h {
					for x := range w {
						if ring.AlphaAt(x, y).A >= 128 {
							img.SetRGBA(x, y, color.RGBA{20, 20, 20, 255})
						} else if (x-120)*(x-120)*90*90+(y-100)*(y-100)*110*110 > 110*110*90*90 {
							img.SetRGBA(x, y, color.RGBA{90, 90, 90, 255}) // the art around: a flat grey
						}
					}
				}
			}
			outlined(want)
			img := tone.page(w, h)
			outlined(img)
			box := image.Rect(90, 50, 150, 150)
			ink := page.NewMask(box)
			for y := box.Min.Y; y < box.Max.Y; y++ {
				for x := box.Min.X; x < box.Max.X; x++ {
					if (x-box.Min.X)%20 < 4 || (y-box.Min.Y)%20 < 3 { // columns of strokes
						img.SetRGBA(x, y, color.RGBA{0, 0, 0, 255})
						ink.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = true
					}
				}
			}
			bubble := interiorMask(w, h, ellipsePoly(120, 100, 106, 86, false))
			before := image.NewRGBA(img.Bounds())
			copy(before.Pix, img.Pix)
			Block(img, page.Gray(img), 245, Target{Box: box, Char: 20, Ink: ink, Bubble: bubble, Paper: page.Paper(img, bubble, box, color.RGBA{245, 245, 245, 255})})
			toneRestored(t, img, want, box)
			for y := range h {
				for x := range w {
					if !bubble.Has(x, y) && img.RGBAAt(x, y) != before.RGBAAt(x, y) {
						t.Fatalf("(%d, %d), outside the balloon, changed", x, y)
					}
				}
			}
		})
	}
}

// haloedLettering letters box of img with black strokes 4 px wide (a grid, like a character's
// bars) in a white halo 5 px wide, as letterers set text on art, and returns the strokes' mask.
func haloedLettering(img *image.RGBA, box image.Rectangle) *page.Mask {
	stroke := func(x, y int) bool { return (x-box.Min.X)%24 < 4 || (y-box.Min.Y)%28 < 4 }
	ink := page.NewMask(box)
	for y := box.Min.Y - 5; y < box.Max.Y+5; y++ {
		for x := box.Min.X - 5; x < box.Max.X+5; x++ {
			near := false // within 5 px of a stroke: the halo
			for d := -5; d <= 5 && !near; d++ {
				near = image.Pt(x+d, y).In(box) && stroke(x+d, y) || image.Pt(x, y+d).In(box) && stroke(x, y+d)
			}
			switch {
			case image.Pt(x, y).In(box) && stroke(x, y):
				img.SetRGBA(x, y, color.RGBA{0, 0, 0, 255})
				ink.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = true
			case near:
				img.SetRGBA(x, y, color.RGBA{255, 255, 255, 255})
			}
		}
	}
	return ink
}

// Lettering set on a screentone with a white halo around its strokes is erased with its halo:
// the tone runs on where both were, with no blank silhouette of the text left on the art.
func TestBlockOnToneCarriesTheDotsThroughTheHalo(t *testing.T) {
	want := tonePage(240, 160)
	img := tonePage(240, 160)
	box := image.Rect(80, 50, 160, 110)
	ink := haloedLettering(img, box)
	Block(img, page.Gray(img), 245, Target{Box: box, Char: 24, Ink: ink})
	toneRestored(t, img, want, box.Inset(-5))
}

// Lettering set with a white halo on a black area of the art (a night sky, a flashback's dark
// panel) is erased with its halo: the black runs on where both were, with no white outline of
// the text left on it, and no grey smeared from the halo through the strokes.
func TestBlockOnBlackErasesTheHalo(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 240, 160))
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < len(img.Pix); i += 4 {
		v := uint8(18 + rng.IntN(12)) // a scanned black, not quite flat
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = v, v, v, 255
	}
	box := image.Rect(80, 50, 160, 110)
	ink := haloedLettering(img, box)
	Block(img, page.Gray(img), 245, Target{Box: box, Char: 24, Ink: ink})
	r, light := box.Inset(-6), 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if page.Luma(img.RGBAAt(x, y)) > 30+visiblyDark {
				light++
			}
		}
	}
	if light > 0 {
		t.Errorf("%d of the %d pixels where the lettering and its halo were are still visibly lighter than the black", light, r.Dx()*r.Dy())
	}
}

// Lettering on plain paper that no closed bubble holds (a balloon open on one side) is erased
// as in a bubble: a dot of punctuation the ink mask missed goes too, and the paper is flat.
func TestBlockOnPlainPaperErasesWhatTheMaskMissed(t *testing.T) {
	paper := color.RGBA{240, 236, 225, 255}
	img := image.NewRGBA(image.Rect(0, 0, 200, 160))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = paper.R, paper.G, paper.B, 255
	}
	box := image.Rect(70, 40, 130, 110)
	ink := page.NewMask(box)
	for y := 45; y < 100; y++ {
		for x := 90; x < 96; x++ {
			img.SetRGBA(x, y, color.RGBA{20, 20, 20, 255})
			ink.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = true
		}
	}
	for y := 102; y < 107; y++ { // a full stop, not in the ink mask
		for x := 110; x < 115; x++ {
			img.SetRGBA(x, y, color.RGBA{20, 20, 20, 255})
		}
	}
	Block(img, page.Gray(img), 240, Target{Box: box, Char: 20, Ink: ink})
	for y := range 160 {
		for x := range 200 {
			if d := page.ColorDist(img.RGBAAt(x, y), paper); d > 6 {
				t.Fatalf("(%d,%d) is %v after erasing, want the paper %v", x, y, img.RGBAAt(x, y), paper)
			}
		}
	}
}

// grainyPaper is paper with a scan's grain: each pixel a few levels off the paper's colour.
func grainyPaper(w, h int, paper color.RGBA) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	seed := uint32(7)
	for y := range h {
		for x := range w {
			seed = seed*1664525 + 1013904223
			d := int(seed>>24)%15 - 7
			c := func(v uint8) uint8 { return uint8(int(v) + d) }
			img.SetRGBA(x, y, color.RGBA{c(paper.R), c(paper.G), c(paper.B), 255})
		}
	}
	return img
}

// spread is the standard deviation of the luma of img over the pixels of r that m holds.
func spread(img *image.RGBA, r image.Rectangle, m *page.Mask) float64 {
	var s, s2, n float64
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if m == nil || m.Has(x, y) {
				v := float64(page.Luma(img.RGBAAt(x, y)))
				s, s2, n = s+v, s2+v*v, n+1
			}
		}
	}
	return math.Sqrt(s2/n - (s/n)*(s/n))
}

// Erased lettering on grainy paper, in a bubble and on a panel's plain paper, keeps the paper's
// grain: the region erased is no flat patch (its pixels vary about as much as the paper around),
// and no mark comes back into it.
func TestErasingKeepsThePapersGrain(t *testing.T) {
	paper := color.RGBA{236, 230, 220, 255}
	box := image.Rect(80, 50, 120, 150)
	for _, inBubble := range []bool{true, false} {
		img := grainyPaper(200, 200, paper)
		ink := page.NewMask(box)
		for y := 55; y < 145; y++ {
			for x := 90; x < 110; x++ {
				if (y/10)%2 == 0 || x < 94 {
					img.SetRGBA(x, y, color.RGBA{20, 20, 20, 255})
					ink.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = true
				}
			}
		}
		around := spread(img, image.Rect(0, 0, 60, 200), nil)
		tg := Target{Box: box, Char: 20, Ink: ink}
		if inBubble {
			bubble := page.NewMask(image.Rect(10, 10, 190, 190))
			for i := range bubble.Mask {
				bubble.Mask[i] = true
			}
			bubble.Area = len(bubble.Mask)
			tg.Bubble, tg.Paper = bubble, paper
		}
		Block(img, page.Gray(img), 236, tg)
		erased := spread(img, box, nil)
		if erased < around/2 {
			t.Errorf("in a bubble %v: the erased region's grain is %.1f levels, the paper's %.1f: a flat patch", inBubble, erased, around)
		}
		for y := box.Min.Y; y < box.Max.Y; y++ {
			for x := box.Min.X; x < box.Max.X; x++ {
				if page.ColorDist(img.RGBAAt(x, y), paper) > 24 { // visibly off the paper, beyond its grain
					t.Fatalf("in a bubble %v: (%d,%d) is %v after erasing, off the paper %v", inBubble, x, y, img.RGBAAt(x, y), paper)
				}
			}
		}
	}
}

// Lettering on a tone whose middle column the finder missed: the block's box holds it, its ink
// does not. The tone carried into the erased columns comes from beyond the box, never from the
// missed column's strokes, which copied a whole number of periods away would be lettered again
// over every erased one.
func TestBlockOnToneNeverCopiesAMissedColumn(t *testing.T) {
	for _, tone := range tones {
		t.Run(tone.name, func(t *testing.T) {
			want := tone.page(240, 200)
			img := tone.page(240, 200)
			box := image.Rect(80, 50, 162, 150)
			ink := page.NewMask(box)
			cols := []image.Rectangle{image.Rect(80, 50, 102, 150), image.Rect(110, 50, 132, 150), image.Rect(140, 50, 162, 150)}
			for i, c := range cols {
				for y := c.Min.Y; y < c.Max.Y; y++ {
					for x := c.Min.X; x < c.Max.X; x++ {
						if (x-c.Min.X)%8 < 3 || (y-c.Min.Y)%12 < 3 {
							img.SetRGBA(x, y, color.RGBA{0, 0, 0, 255})
							ink.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = i != 1
						}
					}
				}
			}
			Block(img, page.Gray(img), 245, Target{Box: box, Char: 22, Ink: ink})
			toneRestored(t, img, want, cols[0])
			toneRestored(t, img, want, cols[2])
		})
	}
}

// generatedLettering draws the generated page of seed and opt, and hands back the page, the page
// drawn without its lettering, and the annotation of the lettering that reads text.
func generatedLettering(t *testing.T, seed int64, opt mangapage.Options, text string) (img, plate *image.RGBA, b mangapage.Bubble) {
	t.Helper()
	opt.Plate = true
	p, err := mangapage.Generate(seed, opt)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(p.Bubbles, func(b mangapage.Bubble) bool { return b.Text == text })
	if i < 0 {
		t.Fatalf("seed %d no longer letters %s", seed, text)
	}
	img, plate = image.NewRGBA(p.Image.Bounds()), image.NewRGBA(p.Image.Bounds())
	draw.Draw(img, img.Rect, p.Image, img.Rect.Min, draw.Src)
	draw.Draw(plate, plate.Rect, p.Plate, plate.Rect.Min, draw.Src)
	return img, plate, p.Bubbles[i]
}

// A coarse tone of small soft dots, as a scan shared as JPEG gives it (harsh seed 14: dots of
// two pixels every ten, blurred, on blotchy paper, at JPEG quality 62): its periods repeat
// hardly closer than a pixel's neighbour, so judged as a fine tone it was no tone, and the
// strokes of いただきます！ were smeared with the dots into streaks shaped like the glyphs.
// Judged against how far two of its pixels differ at any offset, its lattice is found and the
// page comes back as it was drawn without the lettering.
func TestBlockOnACoarseNoisyToneCarriesTheDotsOn(t *testing.T) {
	img, want, b := generatedLettering(t, 14, mangapage.Options{Harsh: true}, "いただきます！")
	ink := page.NewMask(b.Box)
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			ink.Mask[(y-b.Box.Min.Y)*b.Box.Dx()+x-b.Box.Min.X] = b.Ink.AlphaAt(x, y).A >= 128
		}
	}
	Block(img, page.Gray(img), 245, Target{Box: b.Box, Char: b.Box.Dx(), Ink: ink})
	toneRestored(t, img, want, b.Box)
}

// The finder takes the white halo round lettering on a tone for a paper area, a bubble. Painted
// with its paper as a bubble is, it stayed on the art as a white silhouette of the erased text;
// a bubble whose edge follows the strokes a short way off all round is that halo, and the tone
// runs on through it. A balloon round the same lettering, its edge well away from the strokes at
// its ends, is still a balloon.
func TestBlockErasesTheHaloTheFinderTookForABubble(t *testing.T) {
	for _, tone := range tones {
		t.Run(tone.name, func(t *testing.T) {
			want := tone.page(240, 200)
			img := tone.page(240, 200)
			box := image.Rect(100, 40, 124, 160) // a column
			ink := haloedLettering(img, box)
			halo := page.NewMask(box.Inset(-5))
			for i := range halo.Mask {
				x, y := halo.Box.Min.X+i%halo.Box.Dx(), halo.Box.Min.Y+i/halo.Box.Dx()
				halo.Mask[i] = page.Luma(img.RGBAAt(x, y)) > 250 || ink.Has(x, y)
			}
			target := Target{Box: box, Char: 24, Ink: ink, Bubble: halo, Paper: color.RGBA{255, 255, 255, 255}}
			if !isHalo(target) {
				t.Fatal("the halo was taken for a balloon")
			}
			Block(img, page.Gray(img), 245, target)
			toneRestored(t, img, want, box.Inset(-5))
		})
	}
	balloon := interiorMask(240, 200, ellipsePoly(112, 100, 30, 75, false))
	if isHalo(Target{Box: image.Rect(100, 40, 124, 160), Char: 24, Ink: haloedLettering(image.NewRGBA(image.Rect(0, 0, 240, 200)), image.Rect(100, 40, 124, 160)), Bubble: balloon}) {
		t.Error("a balloon round the lettering was taken for its halo")
	}
}

// erasedOnArt is the generated hard page of seed with the block the finder found for text on the
// art erased, the page drawn without its lettering, and that block.
func erasedOnArt(t *testing.T, seed int64, text string) (img, plate *image.RGBA, b *page.Block) {
	t.Helper()
	img, plate, want := generatedLettering(t, seed, mangapage.Options{Hard: true}, text)
	blocks, pa := find.Manga(img, true)
	k := slices.IndexFunc(blocks, func(b *page.Block) bool { return b.Box.Overlaps(want.Box) && b.Bubble == nil })
	if k < 0 {
		t.Fatal("the finder no longer finds the lettering on the art")
	}
	b = blocks[k]
	Block(img, pa.Gray, pa.Paper, Target{Box: b.Box, Char: b.Char, Ink: b.Ink})
	return img, plate, b
}

// Lettering across a panel's frame, a coarse tone on each side (hard seed 6, 私は佐藤美咲。よろしくね。):
// the lattice of the one, judged loosely on the scan's noise, was copied over the other and laid
// stripes on it. Loosely judged, a lattice must hold on every side of the lettering; failing
// that, the art is rebuilt from around as before.
func TestBlockAcrossTwoTonesLaysNoStripes(t *testing.T) {
	img, plate, b := erasedOnArt(t, 6, "私は佐藤美咲。よろしくね。")
	far := 0
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if page.ColorDist(img.RGBAAt(x, y), plate.RGBAAt(x, y)) > 100 {
				far++
			}
		}
	}
	// Rebuilt from around, the art is near what it was over all but a few edges; striped, a
	// tenth of the box is far from it.
	if far*10 >= b.Box.Dx()*b.Box.Dy() {
		t.Errorf("%d of the %d pixels of the erased box are far from the page drawn without the lettering", far, b.Box.Dx()*b.Box.Dy())
	}
}

// Lettering over speed lines that end at a black band above it (hard seed 1, 二人とも、
// 喧嘩はやめて！, whose 二 touches the band's edge): the lines repeat along themselves at any
// step, which passed for a tone of lines, and copied along them the band ran down over the
// erased lettering. Lines with no period across them are no tone; the art is rebuilt from
// around.
func TestBlockOnSpeedLinesBelowABandCopiesNoBand(t *testing.T) {
	img, plate, b := erasedOnArt(t, 1, "二人とも、喧嘩はやめて！")
	darkened := 0
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if page.Luma(plate.RGBAAt(x, y)) > 200 && page.Luma(img.RGBAAt(x, y)) < 100 {
				darkened++
			}
		}
	}
	// Rebuilt from around, a stroke's edge or two goes dark; with the band run down, a third of
	// the box.
	if darkened*20 >= b.Box.Dx()*b.Box.Dy() {
		t.Errorf("%d of the %d pixels of the erased box, white on the page drawn without the lettering, are now dark", darkened, b.Box.Dx()*b.Box.Dy())
	}
}

// Lettering on a tone whose columns kept a halo each, joined by the finder into one block (hard
// seed 7, 今度こそ倒してやる！ a little way from a panel's frame), is erased column by column,
// each as it was found: erased as one, the column by the frame was left a pale sliver of its
// halo on the tone. Measured in cells of 4 px, whose mean the tone's fine dots hardly change
// wherever they fall, against the page drawn without the lettering.
func TestBlockOfJoinedHalosErasesEachColumnFromItsTone(t *testing.T) {
	const text = "今度こそ倒してやる！"
	img, plate, want := generatedLettering(t, 7, mangapage.Options{Hard: true}, text)
	blocks, pa := find.Manga(img, true)
	k := slices.IndexFunc(blocks, func(b *page.Block) bool { return b.Box.Overlaps(want.Box) && b.Bubble != nil && len(b.Lines) == 3 })
	if k < 0 {
		t.Fatalf("the finder no longer finds %s as one haloed block of three columns", text)
	}
	b := blocks[k]
	Block(img, pa.Gray, pa.Paper, Target{Box: b.Box, Char: b.Char, Ink: b.Ink, Bubble: b.Bubble, Paper: b.Paper})
	const cell = 4
	blotches, cells := 0, 0
	erased := b.Box.Inset(-b.Char / 2) // the strokes, their halo and the tone carried around them
	for y := erased.Min.Y; y+cell <= erased.Max.Y; y += cell {
		for x := erased.Min.X; x+cell <= erased.Max.X; x += cell {
			got, drawn := 0, 0
			for yy := y; yy < y+cell; yy++ {
				for xx := x; xx < x+cell; xx++ {
					got += int(page.Luma(img.RGBAAt(xx, yy)))
					drawn += int(page.Luma(plate.RGBAAt(xx, yy)))
				}
			}
			cells++
			if d := (got - drawn) / (cell * cell); d > 40 || d < -40 {
				blotches++
			}
		}
	}
	if blotches > 4 {
		t.Errorf("%d of the %d cells of 4 px about the erased block are visibly lighter or darker than the tone drawn there", blotches, cells)
	}
}
