package letter

import (
	"bytes"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"

	"github.com/vtsproject/vts/internal/engine/page"
)

// ellipseShape is the outline of an ellipse, as a transcript keeps a bubble's shape.
func ellipseShape(cx, cy, rx, ry float64) []image.Point {
	var pts []image.Point
	for i := range 64 {
		a := 2 * math.Pi * float64(i) / 64
		pts = append(pts, image.Pt(int(cx+rx*math.Cos(a)), int(cy+ry*math.Sin(a))))
	}
	return pts
}

// A short line in a roomy bubble is lettered large enough to fill it, as a letterer would,
// not at the small size of the source's characters: the lettering spans at least half the
// bubble's width and a third of its height, and stays inside it.
func TestBlockFillsTheBubble(t *testing.T) {
	white := color.RGBA{255, 255, 255, 255}
	img := blank(400, 300, white)
	area := page.Polygon(ellipseShape(200, 150, 150, 100))
	f := testFonts(t)
	f.Block(img, Target{Box: image.Rect(170, 90, 230, 210), Area: area, Char: 24, Paper: white}, "I will fight for you.", "en")
	ink, n := inkBox(img, img.Bounds(), white)
	if n == 0 {
		t.Fatal("nothing lettered")
	}
	if w, h := float64(ink.Dx())/float64(area.Box.Dx()), float64(ink.Dy())/float64(area.Box.Dy()); w < 0.5 || h < 0.33 {
		t.Errorf("lettering %v fills %.2f of the bubble's width and %.2f of its height, want ≥ 0.5 and ≥ 0.33", ink, w, h)
	}
	for y := ink.Min.Y; y < ink.Max.Y; y++ {
		for x := ink.Min.X; x < ink.Max.X; x++ {
			if img.RGBAAt(x, y) != white && !area.Has(x, y) {
				t.Fatalf("ink at (%d,%d), outside the bubble", x, y)
			}
		}
	}
}

// Lines are balanced: where filling each line in turn leaves a straggler ("okay?"), the lines
// are set at like lengths, in as many lines and at the same size.
func TestBlockBalancesLines(t *testing.T) {
	text := "Let's get out of here before they notice us, okay?"
	l := &letterer{fnt: testFonts(t).primary, text: text}
	area := page.Polygon(page.Corners(image.Rect(0, 0, 260, 200)))
	toks := strings.Fields(text)
	greedy, ok := tryShape(l.face(22), toks, area, centroid(area), setting{1.15, false, roomy}, 1)
	if !ok || spread(greedy) > 0.5 {
		t.Fatalf("greedy lines %q: the case needs a straggler", lines(greedy))
	}
	lay := balance(greedy, toks, area, centroid(area), setting{1.15, false, roomy})
	if len(lay.lines) != len(greedy.lines) || spread(lay) < 0.6 {
		t.Errorf("balanced lines %q, want %d lines the shortest at least 0.6 of the longest", lines(lay), len(greedy.lines))
	}
}

// spread is the shortest line's width over the longest's.
func spread(lay shapeLayout) float64 {
	shortest, longest := lay.lines[0].width, lay.lines[0].width
	for _, ln := range lay.lines {
		shortest, longest = min(shortest, ln.width), max(longest, ln.width)
	}
	return float64(shortest) / float64(longest)
}

func lines(lay shapeLayout) []string {
	var out []string
	for _, ln := range lay.lines {
		out = append(out, ln.text)
	}
	return out
}

// lettering=upper sets the translation in capitals, also when the page is lettered again from
// its transcript: the page carries the choice.
func TestUpperLettering(t *testing.T) {
	white := color.RGBA{255, 255, 255, 255}
	f := testFonts(t)
	shape := ellipseShape(150, 100, 120, 80)
	letterWith := func(text, lettering string) []byte {
		img := blank(300, 200, white)
		p := &page.Page{Image: img, TargetLang: "en", Lettering: lettering, Blocks: []page.Block{{
			Box: image.Rect(120, 60, 180, 140), Shape: shape, Kind: page.Bubble, Lang: "ja",
			Source: "お前は何者だ", Translation: text,
		}}}
		if n := Letter(p, f); n != 1 {
			t.Fatalf("lettered %d blocks", n)
		}
		return img.Pix
	}
	upper := letterWith("Who are you?", "upper")
	if !bytes.Equal(upper, letterWith("WHO ARE YOU?", "")) {
		t.Error("lettering=upper is not the translation in capitals")
	}
	if bytes.Equal(upper, letterWith("Who are you?", "")) {
		t.Error("mixed case lettering came out in capitals")
	}
}

// A word broken at a line's end is broken where a syllable ends (strong-er, under-stand,
// hap-pened), never after a lone onset (unders-tand) or inside one sound (someth-ing); else
// after a vowel before a consonant (pro-tect, every-thing), and anywhere only when no such
// break fits the line.
func TestHyphenationBreaksAtSyllables(t *testing.T) {
	face := (&letterer{fnt: testFonts(t).primary}).face(20)
	wide := fixed.I(1000)
	for word, want := range map[string]string{
		"stronger.":  "strong-",
		"understand": "under-",
		"happened":   "hap-",
		"tomorrow!":  "tomor-",
		"waiting":    "wait-",
		"protect":    "pro-", // no syllable's end by rule: after a vowel, before a consonant
		"everything": "every-",
		"Someone's":  "Some-", // a compound, where no vowel rule breaks it well (Som-eone's)
	} {
		if head, _ := splitToFit(face, word, wide); head != want {
			t.Errorf("%q broken as %q, want %q", word, head, want)
		}
	}
	// No syllable's end fits: the longest head that fits.
	narrow := font.MeasureString(face, "stro-")
	if head, tail := splitToFit(face, "stronger", narrow); head != "stro-" || tail != "nger" {
		t.Errorf("stronger in %v: %q + %q, want the break that fits", narrow, head, tail)
	}
	for _, word := range []string{"Eek!", "Quiet!", "school", "wait..."} {
		if head, _ := splitToFit(face, word, font.MeasureString(face, word)/2); head != "" {
			t.Errorf("a short word broken: %q", head)
		}
	}
}

// A short word that does not fit its line at the smallest readable size is set closer to the
// balloon's edge, or smaller, but never broken (Qui-et!, sch-ool read as misprints); a long
// word with no room is still hyphenated rather than set illegibly small.
func TestShortWordsAreNotBroken(t *testing.T) {
	l := &letterer{fnt: testFonts(t).primary}
	const size = 20
	for _, c := range []struct {
		text  string
		broke bool
	}{
		{"Quiet!", false},
		{"Go to school.", false},
		{"Unbelievable!", true},
	} {
		l.text = c.text
		// A balloon as narrow as the longest word at the readable size, with none of the
		// margin a line keeps: the word fits only set tight, or smaller.
		w := font.MeasureString(l.face(size), "Quiet!").Ceil() + 2
		area := page.Polygon(page.Corners(image.Rect(0, 0, w, 200)))
		lay := l.fitShape(area, image.Rectangle{}, size*1.5, size)
		if hyphenated(lay) != c.broke {
			t.Errorf("%q set as %q: hyphenated %v, want %v", c.text, lines(lay), hyphenated(lay), c.broke)
		}
		if lay.overflow {
			t.Errorf("%q overflowed its balloon: %q", c.text, lines(lay))
		}
	}
}

// A balloon open at its foot, or at its side, to a panel's white gives a bubble that runs on
// into that white: the translation is set where the source was, in the balloon and centred on
// the source, not at the centroid of balloon and white together, out on the art.
func TestBlockInABalloonOpenToThePanelStaysInTheBalloon(t *testing.T) {
	white := color.RGBA{255, 255, 255, 255}
	balloon := page.Polygon(ellipseShape(400, 160, 90, 130))
	src := image.Rect(380, 70, 420, 250)
	for _, strip := range []image.Rectangle{
		image.Rect(0, 260, 800, 560), // the panel's white under the balloon
		image.Rect(0, 60, 330, 260),  // and beside it
	} {
		img := blank(800, 600, white)
		area := &page.Mask{Box: balloon.Box.Union(strip)}
		area.Mask = make([]bool, area.Box.Dx()*area.Box.Dy())
		for y := area.Box.Min.Y; y < area.Box.Max.Y; y++ {
			for x := area.Box.Min.X; x < area.Box.Max.X; x++ {
				if balloon.Has(x, y) || image.Pt(x, y).In(strip) {
					area.Mask[(y-area.Box.Min.Y)*area.Box.Dx()+x-area.Box.Min.X] = true
					area.Area++
				}
			}
		}
		testFonts(t).Block(img, Target{Box: src, Area: area, Char: 20, Paper: white}, "I don't believe in fate.", "en")
		ink, n := inkBox(img, img.Bounds(), white)
		if n == 0 {
			t.Fatal("nothing lettered")
		}
		if c := ink.Min.Add(ink.Max).Div(2); !ink.In(balloon.Box) || c.X < 380 || c.X > 420 {
			t.Errorf("open to %v: lettered at %v (centre %v), want it in the balloon %v, centred on the source %v", strip, ink, c, balloon.Box, src)
		}
	}
}

// A tall, narrow balloon (a column of Japanese) is lettered as a letterer sets English in it:
// long words one to a line at a size that fills the balloon's height, not wide lines at the
// smallest size; a short word is still never left alone on a line of a column, unless a mark
// ends it (Hey,).
func TestTallBalloonIsFilled(t *testing.T) {
	l := &letterer{fnt: testFonts(t).primary}
	area := page.Polygon(ellipseShape(120, 354, 120, 354)).Erode(11)
	near := image.Rect(60, 110, 180, 590)
	l.text = "Looks like the train already left."
	lay := l.fitShape(area, near, 46*1.5, 30)
	if h := float64(lay.lineH.Mul(fixed.I(len(lay.lines))).Ceil()) / float64(area.Box.Dy()); h < 0.3 {
		t.Errorf("%q fills %.2f of the balloon's height, want ≥ 0.3", lines(lay), h)
	}
	// A call ended by its comma may stand alone on a line, and the words are broken where a
	// letterer would break them, not each line filled in turn ("Hey, are / you / ...").
	l.text = "Hey, are you listening?"
	lay = l.fitShape(area, near, 46*1.5, 30)
	if h := float64(lay.lineH.Mul(fixed.I(len(lay.lines))).Ceil()) / float64(area.Box.Dy()); h < 0.2 {
		t.Errorf("%q fills %.2f of the balloon's height, want ≥ 0.2", lines(lay), h)
	}
	l.text = "Fine, I guess I'll go with you then."
	lay = l.fitShape(area, near, 46*1.5, 30)
	for _, ln := range lay.lines {
		if !strings.Contains(ln.text, " ") && letters([]rune(ln.text)) <= 3 && len(lay.lines) > 2 {
			t.Errorf("%q leaves %q alone on a line", lines(lay), ln.text)
		}
	}
}
