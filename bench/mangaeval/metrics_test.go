package main

import (
	"image"
	"image/color"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

func TestFragmentSimilarity(t *testing.T) {
	ref := []rune("俺の夢は世界一の剣士になることだ！")
	if got := fragmentSimilarity(ref, []rune("世界一の剣士に")); got != 1 {
		t.Errorf("an exact column scores %v", got)
	}
	if got := fragmentSimilarity(ref, []rune("世界ーの剣土に")); math.Abs(got-5.0/7) > 1e-9 {
		t.Errorf("a column with two misreadings scores %v, want 5/7", got)
	}
	if got := fragmentSimilarity(ref, []rune("ABC")); got != 0 {
		t.Errorf("an unrelated fragment scores %v", got)
	}
}

func rect(x, y, w, h int) engine.Rect { return engine.Rect{X: x, Y: y, W: w, H: h} }

func TestMatchBlock(t *testing.T) {
	box := image.Rect(100, 100, 200, 300)
	blocks := []image.Rectangle{
		image.Rect(500, 500, 600, 600), // elsewhere
		image.Rect(190, 100, 260, 300), // grazes the box
		image.Rect(110, 90, 210, 290),  // the bubble
	}
	if got := matchBlock(box, blocks); got != 2 {
		t.Errorf("matchBlock = %d, want 2", got)
	}
	if got := matchBlock(box, blocks[:1]); got != -1 {
		t.Errorf("matchBlock without overlap = %d, want -1", got)
	}
	// A transcript of the page rendered at half size is scaled back.
	tr := &engine.Transcript{Width: 500, Height: 500, Blocks: []engine.TranscriptBlock{{Box: rect(50, 50, 50, 100)}}}
	if got := blockBoxes(tr, image.Rect(0, 0, 1000, 1000)); !slices.Equal(got, []image.Rectangle{image.Rect(100, 100, 200, 300)}) {
		t.Errorf("blockBoxes = %v", got)
	}
}

func TestScoreReading(t *testing.T) {
	page := image.Rect(0, 0, 1000, 1000)
	bubbles := []mangapage.Bubble{
		{Box: image.Rect(100, 100, 150, 300), Kind: mangapage.KindBubble, Text: "田中先輩、おはようございます！"},
		{Box: image.Rect(400, 100, 450, 300), Kind: mangapage.KindBubble, Text: "ちょっと待って！"},
		{Box: image.Rect(700, 100, 750, 300), Kind: mangapage.KindBubble, Text: "はい！"},
	}
	tr := &engine.Transcript{Blocks: []engine.TranscriptBlock{
		{Box: rect(95, 98, 60, 205), Source: "田中先輩、おはよう ございます!"},
		{Box: rect(400, 100, 50, 200), Source: "ちよつとネ寺"}, // 6 edits for 8 characters
		{Box: rect(10, 900, 50, 50), Source: "ノイズ"},
	}}
	got := scoreReading(bubbles, tr, page)
	want := []reading{
		{Block: 0, Source: "田中先輩、おはよう ございます!", CER: 0, Read: true},
		{Block: 1, Source: "ちよつとネ寺", CER: 6.0 / 8, Read: false},
		{Block: -1, CER: 1},
	}
	for i := range want {
		if got[i].Block != want[i].Block || got[i].Read != want[i].Read || math.Abs(got[i].CER-want[i].CER) > 1e-9 {
			t.Errorf("bubble %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if n := extraBlocks(bubbles, tr, page); n != 1 {
		t.Errorf("extraBlocks = %d, want 1", n)
	}
	// Without a transcript every bubble is missed.
	for i, r := range scoreReading(bubbles, nil, page) {
		if r.Block != -1 || r.CER != 1 || r.Read {
			t.Errorf("bubble %d without transcript: %+v", i, r)
		}
	}
}

func TestWordSpacing(t *testing.T) {
	for _, c := range []struct {
		ref, hyp      string
		spaced, right bool
	}{
		{"괜찮아, 내가 있잖아.", "괜찮아, 내가 있잖아.", true, true},
		{"괜찮아, 내가 있잖아.", "괜찮아,내가있잖아.", true, false},    // every space lost: CER 0 all the same
		{"괜찮아, 내가 있잖아.", "괜찮아, 내 가 있잖아.", true, false}, // one added
		{"말도 안 돼...", "말도 안 돼…", true, true},           // NFKC: … is ...
		{"괜찮아, 내가 있잖아.", "괜찬아, 내가 있잖아.", false, false}, // a wrong character: the CER counts it
		{"ちょっと待って！", "ちょっと 待って！", false, false},        // no spaces to get right
	} {
		spaced, right := wordSpacing(c.ref, c.hyp)
		if spaced != c.spaced || right != c.right {
			t.Errorf("wordSpacing(%q, %q) = %v, %v; want %v, %v", c.ref, c.hyp, spaced, right, c.spaced, c.right)
		}
	}
	var tl tally
	tl.add(pageResult{Bubbles: []bubbleResult{
		{Scored: true, Reading: reading{Read: true, Spaced: true, SpacedRight: true}},
		{Scored: true, Reading: reading{Read: true, Spaced: true}},
		{Scored: true, Reading: reading{Read: true}},
	}})
	if tl.Spaced != 2 || tl.SpacedRight != 1 {
		t.Errorf("tally: spaced %d, right %d; want 2, 1", tl.Spaced, tl.SpacedRight)
	}
}

func TestWords(t *testing.T) {
	if got, want := words("Don't worry. I'm with you, Tanaka-senpai!"), []string{"don", "worry", "with", "you", "tanaka", "senpai"}; !slices.Equal(got, want) {
		t.Errorf("words = %q, want %q", got, want)
	}
	want := words("Not yet... It's not over yet!")
	if n := wordsFound(want, words("NOT YET! over")); n != 3 {
		t.Errorf("wordsFound = %d, want 3 (each read word counts once)", n)
	}
	if n := wordsFound(want, words("Not yet... It's not over yet!")); n != len(want) {
		t.Errorf("wordsFound of the same text = %d, want %d", n, len(want))
	}
}

// glyphPage is a 120×120 page with white paper (250) and a balloon whose lettering is four
// black (20) bars, annotated with their exact mask.
func glyphPage(paper, ink uint8) (*image.Gray, mangapage.Bubble) {
	img := image.NewGray(image.Rect(0, 0, 120, 120))
	for i := range img.Pix {
		img.Pix[i] = paper
	}
	box := image.Rect(40, 30, 80, 90)
	mask := image.NewAlpha(box)
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if (x-box.Min.X)%10 < 4 {
				img.SetGray(x, y, color.Gray{ink})
				mask.SetAlpha(x, y, color.Alpha{255})
			}
		}
	}
	return img, mangapage.Bubble{Box: box, Balloon: image.Rect(20, 10, 100, 110), Kind: mangapage.KindBubble, Ink: mask}
}

// erase returns src with the first frac of its ink rows painted v.
func erase(src *image.Gray, b mangapage.Bubble, frac float64, v uint8) *image.Gray {
	out := image.NewGray(src.Rect)
	copy(out.Pix, src.Pix)
	rows := int(float64(b.Box.Dy()) * frac)
	for y := b.Box.Min.Y; y < b.Box.Min.Y+rows; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if b.Ink.AlphaAt(x, y).A > 0 {
				out.SetGray(x, y, color.Gray{v})
			}
		}
	}
	return out
}

func TestScoreEmptying(t *testing.T) {
	src, b := glyphPage(250, 20)
	for _, c := range []struct {
		name    string
		out     image.Image
		cleared float64
		emptied bool
	}{
		{"untouched", src, 0, false},
		{"erased", erase(src, b, 1, 250), 1, true},
		{"a faint ghost left", erase(src, b, 1, 180), 1, true},
		{"a dark ghost left", erase(src, b, 1, 120), 0, false},
		{"half erased", erase(src, b, 0.5, 250), 0.5, false},
		{"all but the last character", erase(src, b, 0.95, 250), 0.95, true},
	} {
		e := scoreEmptying(src, nil, c.out, b)
		if !e.Measured || math.Abs(e.Cleared-c.cleared) > 0.01 || e.Emptied != c.emptied {
			t.Errorf("%s: %+v, want cleared %.2f emptied %v", c.name, e, c.cleared, c.emptied)
		}
		// The same from a mask derived from the pixels, as for pages annotated with boxes only.
		nb := b
		nb.Ink = nil
		if d := scoreEmptying(src, nil, c.out, nb); d.Emptied != e.Emptied || math.Abs(d.Cleared-e.Cleared) > 0.01 || d.InkPixels != e.InkPixels {
			t.Errorf("%s without mask: %+v, with mask %+v", c.name, d, e)
		}
	}
	// Measured on an output page twice the size.
	big := image.NewGray(image.Rect(0, 0, 240, 240))
	half := erase(src, b, 0.5, 250)
	for y := range 240 {
		for x := range 240 {
			big.SetGray(x, y, half.GrayAt(x/2, y/2))
		}
	}
	if e := scoreEmptying(src, nil, big, b); math.Abs(e.Cleared-0.5) > 0.01 {
		t.Errorf("on a 2× output: cleared %.2f, want 0.5", e.Cleared)
	}
	// White lettering on a black caption, cleaned to black.
	dark, db := glyphPage(15, 240)
	if e := scoreEmptying(dark, nil, erase(dark, db, 1, 15), db); !e.Emptied {
		t.Errorf("a cleaned dark caption: %+v", e)
	}
	if e := scoreEmptying(dark, nil, dark, db); e.Emptied || e.Cleared != 0 {
		t.Errorf("an untouched dark caption: %+v", e)
	}
	// Lettering without contrast cannot be measured.
	flat, fb := glyphPage(200, 190)
	if e := scoreEmptying(flat, nil, flat, fb); e.Measured {
		t.Errorf("a bubble without contrast was measured: %+v", e)
	}
}

func TestOracleLookup(t *testing.T) {
	o := &oracle{}
	o.set([]mangapage.Bubble{
		{Text: "俺の夢は世界一の剣士になることだ！", Translation: "My dream is to become the world's greatest swordsman!"},
		{Text: "はい！", Translation: "Yes!"},
		{Text: "ドドド", Kind: mangapage.KindSFX, Translation: "RUMBLE"},
		{Text: "ドン", Kind: mangapage.KindSFX, Translation: "BOOM"},
		{Text: "別に。", Translation: "Not really."},
		{Text: "山田くん、ちょっといい？", Translation: "Yamada, got a minute?"},
	}, nil)
	for _, c := range []struct{ src, want string }{
		{"俺の夢は世界一の剣士になることだ!", "My dream is to become the world's greatest swordsman!"},
		{"俺の夢は世界ーの剣土になることだ", "My dream is to become the world's greatest swordsman!"}, // misread
		{"世界一の剣士に", "My dream is to become the world's greatest swordsman!"},          // one column
		{"はい！", "Yes!"},
		{"ドドド", "RUMBLE"},
		{"", ""},
		{"  ", ""},
		{"！", ""},         // a lone mark is not the bubble it ends
		{"NNN vg マッ", ""}, // noise
		{"別 に", "Not really."},
		{"ルン", ""},  // one kana in common with ドン
		{"いい", ""},  // two kana that occur in a bubble
		{"し た", ""}, // and two that do not
		{"山田くん", "Yamada, got a minute?"},
		{"ちよっと", "Yamada, got a minute?"}, // a third of the bubble, one misreading
		{"ちよつと", ""},                      // two misreadings
		{"っと", ""},                        // too little of it
	} {
		if got := o.lookup(c.src); got != c.want {
			t.Errorf("lookup(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}

func TestTally(t *testing.T) {
	var tl tally
	for i := 1; i <= 10; i++ {
		tl.add(pageResult{Seconds: float64(i), Transcript: true, Bubbles: []bubbleResult{
			{Scored: true, Reading: reading{CER: 0, Read: true}, WordsTotal: 4, WordsFound: 2, Emptying: emptying{Measured: true, Emptied: i%2 == 0}},
			{Scored: true, Reading: reading{CER: 1}, WordsTotal: 2},
			{Scored: false, Reading: reading{CER: 1}}, // a sound effect
		}})
	}
	if tl.Bubbles != 20 || tl.Read != 10 || tl.meanCER() != 0.5 {
		t.Errorf("bubbles %d read %d mean CER %v", tl.Bubbles, tl.Read, tl.meanCER())
	}
	if tl.WordsFound != 20 || tl.WordsTotal != 60 || tl.Emptied != 5 || tl.Measured != 10 {
		t.Errorf("words %d/%d emptied %d/%d", tl.WordsFound, tl.WordsTotal, tl.Emptied, tl.Measured)
	}
	if tl.meanSeconds() != 5.5 || tl.percentile(90) != 9 || math.Abs(tl.pagesPerSecond()-10.0/55) > 1e-9 {
		t.Errorf("mean %v p90 %v pages/s %v", tl.meanSeconds(), tl.percentile(90), tl.pagesPerSecond())
	}
	// What the engine sent for translation that matches no annotated text is counted apart.
	var sent tally
	sent.add(pageResult{Oracle: []exchange{{Source: "お前は何者だ？", Answer: "Who are you?"}, {Source: "エキ"}, {Source: "ンクァ"}}})
	if sent.Sent != 3 || sent.Unmatched != 2 {
		t.Errorf("sent %d, unmatched %d; want 3, 2", sent.Sent, sent.Unmatched)
	}
	// A failed page's bubbles count as not emptied.
	var f tally
	f.add(pageResult{Error: "boom", Bubbles: []bubbleResult{{Scored: true, Reading: reading{CER: 1}}}})
	if f.Failed != 1 || f.Measured != 1 || f.Emptied != 0 {
		t.Errorf("failed page: %+v", f)
	}
}

// ghost returns out with a one-pixel outline of level v around every glyph bar: what filling
// glyph cores with paper leaves of their anti-aliased edges.
func ghost(out *image.Gray, b mangapage.Bubble, v uint8) *image.Gray {
	g := image.NewGray(out.Rect)
	copy(g.Pix, out.Pix)
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X - 1; x <= b.Box.Max.X; x++ {
			in := b.Ink.AlphaAt(x, y).A > 0
			if !in && (b.Ink.AlphaAt(x-1, y).A > 0 || b.Ink.AlphaAt(x+1, y).A > 0) {
				g.SetGray(x, y, color.Gray{v})
			}
		}
	}
	return g
}

func TestResidue(t *testing.T) {
	src, b := glyphPage(250, 20)
	clean := erase(src, b, 1, 250)
	for _, c := range []struct {
		name     string
		out      image.Image
		min, max float64
	}{
		{"erased to paper", clean, 0, 0},
		{"glyph edges left as a light grey outline", ghost(clean, b, 210), 0.05, 1},
		{"edges a barely different white", ghost(clean, b, 240), 0, 0},
		{"untouched", src, 0.3, 1},
	} {
		r, ok := residue(src, nil, c.out, b)
		if !ok || r < c.min || r > c.max {
			t.Errorf("%s: residue %.3f (measured %v), want %.2f–%.2f", c.name, r, ok, c.min, c.max)
		}
	}
	// The balloon's outline beside the glyphs is another drawing, kept by a clean erase: not a
	// ghost.
	edged := image.NewGray(src.Rect)
	copy(edged.Pix, src.Pix)
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		edged.SetGray(b.Box.Max.X+1, y, color.Gray{10})
	}
	kept := erase(edged, b, 1, 250)
	if r, _ := residue(edged, nil, kept, b); r > maxCleanResidue {
		t.Errorf("the outline kept by the erase counted as residue %.3f", r)
	}
}

func TestLetteringFill(t *testing.T) {
	src, b := glyphPage(250, 20)
	cleaned := erase(src, b, 1, 250)
	out := image.NewGray(cleaned.Rect)
	copy(out.Pix, cleaned.Pix)
	// Lettering 40 px wide and 20 px tall in an 80×100 balloon.
	for y := 50; y < 70; y++ {
		for x := 40; x < 80; x += 2 {
			out.SetGray(x, y, color.Gray{0})
		}
	}
	w, h, ok := letteringFill(src, out, cleaned, b)
	if !ok || math.Abs(w-39.0/80) > 0.01 || math.Abs(h-0.2) > 0.01 {
		t.Errorf("fill %.2f × %.2f (%v), want 0.49 × 0.20", w, h, ok)
	}
	if _, _, ok := letteringFill(src, cleaned, cleaned, b); ok {
		t.Error("a balloon with no lettering was measured")
	}
}

// Lettering set where its balloon's paper ran on, out on the page beside the balloon, is
// measured as the share of it outside the balloon; lettering inside is none.
func TestLetteringOutside(t *testing.T) {
	src, b := glyphPage(250, 20)
	cleaned := erase(src, b, 1, 250)
	letter := func(x0, x1 int) *image.Gray {
		out := image.NewGray(cleaned.Rect)
		copy(out.Pix, cleaned.Pix)
		for y := 50; y < 70; y++ {
			for x := x0; x < x1; x++ {
				out.SetGray(x, y, color.Gray{0})
			}
		}
		return out
	}
	shape := []engine.Point{{X: 0, Y: 0}, {X: 119, Y: 0}, {X: 119, Y: 119}, {X: 0, Y: 119}}
	if s, ok := letteringOutside(src, letter(50, 70), cleaned, b, shape); !ok || s != 0 {
		t.Errorf("lettering inside the balloon %v: %.2f outside (%v), want 0", b.Balloon, s, ok)
	}
	// 60 px of lettering from x 60, the balloon ending at x 100 (+2): 18 columns of 60 outside.
	if s, ok := letteringOutside(src, letter(60, 120), cleaned, b, shape); !ok || math.Abs(s-18.0/60) > 0.01 {
		t.Errorf("lettering running out of the balloon %v: %.2f outside (%v), want 0.30", b.Balloon, s, ok)
	}
	if _, ok := letteringOutside(src, cleaned, cleaned, b, shape); ok {
		t.Error("a balloon with no lettering was measured")
	}
}

// Against the page without its lettering (the plate), what was under the glyphs is what a clean
// erase gives back: a tone rebuilt a pixel off its place is clean, the glyphs left are not, and
// on black art the letterer's white halo left around erased glyphs is a ghost, where black is
// no ghost at all (the paper-colour measure had it backwards).
func TestEmptyingAgainstThePlate(t *testing.T) {
	box := image.Rect(40, 30, 80, 90)
	page := func(under func(x, y int) uint8, halo, ink uint8) (src, plate *image.Gray, b mangapage.Bubble) {
		src, plate = image.NewGray(image.Rect(0, 0, 120, 120)), image.NewGray(image.Rect(0, 0, 120, 120))
		mask := image.NewAlpha(box)
		for y := range 120 {
			for x := range 120 {
				v := under(x, y)
				plate.SetGray(x, y, color.Gray{v})
				col := (x - box.Min.X) % 10
				switch in := image.Pt(x, y).In(box); {
				case in && col >= 3 && col < 7:
					v = ink
					mask.SetAlpha(x, y, color.Alpha{255})
				case in && halo != 0 && col >= 1 && col < 9:
					v = halo
				}
				src.SetGray(x, y, color.Gray{v})
			}
		}
		return src, plate, mangapage.Bubble{Box: box, Kind: mangapage.KindFree, Ink: mask}
	}
	tone := func(x, y int) uint8 {
		if x%4 < 2 && y%4 < 2 {
			return 90
		}
		return 235
	}
	src, plate, b := page(tone, 0, 20)
	shifted := image.NewGray(plate.Rect)
	for y := range 120 {
		for x := range 120 {
			shifted.SetGray(x, y, color.Gray{tone(x+1, y)})
		}
	}
	for _, c := range []struct {
		name    string
		out     image.Image
		emptied bool
		ghosts  bool
	}{
		{"the plate itself", plate, true, false},
		{"the tone rebuilt a pixel off its place", shifted, true, false},
		{"untouched", src, false, true},
	} {
		e := scoreEmptying(src, plate, c.out, b)
		r, ok := residue(src, plate, c.out, b)
		if !e.Measured || e.Emptied != c.emptied || !ok || (r > maxCleanResidue) != c.ghosts {
			t.Errorf("lettering on a tone, %s: %+v, residue %.3f (measured %v); want emptied %v, ghosts %v", c.name, e, r, ok, c.emptied, c.ghosts)
		}
	}
	black := func(x, y int) uint8 { return 15 }
	src, plate, b = page(black, 240, 120)
	haloLeft := image.NewGray(src.Rect)
	copy(haloLeft.Pix, src.Pix)
	for i := range haloLeft.Pix {
		if haloLeft.Pix[i] == 120 {
			haloLeft.Pix[i] = 15
		}
	}
	if e, r := scoreEmptying(src, plate, plate, b), func() float64 { r, _ := residue(src, plate, plate, b); return r }(); !e.Emptied || r > maxCleanResidue {
		t.Errorf("haloed lettering on black erased to black: %+v, residue %.3f", e, r)
	}
	if e := scoreEmptying(src, nil, plate, b); e.Emptied {
		t.Errorf("the paper-colour measure was expected to miss an erase to black: %+v", e)
	}
	if r, _ := residue(src, plate, haloLeft, b); r <= maxCleanResidue {
		t.Errorf("the glyphs erased to black inside their white halo: residue %.3f, want ghosts", r)
	}
}

// A page Tesseract alone was stopped on counts in neither its time nor the ratio to it, and the
// report says so.
func TestBaselineStopped(t *testing.T) {
	results := map[string][]pageResult{"ja": {
		{Seconds: 2, BaselineSeconds: 8},
		{Seconds: 3, BaselineStopped: true},
		{Seconds: 1, BaselineSeconds: 4},
	}}
	md := markdown("test pages", config{Srcs: []string{"ja"}, Engine: "ocr", Mode: "standard"}, results)
	// Tesseract alone: (8+4)/2 = 6.00 s a page; the engine took 3 s on those pages: 0.25×.
	if !strings.Contains(md, "| 2.00 | 3.00 | 0.50 | 6.00 | 0.25 |") {
		t.Errorf("speed columns not over the pages Tesseract alone finished:\n%s", md)
	}
	if !strings.Contains(md, "stopped after 1m30s on 1 of 3 pages") {
		t.Errorf("no note of the stopped page:\n%s", md)
	}
}
