package lines

import (
	"image"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

func w(x, y, wd, h int, text string) page.Word {
	return page.Word{Box: image.Rect(x, y, x+wd, y+h), Conf: 90, Text: text}
}

func TestGroupingSeparatesBubbles(t *testing.T) {
	words := []page.Word{
		// bubble 1: two centred lines
		w(100, 100, 80, 30, "I"), w(190, 100, 90, 30, "HAVE"), w(290, 100, 60, 30, "TO"),
		w(130, 138, 110, 30, "FIND"), w(250, 138, 50, 30, "IT-"),
		// bubble 2, far to the right at the same height
		w(700, 105, 120, 30, "Hello"),
		// caption below with different letter size
		w(100, 400, 200, 60, "Later"),
	}
	blocks := GroupBlocks(GroupLines(CleanWords(words, 1000)))
	if len(blocks) != 3 {
		t.Fatalf("got %d blocks: %+v", len(blocks), blocks)
	}
	if blocks[0].Text != "I HAVE TO FIND IT-" && blocks[0].Text != "I HAVE TO FIND IT" {
		t.Errorf("block 0 text %q", blocks[0].Text)
	}
	if blocks[1].Text != "Hello" || blocks[2].Text != "Later" {
		t.Errorf("blocks %q, %q", blocks[1].Text, blocks[2].Text)
	}
}

func TestBlockTextRejoinsHyphenation(t *testing.T) {
	ls := []Line{
		{Words: []page.Word{w(0, 0, 50, 20, "my"), w(60, 0, 80, 20, "broth-")}},
		{Words: []page.Word{w(0, 30, 50, 20, "er")}},
	}
	if got := blockText(ls); got != "my brother" {
		t.Fatalf("got %q", got)
	}
}

// GroupBlocks clusters lines with a sweep along x: lines share a block only when they overlap
// along x, so the sweep finds the groups testing every pair finds.
func TestGroupBlocksSweepGroupsLikeEveryPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	everyPair := func(Line) (int, int) { return math.MinInt / 2, math.MaxInt / 2 }
	span := func(l Line) (int, int) { return l.Box.Min.X, l.Box.Max.X }
	for round := range 200 {
		var lines []Line
		for range 20 + rng.IntN(150) {
			w, h := 1+rng.IntN(60), 1+rng.IntN(30)
			x, y := rng.IntN(800), rng.IntN(400)
			r := image.Rect(x, y, x+w, y+h)
			lines = append(lines, Line{Box: r, Words: []page.Word{{Box: r}}})
		}
		if got, want := raster.Cluster(lines, span, sameBlock), raster.Cluster(lines, everyPair, sameBlock); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: the sweep found %d groups, every pair %d", round, len(got), len(want))
		}
	}
}
