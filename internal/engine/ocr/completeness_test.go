package ocr

import (
	"context"
	"image"
	"image/color"
	"slices"
	"testing"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/imageio"
)

// A bubble the reader cannot make out (here lettering turned upside down) stays in the
// transcript as skipped, with its box and why, and is left on the page exactly as it was, while
// the readable bubbles around it are translated and lettered as usual.
func TestUnreadableBubbleIsSkippedAndLeftUntouched(t *testing.T) {
	bubbles := append(append([]mangaBubble(nil), sampleBubbles...),
		mangaBubble{cols: []string{"ありがとう", "ございます"}, font: ipaGothic, size: 32, center: image.Pt(260, 1000), rx: 115, ry: 160})
	img, boxes := mangaPage(t, 1000, 1400, bubbles)
	turned := boxes[3].Inset(-4)
	rotate180(img, turned)
	_, llm := newOracle(t, sampleTranslations)
	e, err := New(Config{Fallback: llm})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.Translate(context.Background(), engine.Request{Image: encode(t, img, "png"), Format: "png", SourceLang: "ja", TargetLang: "en", Mode: "standard"})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	dumpImage(t, "out.png", resp.Image)
	var skipped *engine.TranscriptBlock
	lettered := 0
	for i, b := range resp.Transcript.Blocks {
		if b.ID != "b"+string(rune('1'+i)) {
			t.Errorf("block %d has ID %q", i, b.ID)
		}
		box := image.Rect(b.Box.X, b.Box.Y, b.Box.X+b.Box.W, b.Box.Y+b.Box.H)
		switch {
		case box.Overlaps(turned):
			skipped = &resp.Transcript.Blocks[i]
		case b.Status == "lettered" && b.Translation != "":
			lettered++
		default:
			t.Errorf("readable block %d: %+v, want it lettered", i, b)
		}
	}
	if lettered != 3 {
		t.Errorf("%d blocks lettered, want the 3 readable ones", lettered)
	}
	if skipped == nil {
		t.Fatalf("the upside-down bubble at %v is not in the transcript: %+v", turned, resp.Transcript.Blocks)
	}
	box := image.Rect(skipped.Box.X, skipped.Box.Y, skipped.Box.X+skipped.Box.W, skipped.Box.Y+skipped.Box.H)
	if skipped.Status != "skipped" || skipped.Reason == "" || skipped.Translation != "" || skipped.Kind != "bubble" ||
		box.Intersect(turned).Dx()*box.Intersect(turned).Dy()*2 < turned.Dx()*turned.Dy() {
		t.Errorf("upside-down bubble: %+v, want kind bubble, skipped with a reason, no translation, a box over %v", *skipped, turned)
	}
	if resp.Blocks != 3 {
		t.Errorf("Response.Blocks = %d, want the 3 lettered", resp.Blocks)
	}
	for name, data := range map[string][]byte{"translated": resp.Image, "cleaned": resp.Cleaned} {
		out, _, err := imageio.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		changed := 0
		for y := turned.Min.Y; y < turned.Max.Y; y++ {
			for x := turned.Min.X; x < turned.Max.X; x++ {
				if color.RGBAModel.Convert(out.At(x, y)) != img.RGBAAt(x, y) {
					changed++
				}
			}
		}
		if changed > 0 {
			t.Errorf("%s page: %d pixels of the skipped bubble changed", name, changed)
		}
	}
}

// rotate180 turns the pixels of r upside down in place.
func rotate180(img *image.RGBA, r image.Rectangle) {
	src := image.NewRGBA(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			src.SetRGBA(x, y, img.RGBAAt(x, y))
		}
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.SetRGBA(x, y, src.RGBAAt(r.Max.X-1-(x-r.Min.X), r.Max.Y-1-(y-r.Min.Y)))
		}
	}
}

// Free text on the art set at the dialogue's size is dialogue, not a sound effect, however many
// specks of art the finder took for bubbles of one small character, or however many small
// "characters" of a tone's dots it took for a bubble that reads as nothing; lettering drawn twice
// the dialogue's size is a sound effect, on the art or in a white halo, but not in a caption's
// box or a balloon.
func TestSoundEffectsMeasureTheDialogueByItsCharacters(t *testing.T) {
	column := func(x, char, n int, bubble bool) *page.Block {
		b := &page.Block{Vertical: true, Char: char, Lines: []image.Rectangle{image.Rect(x, 0, x+char, n*char)}}
		if bubble {
			b.Bubble = &page.Mask{}
		}
		return b
	}
	read := page.Reading{Text: "まだだ", Conf: 0.9}
	blocks := []*page.Block{column(0, 40, 6, true), column(100, 40, 5, true)}
	readings := []page.Reading{read, read}
	for i := range 4 {
		blocks, readings = append(blocks, column(200+50*i, 14, 1, true)), append(readings, read)
	}
	// A tone's dots in a bubble: many small "characters", read as nothing of note.
	for i := range 4 {
		blocks, readings = append(blocks, column(1000+25*i, 19, 9, true)), append(readings, page.Reading{Text: "ee 0 6", Conf: 0.4})
	}
	blocks = append(blocks, column(500, 40, 7, false), column(600, 90, 3, false))
	readings = append(readings, read, read)
	// Twice the dialogue's size with a white halo about it, which the finder takes for a
	// bubble; and lettering of that size in a caption's box, and in a balloon, with room
	// about it, which is not a sound effect.
	haloed, caption, shout := column(800, 90, 3, false), column(900, 90, 3, false), column(1000, 90, 3, false)
	haloed.Box, caption.Box, shout.Box = haloed.Lines[0], caption.Lines[0], shout.Lines[0]
	haloed.Bubble = page.FullMask(haloed.Box.Inset(-10))
	caption.Bubble = page.FullMask(caption.Box.Inset(-30))
	shout.Bubble = page.FullMask(shout.Box.Inset(-90))
	blocks, readings = append(blocks, haloed, caption, shout), append(readings, read, read, read)
	if d := dialogueChar(blocks, readings); d != 40 {
		t.Errorf("the dialogue's characters measured %d px, want 40", d)
	}
	sfx := soundEffects(blocks, readings, dialogueChar(blocks, readings))
	if n := len(blocks); sfx[n-5] || !sfx[n-4] {
		t.Errorf("free text at the dialogue's size marked sfx %v, at twice it %v; want false, true", sfx[n-5], sfx[n-4])
	}
	if n := len(blocks); !sfx[n-3] || sfx[n-2] || sfx[n-1] {
		t.Errorf("twice the dialogue's size in a halo marked sfx %v, in a caption's box %v, in a balloon %v; want true, false, false", sfx[n-3], sfx[n-2], sfx[n-1])
	}
	if sfx := soundEffects(blocks[8:], readings[8:], dialogueChar(blocks[8:], readings[8:])); slices.Contains(sfx, true) {
		t.Errorf("with no dialogue read, sound effects marked %v", sfx)
	}
	// Set as large on the art, a sentence that a 。 closes is narration or speech, not a sound
	// effect; a sound effect misread with a 。 amid it, or a short one, still is one.
	for _, c := range []struct {
		text string
		sfx  bool
	}{
		{"油断するなよ。", false},
		{"ンタ。い", true},
		{"人っ。", true},
		{"る。巡ペーー", true},
		{"ドドド！", true},
	} {
		large := column(700, 90, 4, false)
		rs := append(slices.Clone(readings[:2]), page.Reading{Text: c.text, Conf: 0.8})
		if got := soundEffects([]*page.Block{blocks[0], blocks[1], large}, rs, 40)[2]; got != c.sfx {
			t.Errorf("%q read in lettering twice the dialogue's size on the art: marked sfx %v, want %v", c.text, got, c.sfx)
		}
	}
}

// On a page whose dialogue is set at 40 px, kana read at under half that size in a speck of
// paper (the light in an eye) are art unless read with near certainty; small lettering read
// with doubt is still lettering, and with no dialogue to compare with nothing is a speck.
func TestSpecksOfArtAreNotLettering(t *testing.T) {
	for _, c := range []struct {
		char     int
		conf     float64
		dialogue int
		want     bool
	}{
		{19, 0.84, 40, true},  // エキ in a highlight
		{19, 0.95, 40, false}, // a small かな read beyond doubt
		{24, 0.8, 40, false},  // an aside at 0.6 of the dialogue's size
		{20, 0.6, 40, false},  // half the size is no speck yet
		{10, 0.3, 0, false},   // no dialogue read on the page
	} {
		b := &page.Block{Char: c.char}
		if got := speck(b, c.conf, c.dialogue); got != c.want {
			t.Errorf("%d px read at %.2f on a page of %d px dialogue: speck %v, want %v", c.char, c.conf, c.dialogue, got, c.want)
		}
	}
}
