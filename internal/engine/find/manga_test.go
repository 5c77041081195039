package find

import (
	"image"
	"image/color"
	"slices"
	"testing"

	"github.com/vtsproject/vts/internal/engine/marks"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// found is the block that covers most of an annotated bubble's ink box, or nil.
func found(blocks []*page.Block, want image.Rectangle) *page.Block {
	var best *page.Block
	bestArea := 0
	for _, b := range blocks {
		if in := b.Box.Intersect(want); !in.Empty() && in.Dx()*in.Dy() > bestArea {
			best, bestArea = b, in.Dx()*in.Dy()
		}
	}
	if best == nil || bestArea*2 < want.Dx()*want.Dy() {
		return nil
	}
	return best
}

// On generated Japanese pages the finder finds the dialogue's columns, in the direction they are
// set, with the ink inside each block and the blocks in reading order (rows of blocks top to
// bottom, right to left within a row).
func TestMangaFindsTheLettering(t *testing.T) {
	for _, seed := range []int64{1, 3} {
		p, err := mangapage.Generate(seed, mangapage.Options{Lang: "ja"})
		if err != nil {
			t.Fatal(err)
		}
		blocks, pa := Manga(p.RGBA(), true)
		if pa.Gray == nil || pa.InkMax >= pa.Paper {
			t.Fatalf("seed %d: levels %+v", seed, pa)
		}
		index := map[*page.Block]int{}
		for i, b := range blocks {
			index[b] = i
		}
		last := -1
		for _, bb := range p.Bubbles {
			if !bb.Dialogue() {
				continue
			}
			b := found(blocks, bb.Box)
			if b == nil || b.Vertical != bb.Vertical {
				t.Fatalf("seed %d: the bubble %q at %v was not found as %s lettering", seed, bb.Text, bb.Box, direction(bb.Vertical))
			}
			if index[b] <= last {
				t.Errorf("seed %d: the bubble %q is block %d, after block %d in reading order", seed, bb.Text, index[b], last)
			}
			last = index[b]
		}
		for _, b := range blocks {
			if b.Ink == nil || b.Ink.Box != b.Box || b.Char <= 0 || len(b.Lines) == 0 {
				t.Fatalf("seed %d: block %v has ink %v, char %d, %d lines", seed, b.Box, b.Ink, b.Char, len(b.Lines))
			}
		}
	}
}

// annotated is the bubble of the generated page p lettered with text.
func annotated(t *testing.T, p *mangapage.Page, text string) *mangapage.Bubble {
	t.Helper()
	var want *mangapage.Bubble
	for i, bb := range p.Bubbles {
		if bb.Text == text {
			want = &p.Bubbles[i]
		}
	}
	if want == nil {
		t.Fatalf("no bubble %q on the page", text)
	}
	return want
}

// seeded is a lettering of a generated page: the page's seed and options, and its text.
type seeded struct {
	seed int64
	opt  mangapage.Options
	text string
}

// lettering generates the Japanese page seed drawn with opt (the hard kinds of lettering, a
// harsh scan), finds its lettering, and returns the block found for the bubble annotated text,
// all the blocks, and the annotation; the block is nil, and the test marked failed, when none
// was found for it.
func lettering(t *testing.T, seed int64, opt mangapage.Options, text string) (*page.Block, []*page.Block, *mangapage.Bubble) {
	t.Helper()
	opt.Lang = "ja"
	p, err := mangapage.Generate(seed, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := annotated(t, &p, text)
	blocks, _ := Manga(p.RGBA(), true)
	b := found(blocks, want.Box)
	if b == nil {
		t.Errorf("seed %d: %q at %v was not found (blocks %v)", seed, text, want.Box, boxes(blocks))
	}
	return b, blocks, want
}

func direction(vertical bool) string {
	if vertical {
		return "vertical"
	}
	return "horizontal"
}

// Hatching and speed lines drawn at a slant have square boxes, like characters, and a light
// tone the blur leaves light joins the paper with its dots: lettering among them (a balloon
// without an outline on diagonal hatching, a shout between speed lines, a balloon cut into a
// light tone, columns set wide apart, a balloon open to a figure) is still found whole, and a
// balloon's own outline does not join the speech it holds; nor does the tone that fills a
// balloon join its lettering into rows of dots; and small lettering, each character as large as
// the next, is not taken for a tone's dots.
func TestMangaFindsLetteringAmongTexture(t *testing.T) {
	plain, hard, harsh, other := mangapage.Options{}, mangapage.Options{Hard: true}, mangapage.Options{Harsh: true}, mangapage.Options{OtherFaces: true}
	for _, c := range []seeded{
		{16, plain, "賛成！"},            // a balloon without an outline on diagonal hatching
		{2, plain, "キャー！"},            // between speed lines
		{17, plain, "明日、試合だろ？"},       // a balloon among slanted lines
		{11, plain, "お兄ちゃん、起きて！朝だよ！"}, // a spiky balloon, whose outline breaks into zigzags
		{21, plain, "誰にも言っちゃダメだよ。"},   // a balloon cut into a light dot tone
		{12, hard, "待ってたぜ、この瞬間を！"},    // a balloon open to a coarse tone, beside a face
		{1, hard, "二人とも、喧嘩はやめて！"},     // a halo over speed lines and tone
		{18, plain, "犯人はこの中にいる！"},     // columns set wide apart among speed lines
		{1, hard, "嘘…"},               // a burst balloon open to the page, its spikes at the shout
		{17, hard, "はい！"},             // a burst balloon among tone and art, open to it
		{21, hard, "おい！"},             // a burst balloon open to the page: without its spikes, the shout alone
		{21, plain, "なんだって！？"},        // a spiky balloon's outline beside the columns
		{15, hard, "なに！？"},            // a burst balloon whose ？ reaches a panel's solid black
		{17, hard, "別に。"},             // a burst balloon open to the page, its spikes wider than the shout
		{506, plain, "ああ、聞いてるよ。"},     // a borderless balloon where speed lines end, a tip beside it
		{22, hard, "ありがとう。助かったよ。"},    // a balloon open to the page, a figure's thick line chaining it to the art
		{6, harsh, "ねえ、聞いてる？"},        // a balloon filled with a light tone, on textured paper
		{2, other, "来週の文化祭、楽しみだね！"},   // 15 px on a small page, its ！ reaching a shirt's tone: every character has twins
		{23, harsh, "電車、もう出ちゃったみたい。"}, // a light tone's dots beside it, and a column of art over it, each looked past
		{8, harsh, "行くぞ、みんな！"},        // a borderless balloon among hatching: the column parted after its 、 (a cell blank but for it) is one
	} {
		b, _, want := lettering(t, c.seed, c.opt, c.text)
		if b == nil {
			continue
		}
		// The block is the lettering, whole (but for a trailing 。 among the tone's dots, which
		// is no larger than they are), not the lettering and the lines around it.
		if grown := b.Box.Inset(-b.Char * 2 / 3); !b.Box.In(want.Box.Inset(-b.Char)) || !want.Box.In(grown) || b.Vertical != want.Vertical {
			t.Errorf("seed %d: %q at %v found as %v (vertical %v, char %d)", c.seed, c.text, want.Box, b.Box, b.Vertical, b.Char)
		}
	}
}

// Lettering with shapes that look like art stays whole: the kana of a large Mincho (い, し, ん)
// are as sparse as the spikes of a burst balloon, but no thicker than their column, so without
// them the lettering keeps its measure; a kanji is three times as thick as the thin strokes of
// the kana and the 。 under it, but not twice as thick as all of them side by side, as a
// panel's black is beside a shout.
func TestMangaKeepsLetteringThatLooksLikeArt(t *testing.T) {
	for _, c := range []struct {
		seed int64
		text string
	}{
		{514, "話があるんだ。少しいいか？"},
		{517, "ごめん、待った？"},
		{21, "別に。"},
	} {
		b, _, want := lettering(t, c.seed, mangapage.Options{}, c.text)
		if b != nil && !want.Box.In(b.Box.Inset(-b.Char/3)) {
			t.Errorf("seed %d: %q at %v found as %v (char %d), not whole", c.seed, c.text, want.Box, b.Box, b.Char)
		}
	}
}

// Lettering set light on a dark box (a caption of white on black) is found on the page's
// negative, with the box's dark as its paper, so that it is read, erased and lettered in
// its colours.
func TestMangaFindsLightLetteringOnADarkBox(t *testing.T) {
	for _, c := range []seeded{
		{24, mangapage.Options{}, "そして運命の日が来た。"},
		{20, mangapage.Options{Hard: true}, "その頃…"}, // a tight box, the page turned 1.6°
	} {
		b, blocks, _ := lettering(t, c.seed, c.opt, c.text)
		if b == nil {
			continue
		}
		if b.Vertical || page.Luma(b.Paper) > 80 {
			t.Errorf("%q found as vertical %v on paper %v", c.text, b.Vertical, b.Paper)
		}
		for _, o := range blocks {
			if o != b && page.Luma(o.Paper) < 128 {
				t.Errorf("seed %d: art found as light lettering on dark at %v", c.seed, o.Box)
			}
		}
	}
}

// Columns set wide apart, their characters level on a grid, split into rows as well as into
// columns; the rows are flush on the right and ragged on the left (the last column is short),
// which no lines of text are, so the block is read in columns.
func TestMangaColumnsSetWideApartAreColumns(t *testing.T) {
	const text = "昨日のことは忘れてください。"
	b, _, want := lettering(t, 6, mangapage.Options{}, text)
	if !want.Vertical {
		t.Fatalf("%q is not set in columns on the page", text)
	}
	if b == nil {
		return
	}
	if !b.Vertical || len(b.Lines) < 4 {
		t.Errorf("%q at %v found as vertical %v in %d lines", text, want.Box, b.Vertical, len(b.Lines))
	}
}

// Thin lines are furigana only where furigana sit: right of a main column (above a main row).
// The narrow kana that end a shout in a column of their own (う！, い。, even split down the gap
// of い), and a column of small kana beside one a speed line widened, are lettering; furigana
// so small and blurred that they touch their kanji, or as large as half their kanji, still
// leave the column.
func TestMangaNarrowLinesAndFurigana(t *testing.T) {
	for _, c := range []struct {
		seed     int64
		opt      mangapage.Options
		text     string
		lines    int
		wantRuby bool
	}{
		{20, mangapage.Options{}, "おめでとう！", 2, false},
		{6, mangapage.Options{}, "昨日のことは忘れてください。", 5, false},
		{11, mangapage.Options{}, "ちょっ、何すんのよ！？", 2, false},
		{16, mangapage.Options{}, "賛成！", 1, true},
		// UmePlus Gothic 51 px: furigana half the size of their kanji, set tight beside them
		{22, mangapage.Options{OtherFaces: true}, "この街には秘密がある。", 2, true},
	} {
		b, _, want := lettering(t, c.seed, c.opt, c.text)
		if b == nil {
			continue
		}
		if len(b.Lines) != c.lines || (len(b.Ruby) > 0) != c.wantRuby {
			t.Errorf("%q at %v found in lines %v with furigana %v; want %d lines, furigana %v", c.text, want.Box, b.Lines, b.Ruby, c.lines, c.wantRuby)
		}
	}
}

// The ！ that ends a column, a bar over a dot too thin and too heavy beside the column's
// characters to cluster with them, is part of the column's block (read, and erased with it), and
// no block of its own is left inside it.
func TestMangaExclamationAtAColumnsFoot(t *testing.T) {
	for _, c := range []struct {
		seed int64
		hard bool
		text string
	}{
		{3, true, "まかせて！"},
		{21, false, "くそっ…間に合わない！"},
		{12, true, "キャー！"}, // its ー, a stroke as thin as a speed line, between them
	} {
		b, blocks, want := lettering(t, c.seed, mangapage.Options{Hard: c.hard}, c.text)
		if b == nil {
			continue
		}
		if b.Box.Max.Y < want.Box.Max.Y-2 {
			t.Errorf("%q at %v found as %v, without the ！ at its foot", c.text, want.Box, b.Box)
		}
		for _, o := range blocks {
			if o != b && o.Box.In(b.Box) {
				t.Errorf("%q: a block %v of its own inside it", c.text, o.Box)
			}
		}
	}
}

// The marks that end a line of small lettering, thin strokes with hardly a pixel as dark as ink,
// are part of its block: the 。 after it, in the block's ink as the rest of the lettering is but
// for a few pixels of its faintest rim (before: 25 and more left out), and the mark its column
// now reaches: the dot of a ？ whose hook joined the column, and a 。 that is a ring only in the
// grey page, its binarized rim open (all were left out as specks).
func TestMangaSmallMarksEndTheirLine(t *testing.T) {
	for _, c := range []struct {
		seed int64
		text string
		// whole asks for all its ink in the block's; otherwise its columns must reach its last
		// mark, the lowest ink of all
		whole bool
	}{
		{22, "静かに！誰か来る。", true},
		{22, "ありがとう。助かったよ。", true},
		{22, "次はお前の番だ。", true},
		{515, "証拠はあるのか？", false}, // furigana beside: faint, and not found
		{515, "緊張してる？", false},
		{21, "誰にも言っちゃダメだよ。", false},
	} {
		b, _, want := lettering(t, c.seed, mangapage.Options{}, c.text)
		if b == nil {
			continue
		}
		if !c.whole {
			if foot := slices.MaxFunc(b.Lines, func(a, b image.Rectangle) int { return a.Max.Y - b.Max.Y }).Max.Y; foot < want.Box.Max.Y-1 {
				t.Errorf("seed %d: %q at %v: its columns %v end above its last mark", c.seed, c.text, want.Box, b.Lines)
			}
			continue
		}
		left := 0
		for y := want.Box.Min.Y; y < want.Box.Max.Y; y++ {
			for x := want.Box.Min.X; x < want.Box.Max.X; x++ {
				if want.Ink.AlphaAt(x, y).A >= 64 && !b.InkAt(x, y) {
					left++
				}
			}
		}
		if left*2 > b.Char {
			t.Errorf("seed %d: %q at %v: %d pixels of its ink left out of the block (ink %v, lines %v)", c.seed, c.text, want.Box, left, b.Ink.Box, b.Lines)
		}
	}
}

// The long-vowel bars that end a line, thin strokes a character long set along it (upright in a
// column), are given back to it, in either direction, and so is a 一 across a column before its
// first character (the lower stroke of 二, whose upper one touched a panel's frame); a stroke
// beside the line or longer than a character (a speed line) is not.
func TestLongVowelBarsEndTheirLine(t *testing.T) {
	for _, vertical := range []bool{true, false} {
		g := image.NewGray(image.Rect(0, 0, 160, 160))
		for i := range g.Pix {
			g.Pix[i] = 255
		}
		// at is a box along and across the line's direction.
		at := func(along, across, length, width int) image.Rectangle {
			if vertical {
				return image.Rect(across, along, across+width, along+length)
			}
			return image.Rect(along, across, along+length, across+width)
		}
		bar := func(r image.Rectangle) blob {
			var b blob
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					g.SetGray(x, y, color.Gray{})
					b.pix = append(b.pix, y*g.Stride+x)
				}
			}
			b.Box, b.Ink, b.Thick = r, len(b.pix), min(r.Dx(), r.Dy())
			return b
		}
		// Three characters 16 across, 2 apart, on the axis 28.
		for i := range 3 {
			drawOutline(g, at(24+18*i, 20, 16, 16), 2)
		}
		b := blockOf(g)
		if b == nil || b.Vertical != vertical || len(b.Lines) != 1 {
			t.Fatalf("vertical %v: block %+v", vertical, b)
		}
		// Two bars 14 long after the line, on its axis; a bar beside where they are; a stroke
		// three characters long after them; in a column, a bar across it before its start.
		ends := []blob{bar(at(81, 27, 14, 3)), bar(at(99, 27, 14, 3))}
		aside := bar(at(81, 2, 14, 3))
		long := bar(at(117, 27, 40, 3))
		given := []blob{aside, long, ends[1], ends[0]}
		want := at(24, 20, 89, 16)
		if vertical {
			ends = append(ends, bar(at(18, 21, 3, 14)))
			given = append(given, ends[2])
			want = at(18, 20, 95, 16)
		}
		marks.Bars(g, b, piecesOf(given))
		if b.Lines[0] != want || b.Box != want {
			t.Errorf("vertical %v: line %v in %v, want %v: the two bars and nothing else", vertical, b.Lines[0], b.Box, want)
		}
		for _, e := range ends {
			if !b.InkAt(e.Box.Min.X+1, e.Box.Min.Y+1) {
				t.Errorf("vertical %v: the bar at %v is not the block's ink", vertical, e.Box)
			}
		}
	}
}

// A balloon's outline taken for a block of its own does not swallow the lettering inside it:
// only a bubble's block takes back what lies in it.
func TestMangaLetteringInsideAnOutlineBlockStays(t *testing.T) {
	p, err := mangapage.Generate(8, mangapage.Options{Lang: "ja"})
	if err != nil {
		t.Fatal(err)
	}
	const text = "いただきます！"
	want := annotated(t, &p, text)
	blocks, _ := Manga(p.RGBA(), true)
	for _, b := range blocks {
		if b.Box.Overlaps(want.Box) && b.Box.In(want.Box.Inset(-want.Box.Dx())) && b.Bubble != nil {
			return
		}
	}
	t.Errorf("%q at %v has no block of its own (blocks %v)", text, want.Box, boxes(blocks))
}

// Small Mincho scanned at a low resolution and shared as JPEG has grey strokes thinner than a
// pixel, which a blurred copy of the page turns as light as the paper; the lettering is still
// found whole, each of its columns a line, and a light tone's dots in a balloon stay out of it.
// So is thin Mincho whose strokes are mostly grey: little of its ink is darker than the page's
// threshold, but its soft strokes fill its box as lettering does.
func TestMangaFindsFaintSmallLettering(t *testing.T) {
	harsh := mangapage.Options{Harsh: true}
	for _, c := range []struct {
		seed  int64
		opt   mangapage.Options
		text  string
		lines int
	}{
		{4, harsh, "しょうがない、手伝ってやるか。", 2}, // 13 px on a 729 px wide page
		{4, harsh, "待ってたぜ、この瞬間を！", 2},
		{1, harsh, "まだだ…まだ終わってない！", 4},             // bold, in a balloon of dot tone
		{522, mangapage.Options{}, "へえ、やるじゃん。", 2}, // IPAMincho 17 px, JPEG q69
	} {
		b, _, want := lettering(t, c.seed, c.opt, c.text)
		if b == nil {
			continue
		}
		allButLast := want.Box
		allButLast.Max.Y -= b.Char // a column's last mark
		if !allButLast.In(b.Box.Inset(-2)) || !b.Box.In(want.Box.Inset(-3)) || len(b.Lines) != c.lines {
			t.Errorf("%q at %v found as %v in lines %v; want all but its last mark, in %d lines", c.text, want.Box, b.Box, b.Lines, c.lines)
		}
	}
}

// The dots of a … that ends a line are smaller than any character and set apart from it, in a
// row on the line's axis: they are given back to the line, with a ？ they keep from it too, so
// that the line is read and erased to its end. A balloon holding one character and its … holds
// a speech (嘘…), not a lone shape of art.
func TestMangaGivesBackTheDotsThatEndALine(t *testing.T) {
	plain, hard := mangapage.Options{}, mangapage.Options{Hard: true}
	for _, c := range []seeded{
		{521, plain, "信じられない…"}, // IPAGothic 16 px, resampled
		{515, plain, "その頃…"},    // a caption box
		{516, plain, "嘘だろ…？"},   // the ？ after the dots
		{516, plain, "その頃…"},    // a horizontal caption
		{9, hard, "嘘…"},         // one character and its dots, two pixels each, alone in a balloon
		{22, hard, "やっと見つけた…"},  // 12 px lettering, dots of a pixel or two in grey that the blur took for paper
	} {
		b, _, want := lettering(t, c.seed, c.opt, c.text)
		if b == nil {
			continue
		}
		if !want.Box.Inset(2).In(b.Box) {
			t.Errorf("seed %d: %q at %v found as %v, without the marks at its end", c.seed, c.text, want.Box, b.Box)
		}
	}
	// The dots after the first of three columns of 14 px characters (ったく…|しょうがない|なあ。)
	// are two pixels each, drawn grey, lighter than lettering: three at one pitch are no grain.
	if b, _, _ := lettering(t, 9, hard, "ったく…しょうがないなあ。"); b != nil && (len(b.Lines) != 3 || page.LineLength(b.Lines[0], true) < 4*b.Char) {
		t.Errorf("seed 9: ったく… found in lines %v of %d px; want its first four characters long", b.Lines, b.Char)
	}
}

// A letterer breaks a line of free text between phrases with a gap wider than the clustering
// joins: the column carried on after it is the same line, found, read and erased with it, not
// a scrap of two characters left on the page.
func TestMangaFreeColumnBrokenBetweenPhrasesIsOneLine(t *testing.T) {
	const text = "さよなら、また明日！" // VL Gothic 12 px in a panel's white; 明日！ runs on past the frame
	p, err := mangapage.Generate(506, mangapage.Options{Lang: "ja"})
	if err != nil {
		t.Fatal(err)
	}
	want := annotated(t, &p, text).Box
	blocks, _ := Manga(p.RGBA(), true)
	// The first column's blocks: those that reach the right of the annotated box.
	var first []*page.Block
	for _, b := range blocks {
		if b.Box.Overlaps(want) && b.Box.Max.X+2 >= want.Max.X {
			first = append(first, b)
		}
	}
	if len(first) != 1 {
		t.Fatalf("%q: the first column at %v is in %d blocks %v, want 1", text, want, len(first), boxes(first))
	}
	if b := first[0]; !b.Vertical || len(b.Lines) != 1 || b.Chars() < 7 {
		t.Errorf("%q found as vertical %v, %d lines, %d characters at %v: the column stops at its phrase's gap", text, b.Vertical, len(b.Lines), b.Chars(), b.Box)
	}
}

// In a balloon filled with a light tone, the dots around the lettering and stuck to its strokes
// are no part of it: the block's ink lies on the glyphs (a couple of pixels of their soft edge
// aside), so that it is read, and erased, without the tone.
func TestMangaBalloonFilledWithALightToneLosesItsDots(t *testing.T) {
	for _, c := range []struct {
		seed int64
		text string
		most int // the percentage of the ink that may lie off the glyphs
	}{
		{6, "ねえ、聞いてる？", 3},
		{14, "いただきます！", 3},
		// A coarse tone: its dots were all of the block's ink, the glyphs left out. Two dots
		// between キ's strokes stay.
		{12, "キャー！", 5},
	} {
		b, _, want := lettering(t, c.seed, mangapage.Options{Harsh: true}, c.text)
		if b == nil {
			continue
		}
		if off, ink := offGlyphs(b, want, 2); off*100 > ink*c.most {
			t.Errorf("seed %d: %q: %d of the block's %d ink pixels lie off its glyphs", c.seed, c.text, off, ink)
		}
	}
}

// offGlyphs counts the block's ink pixels, and those of them more than reach px from the
// annotated lettering's glyphs.
func offGlyphs(b *page.Block, want *mangapage.Bubble, reach int) (off, ink int) {
	near := func(x, y int) bool {
		for dy := -reach; dy <= reach; dy++ {
			for dx := -reach; dx <= reach; dx++ {
				if image.Pt(x+dx, y+dy).In(want.Ink.Rect) && want.Ink.AlphaAt(x+dx, y+dy).A > 0 {
					return true
				}
			}
		}
		return false
	}
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if b.InkAt(x, y) {
				ink++
				if !near(x, y) {
					off++
				}
			}
		}
	}
	return off, ink
}

// A balloon filled with a fine tone, scanned and shared as JPEG, is a grey the blur leaves
// darker than paper, or its dots are chained to the lettering: its lettering is found in
// columns, as in a white balloon, and without the dots, and the balloon, all around it, is its
// bubble.
func TestMangaBalloonFilledWithAFineToneIsFound(t *testing.T) {
	for _, c := range []struct {
		seed    int64
		text    string
		columns int
	}{
		{22, "ありがとう。助かったよ。", 2}, // no paper area at all
		{22, "ジュース買ってくるね。", 3},  // nor here, where the balloon crosses the frame
		{22, "忘れるわけないだろ。", 2},   // paper riddled with the dots: found as one column
		{21, "緊張してる？", 2},
		{5, "一方その頃", 2}, // a caption box: the first look's bubble held the first column only
	} {
		b, _, want := lettering(t, c.seed, mangapage.Options{Harsh: true}, c.text)
		if b == nil {
			continue
		}
		if !b.Vertical || len(b.Lines) != c.columns {
			t.Errorf("seed %d: %q: %s block of %d lines, want %d columns", c.seed, c.text, direction(b.Vertical), len(b.Lines), c.columns)
		}
		if off, ink := offGlyphs(b, want, 1); off*100 > ink*3 {
			t.Errorf("seed %d: %q: %d of the block's %d ink pixels lie off its glyphs", c.seed, c.text, off, ink)
		}
		if b.Bubble == nil {
			t.Errorf("seed %d: %q: no bubble, want the balloon %v", c.seed, c.text, want.Balloon)
		} else if bb := b.Bubble.Box; !want.Box.In(bb) || bb.Dx()*bb.Dy() > 2*want.Balloon.Dx()*want.Balloon.Dy() {
			// (The bubble holds the balloon's tail, which its annotated box leaves out.)
			t.Errorf("seed %d: %q: bubble %v, want the balloon %v around the lettering %v", c.seed, c.text, bb, want.Balloon, want.Box)
		} else if !b.InkWithin(b.Bubble) {
			t.Errorf("seed %d: %q: the bubble %v does not hold all the lettering %v, which erasing would leave", c.seed, c.text, bb, b.Box)
		}
	}
}
