package ocr

import (
	"image"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/job"
)

func TestUnshout(t *testing.T) {
	got, ok := unshout("WHERE IS HE? I DON'T KNOW.")
	if !ok || got != "Where is he? I don't know." {
		t.Fatalf("got %q %v", got, ok)
	}
	if got, ok := unshout("Hello NASA"); ok || got != "Hello NASA" {
		t.Fatalf("mixed case changed: %q", got)
	}
}

func TestTargetSize(t *testing.T) {
	for _, c := range []struct {
		w, h int
		res  job.Resolution
		want image.Point
	}{
		{1600, 2400, "1K", image.Pt(683, 1024)},
		{1600, 2400, "4K", image.Pt(2731, 4096)},
		{3000, 1000, "2K", image.Pt(2048, 683)},
		{123, 45, "original", image.Pt(123, 45)},
	} {
		got, err := targetSize(image.Rect(0, 0, c.w, c.h), c.res)
		if err != nil || got != c.want {
			t.Errorf("%dx%d %s: %v %v, want %v", c.w, c.h, c.res, got, err, c.want)
		}
	}
	if _, err := targetSize(image.Rect(0, 0, 10, 10), "8K"); err == nil {
		t.Error("8K accepted")
	}
}

// A block whose reading may not be translated says why in the transcript; a confident reading
// of CJK text in a bubble, or of three characters or more on art, goes to the translator, as
// does a less sure one on art that reads as a sentence.
func TestUnreadableSaysWhy(t *testing.T) {
	bubble := page.NewMask(image.Rect(0, 0, 100, 100))
	col := []image.Rectangle{image.Rect(40, 10, 60, 90)}
	cases := []struct {
		block page.Block
		read  page.Reading
		want  string
	}{
		{page.Block{Source: "お前は何者だ", Bubble: bubble, Lines: col, Char: 20}, page.Reading{Text: "お前は何者だ", Conf: 0.9}, ""},
		{page.Block{Source: "お前は", Lines: col, Char: 20}, page.Reading{Text: "お前は", Conf: 0.8}, ""},
		{page.Block{Lines: []image.Rectangle{image.Rect(40, 10, 60, 30)}, Char: 20}, page.Reading{}, "too small to be lettering outside a bubble"},
		{page.Block{Source: "お前は", Bubble: bubble, Lines: col, Char: 20}, page.Reading{Text: "お前は", Conf: 0.4}, "read without confidence"},
		{page.Block{Source: "Hello", Bubble: bubble, Lines: col, Char: 20}, page.Reading{Text: "Hello", Conf: 0.9}, "not read as Chinese, Japanese or Korean"},
		{page.Block{Source: "お前", Lines: col, Char: 20}, page.Reading{Text: "お前", Conf: 0.9}, "outside a bubble, too short or unsure to be lettering"},
		{page.Block{Source: "お前は", Lines: col, Char: 20}, page.Reading{Text: "お前は", Conf: 0.6}, "outside a bubble, too short or unsure to be lettering"},
		// Less sure on the art, but read as a sentence: lettering. What art passes for
		// lettering, at that confidence, reads as no sentence.
		{page.Block{Source: "俺が守る.必ず。", Lines: col, Char: 20}, page.Reading{Text: "俺が守る.必ず。", Conf: 0.68}, ""},
		{page.Block{Source: "ねえ、間いてる？", Lines: col, Char: 20}, page.Reading{Text: "ねえ、間いてる？", Conf: 0.6}, ""},
		{page.Block{Source: "いいいい", Lines: col, Char: 20}, page.Reading{Text: "いいいい", Conf: 0.69}, "outside a bubble, too short or unsure to be lettering"},
		{page.Block{Source: "ューンーの", Lines: col, Char: 20}, page.Reading{Text: "ューンーの", Conf: 0.6}, "outside a bubble, too short or unsure to be lettering"},
		{page.Block{Source: "aれてたしes。", Lines: col, Char: 20}, page.Reading{Text: "aれてたしes。", Conf: 0.69}, "outside a bubble, too short or unsure to be lettering"},
		{page.Block{Source: "一一、一一一", Lines: col, Char: 20}, page.Reading{Text: "一一、一一一", Conf: 0.65}, "outside a bubble, too short or unsure to be lettering"},
		{page.Block{Source: "赤なたのに戦う", Lines: col, Char: 20}, page.Reading{Text: "赤なたのに戦う", Conf: 0.65}, "outside a bubble, too short or unsure to be lettering"},
	}
	for i, c := range cases {
		if got := unreadable(&c.block, c.read); got != c.want {
			t.Errorf("case %d: %q, want %q", i, got, c.want)
		}
	}
}
