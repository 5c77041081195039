package find

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"slices"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"

	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// Text set straight on screentone or hatching, with no paper around it, is found as a block of
// vertical lettering, with its columns, from a crop of a generated page around it, or from the
// whole page where a crop would change what the paper finder sees.
func TestMangaFindsTextOnArt(t *testing.T) {
	for _, c := range []struct {
		seed  int64
		text  string
		lines int // when known: the block's columns, each within the lettering
		whole bool
	}{
		{1, "ちょっ、何すんのよ！？", 0, false}, // dot tone, white halo
		{2, "ふざけるな！", 0, false},      // coarse dot tone, no halo
		{5, "犯人はこの中にいる！", 0, false},
		{6, "簡単なことさ。", 0, false},
		// Coarse dot tone, no halo: dots stuck to every stroke fill the narrow gaps between
		// the columns.
		{23, "君は一人じゃない。", 3, false},
		// Speed lines drawn through the lettering, no halo: a line's stub reaches from one
		// column across the gap into the next. On the whole page, the stubs of the lines
		// between the lettering and a sound effect beside it chain the two into one group.
		{3, "私、ずっと先輩のことが好きでした。", 3, false},
		{3, "私、ずっと先輩のことが好きでした。", 3, true},
		// By a panel's frame, the first column over a tone with black windows that the halo
		// clips short of solid boxes: they are no strokes of it (a furigana-sized speck of the
		// tone beside the columns may come along: erased, it is rebuilt with the tone).
		{14, "ちょっと待って！", 2, true},
	} {
		p, err := mangapage.Generate(c.seed, mangapage.Options{Lang: "ja", Hard: true})
		if err != nil {
			t.Fatal(err)
		}
		var want image.Rectangle
		for _, bb := range p.Bubbles {
			if bb.Kind == mangapage.KindFree && bb.Text == c.text {
				want = bb.Box
			}
		}
		if want.Empty() {
			t.Fatalf("seed %d: no free text %q", c.seed, c.text)
		}
		src := p.RGBA()
		r := src.Bounds()
		if !c.whole {
			r = want.Inset(-max(want.Dx(), want.Dy())).Intersect(src.Bounds())
		}
		crop := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
		draw.Draw(crop, crop.Bounds(), src, r.Min, draw.Src)
		blocks, _ := Manga(crop, true)
		in := want.Sub(r.Min)
		b := found(blocks, in)
		if b == nil {
			t.Errorf("seed %d: %q on art at %v was not found (blocks %v)", c.seed, c.text, want, boxes(blocks))
			continue
		}
		if !b.Vertical || b.Bubble != nil || len(b.Lines) == 0 {
			t.Errorf("seed %d: %q found as vertical %v, bubble %v, %d lines", c.seed, c.text, b.Vertical, b.Bubble != nil, len(b.Lines))
		}
		outside := func(l image.Rectangle) bool { return !l.In(in.Inset(-b.Char / 2)) }
		if c.lines > 0 && (len(b.Lines) != c.lines || slices.ContainsFunc(b.Lines, outside)) {
			t.Errorf("seed %d: %q at %v found in columns %v, want its %d", c.seed, c.text, in, b.Lines, c.lines)
		}
	}
}

// Screentone and hatching with nothing written on them are not lettering.
func TestMangaFindsNothingOnBareArt(t *testing.T) {
	const w, h = 900, 1200
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	ink := color.RGBA{20, 20, 20, 255}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			switch {
			case y < h/3: // a dot tone on a 45° lattice
				u, v := float64(x+y)/14, float64(x-y)/14
				du, dv := u-math.Round(u), v-math.Round(v)
				if du*du+dv*dv < 0.09 {
					img.Set(x, y, ink)
				}
			case y < 2*h/3: // hatching
				if (x+2*y)%12 < 3 {
					img.Set(x, y, ink)
				}
			default: // cross-hatching
				if (x+y)%16 < 2 || (x-y+h)%16 < 2 {
					img.Set(x, y, ink)
				}
			}
		}
	}
	if blocks, _ := Manga(img, true); len(blocks) > 0 {
		t.Errorf("bare tone and hatching gave %d blocks: %v", len(blocks), boxes(blocks))
	}
}

func boxes(blocks []*page.Block) []image.Rectangle {
	var out []image.Rectangle
	for _, b := range blocks {
		out = append(out, b.Box)
	}
	return out
}

// Lettering on a tone in a panel is found though the panel's white, around it, holds a block
// of its own (the art): a paper area the size of a panel is no balloon whose lettering it
// would be.
func TestMangaFindsTextOnArtInAPanelsWhite(t *testing.T) {
	b, _, want := lettering(t, 3, mangapage.Options{Hard: true}, "本当に大丈夫なの？")
	if b != nil && (!b.Vertical || len(b.Lines) != 2 || !want.Box.In(b.Box.Inset(-b.Char/2))) {
		t.Errorf("found as %v, vertical %v, %d lines; want %v in 2 columns", b.Box, b.Vertical, len(b.Lines), want.Box)
	}
}

// Lettering with a halo over hatching or a tone sits on the panel's paper, where the lines or
// dots that reach its halo join its columns, and art beside them, into one line far wider than
// its characters (a column four characters wide; a row whose balloon is its halo and the white
// beside it), or cut into parts, or each of its columns in a halo of its own: it is found in its
// own columns all the same, one block.
func TestMangaFindsHaloedTextOnArtInItsColumns(t *testing.T) {
	hard := mangapage.Options{Hard: true}
	for _, c := range []struct {
		seed  int64
		opt   mangapage.Options
		text  string
		lines int
	}{
		{11, hard, "皆さん、準備はいいですか？", 2},               // cross-hatching
		{14, hard, "この街には秘密がある。", 3},                 // a coarse dot tone, a column of art beside it
		{520, mangapage.Options{}, "先生！質問があります！", 3}, // half on black, half on a dot tone
		{10, mangapage.Options{}, "何も言わなくていいよ。", 2},  // on black, a column's foot on the paper, its halo a balloon
		// Columns set further apart than their halos are wide: a halo each (joinHalos).
		{7, hard, "今度こそ倒してやる！", 3},
		{13, hard, "来週の文化祭、楽しみだね！", 4},
	} {
		b, blocks, want := lettering(t, c.seed, c.opt, c.text)
		if b != nil && (!b.Vertical || len(b.Lines) != c.lines || !want.Box.In(b.Box.Inset(-b.Char))) {
			t.Errorf("seed %d: %q found as %v, vertical %v, %d lines of %d px; want %v in %d columns", c.seed, c.text, b.Box, b.Vertical, len(b.Lines), b.Char, want.Box, c.lines)
		}
		for _, o := range blocks {
			if b != nil && o != b && raster.OverlapRatio(o.Box, want.Box) > 0.3 {
				t.Errorf("seed %d: a part of %q found apart as %v", c.seed, c.text, o.Box)
			}
		}
	}
}

// A column in a balloon among a tone is one block: the art's look, which looks past blocks of
// one line, finds it again with the art beside it, and that is no second block over it (nor is
// it lettered twice).
func TestMangaFindsAColumnAmongArtOnce(t *testing.T) {
	const text = "犯人はこの中にいる！"
	b, blocks, want := lettering(t, 23, mangapage.Options{Harsh: true}, text)
	if b == nil {
		return
	}
	if b.Bubble == nil {
		t.Errorf("%q found as %v without its balloon", text, b.Box)
	}
	for _, o := range blocks {
		if o != b && raster.OverlapRatio(o.Box, want.Box) > 0.3 {
			t.Errorf("%q at %v found twice: as %v and as %v", text, want.Box, b.Box, o.Box)
		}
	}
}

// On the art, a stroke that passes for the stub of a line the halo cut short is one only when
// a line carries it on in its own direction: the hatching a ！ stands over crosses its axis
// (先生！質問があります！, whose last ！ was lost), and a column whose characters a coarse tone
// ran together is a character wide, no stub at all (起きて！ in お兄ちゃん、起きて！朝だよ！,
// which went, the balloon's middle column left unerased between two erased). A character of
// thin strokes that passed for the art's is given back to the column it heads (二 of
// 二人とも、喧嘩はやめて！, read without it and left on the page).
func TestMangaTextOnArtKeepsStrokesAlongItsColumns(t *testing.T) {
	for _, c := range []struct {
		seed  int64
		opt   mangapage.Options
		text  string
		lines int
	}{
		{20, mangapage.Options{Hard: true}, "先生！質問があります！", 2},
		{11, mangapage.Options{Harsh: true}, "お兄ちゃん、起きて！朝だよ！", 3},
		{1, mangapage.Options{Hard: true}, "二人とも、喧嘩はやめて！", 3},
	} {
		b, _, want := lettering(t, c.seed, c.opt, c.text)
		if b == nil {
			continue
		}
		// The lettering's own ink the block's columns (and furigana) leave out: a pixel or two of
		// a mark's blurred rim at most.
		left := 0
		for y := want.Box.Min.Y; y < want.Box.Max.Y; y++ {
			for x := want.Box.Min.X; x < want.Box.Max.X; x++ {
				if want.Ink.AlphaAt(x, y).A >= 128 && !slices.ContainsFunc(slices.Concat(b.Lines, b.Ruby), image.Pt(x, y).In) {
					left++
				}
			}
		}
		if len(b.Lines) != c.lines || left*4 > b.Char {
			t.Errorf("seed %d: %q at %v found in columns %v, want its %d holding all its ink (%d px out)", c.seed, c.text, want.Box, b.Lines, c.lines, left)
		}
	}
}
