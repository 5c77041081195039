package find

import (
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"

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

// Two balloons without outlines drawn over each other share one paper area, with a face
// between them: each holds its own speech, found as a block of its own with its own share of
// the paper.
func TestMangaBalloonsOverEachOtherAreTwoSpeeches(t *testing.T) {
	var got []*page.Block
	for _, text := range []string{"君の名前は？", "君は一人じゃない。"} {
		b, _, want := lettering(t, 7, mangapage.Options{Hard: true}, text)
		if b == nil {
			continue
		}
		if b.Bubble == nil || !b.Box.In(want.Box.Inset(-b.Char)) {
			t.Errorf("%q at %v found as %v, in a balloon %v", text, want.Box, b.Box, b.Bubble != nil)
			continue
		}
		got = append(got, b)
	}
	if len(got) < 2 {
		return
	}
	if got[0] == got[1] {
		t.Fatalf("both speeches found as one block at %v", got[0].Box)
	}
	a, b := got[0].Bubble, got[1].Bubble
	r := a.Box.Intersect(b.Box)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.Has(x, y) && b.Has(x, y) {
				t.Fatalf("the two speeches' balloons share the paper at %d,%d", x, y)
			}
		}
	}
}

// A balloon without an outline cut out of a dense dot tone shares its paper with the thin gaps
// between the dots, which the blur leaves light: its lettering is still found whole, with the
// balloon's own body as its bubble.
func TestMangaBalloonCutOutOfADenseTone(t *testing.T) {
	b, _, want := lettering(t, 24, mangapage.Options{Hard: true}, "明日、試合だろ？")
	if b == nil {
		return
	}
	if !b.Vertical || !want.Box.In(b.Box.Inset(-b.Char/2)) || b.Bubble == nil || !b.Bubble.Box.In(want.Balloon.Inset(-b.Char)) {
		t.Errorf("found as %v (vertical %v), want %v in the balloon %v", b.Box, b.Vertical, want.Box, want.Balloon)
	}
}

// A column of free text crossing a panel's lines runs out of the white body it starts in: it
// stays the one block found around that body, not the part of it the body holds.
func TestMangaColumnRunningOutOfABodyStaysWhole(t *testing.T) {
	b, _, want := lettering(t, 7, mangapage.Options{}, "その手を離せ！")
	if b != nil && !want.Box.In(b.Box.Inset(-b.Char/2)) {
		t.Errorf("found as %v, want the whole column %v", b.Box, want.Box)
	}
}

// A burst open at its tail and a balloon open to a figure share one panel's white, with the art
// between them: the white is neither's balloon. Each shout keeps its own body (or, failing one,
// none), so its lettering is set where it was and not in the middle of the panel.
func TestMangaShoutsOpenToOnePanelAreNotItsWhite(t *testing.T) {
	for _, text := range []string{"絶対に許さない！", "誰にも言っちゃダメだよ。"} {
		b, _, want := lettering(t, 510, mangapage.Options{}, text)
		if b == nil {
			continue
		}
		if b.Bubble != nil && !b.Bubble.Box.In(want.Balloon.Inset(-b.Char)) {
			t.Errorf("%q at %v in the balloon %v got the paper %v as its balloon", text, want.Box, want.Balloon, b.Bubble.Box)
		}
	}
}

// A balloon without an outline cut out of a light tone: the blur leaves the tone as light as
// paper, so its paper area runs on over the panel's tone. Its bubble is the clean paper of the
// balloon, so the translation is set in the balloon, not out on the tone.
func TestMangaBalloonCutOutOfALightTone(t *testing.T) {
	b, _, want := lettering(t, 12, mangapage.Options{Harsh: true}, "先輩、今日の放課後空いてますか？")
	if b == nil {
		return
	}
	if b.Bubble == nil {
		t.Fatalf("%q at %v in the balloon %v got no bubble", want.Text, want.Box, want.Balloon)
	}
	if !b.Bubble.Box.In(want.Balloon.Inset(-b.Char/2)) || b.Bubble.Area*2 < area(want.Balloon) {
		t.Errorf("%q at %v in the balloon %v got the bubble %v (%d px)", want.Text, want.Box, want.Balloon, b.Bubble.Box, b.Bubble.Area)
	}
}

// A column in a balloon open at its foot, its ！ given back once the column is found: the body
// found for the column without it ends above the ！, so the balloon would be erased and lettered
// without it (the ！ left on the page). In a balloon whose paper's grain sends the finder to the
// clean body around the lettering (balloon.OutOfTone), a ！ set apart below a short shout is not
// that body's paper either: left as a hole in it, the ！ is art crossing the balloon, and stayed
// under the English (おい！ and キャー！, hard seeds 11 and 21); and a ！ set a character apart
// below its column, a hole near the balloon's edge, had the opening carve a slit from it out of
// the balloon (おい！, hard seed 21). The block's bubble holds all its lettering, pixel by
// pixel, or there is none and it is erased as lettering on plain paper, marks and all.
func TestMangaBubbleHoldsTheMarksGivenBack(t *testing.T) {
	for _, c := range []seeded{
		{14, mangapage.Options{Hard: true}, "いただきます！"},
		{11, mangapage.Options{Hard: true}, "おい！"},
		{21, mangapage.Options{Hard: true}, "キャー！"},
		{21, mangapage.Options{Hard: true}, "おい！"},
	} {
		b, _, want := lettering(t, c.seed, c.opt, c.text)
		if b == nil {
			continue
		}
		if !want.Box.In(b.Box.Inset(-b.Char / 4)) {
			t.Errorf("seed %d: %q at %v found as %v: the ！ was not given back", c.seed, want.Text, want.Box, b.Box)
			continue
		}
		if b.Bubble == nil {
			continue
		}
		out := 0
		for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
			for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
				if b.InkAt(x, y) && !b.Bubble.Has(x, y) {
					out++
				}
			}
		}
		if out > 0 {
			t.Errorf("seed %d: %q at %v: %d of its ink pixels lie outside its bubble %v", c.seed, want.Text, b.Box, out, b.Bubble.Box)
		}
	}
}

// A balloon without an outline, white on a black panel, drawn across the panel's frame runs on
// into the page's margin across its whole width, a neck no opening cuts: it is cut where its
// paper widens at once to the margin's, and the speech has the balloon's body as its bubble (it
// was free text, too unsure to be lettered, and stayed Japanese on the finished page). A
// balloon filled with a light tone, across the frame into the gutter beside it, whose dots
// break its paper into short runs, still has its body as before (harsh seed 22). One filled with
// a coarse tone on a black panel, whose arc only grazes the frame (a neck narrower than its
// lettering), is cut there too, its dots taken for its paper (harsh seed 1: it was free text,
// erased and lettered in a box). A balloon whose outline a figure's hair crosses keeps its body
// too: the pieces of hair beside its columns, small holes in its paper, are no marks set apart
// (filled as the balloon's paper, they opened it onto the panel: other faces seed 17).
func TestBalloonAcrossThePanelsFrameKeepsItsBody(t *testing.T) {
	for _, c := range []seeded{
		{23, mangapage.Options{}, "緊張してる？"},
		{22, mangapage.Options{Harsh: true}, "その手を離せ！"},
		{1, mangapage.Options{Harsh: true}, "まだだ…まだ終わってない！"},
		{17, mangapage.Options{OtherFaces: true}, "待ってたぜ、この瞬間を！"},
	} {
		b, _, want := lettering(t, c.seed, c.opt, c.text)
		if b == nil {
			continue
		}
		if b.Bubble == nil {
			t.Errorf("%q at %v has no balloon (its balloon is %v)", want.Text, want.Box, want.Balloon)
			continue
		}
		if !b.Bubble.Box.In(want.Balloon.Inset(-b.Char)) || !b.Box.In(b.Bubble.Box) || b.Bubble.Area < want.Box.Dx()*want.Box.Dy()*2 {
			t.Errorf("%q got the balloon %v (%d px), want its body inside %v", want.Text, b.Bubble.Box, b.Bubble.Area, want.Balloon)
		}
	}
}

// A thought balloon (a cloud) on a light dot tone, against the panel's frame: the tone's gaps
// join the paper around the cloud to the panel's, where the cloud's outline, with all it holds,
// is one dark shape, thick and sparse, alone. It is line art, no block: the speech is found on
// the cloud's own paper (seed 2 read the outline as `AS`, and its lettering was dropped as a
// speck inside that block's bubble).
func TestThoughtCloudsOutlineIsNoLettering(t *testing.T) {
	b, blocks, want := lettering(t, 2, mangapage.Options{}, "ふざけるな！")
	if b == nil {
		return
	}
	if !b.Vertical || len(b.Lines) != 1 || !b.Box.In(want.Box.Inset(-b.Char/2)) {
		t.Errorf("%q at %v found as a %s block of %d lines at %v", want.Text, want.Box, direction(b.Vertical), len(b.Lines), b.Box)
	}
	for _, o := range blocks {
		if o != b && o.Box.Overlaps(want.Box) {
			t.Errorf("another block at %v (%d px characters) over the lettering at %v", o.Box, o.Char, want.Box)
		}
	}
}
