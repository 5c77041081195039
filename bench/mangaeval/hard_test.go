package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

func TestPublishTallyByHardKind(t *testing.T) {
	var tl publishTally
	tl.add(pageResult{Bubbles: []bubbleResult{
		{Kind: mangapage.KindBubble, Hard: mangapage.HardShort, Text: "ね？", Scored: true, Reading: reading{Read: true}},
		{Kind: mangapage.KindBubble, Hard: mangapage.HardShort, Text: "キャー！", Scored: true},
		{Kind: mangapage.KindBubble, Hard: mangapage.HardOpen, Text: "ちょっと待って！", Scored: true, Reading: reading{Read: true}},
		{Kind: mangapage.KindFree, Hard: mangapage.HardOnArt, Text: "ふざけるな！", Scored: true},
		{Kind: mangapage.KindBubble, Text: "行くぞ、みんな！", Scored: true, Reading: reading{Read: true}},
		{Kind: mangapage.KindSFX, Text: "ドドド"}, // not dialogue: counted by kind only
	}})
	for _, c := range []struct {
		hard        string
		read, total int
	}{{mangapage.HardShort, 1, 2}, {mangapage.HardOpen, 1, 1}, {mangapage.HardOnArt, 0, 1}, {mangapage.HardSquare, 0, 0}, {"", 1, 1}} {
		if tl.HardRead[c.hard] != c.read || tl.HardTotal[c.hard] != c.total {
			t.Errorf("hard kind %q: %d of %d read, want %d of %d", c.hard, tl.HardRead[c.hard], tl.HardTotal[c.hard], c.read, c.total)
		}
	}
}

// -set hard generates the hard pages and reports recall by hard kind; the reference engine,
// answering from the annotations, reads them all. The default set has no such table.
func TestRunHardSet(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-set", "hard", "-pages", "1", "-seed", "2", "-engine", "reference", "-readback=false", "-src", "ja"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	report := out.String()
	if !strings.Contains(report, "with the hard kinds of lettering (-set hard)") || !strings.Contains(report, "| source | short | open | on-art | square | ordinary |") {
		t.Fatalf("report lacks the hard set's table:\n%s", report)
	}
	rows := 0
	for _, l := range strings.Split(report, "\n") {
		if !strings.HasPrefix(l, "| ja | ") || strings.Count(l, "|") != 7 {
			continue
		}
		rows++
		cells := strings.Split(l, "|")[2:6]
		for i, c := range cells {
			if !strings.HasPrefix(strings.TrimSpace(c), "100.0 %") {
				t.Errorf("reference engine on %s lettering: %s", mangapage.HardKinds[i], c)
			}
		}
	}
	if rows != 1 {
		t.Errorf("%d rows of recall by hard kind for ja:\n%s", rows, report)
	}
	out.Reset()
	if err := run(context.Background(), []string{"-pages", "1", "-engine", "null", "-readback=false", "-src", "ja"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "by hard kind") {
		t.Errorf("the default set reports hard kinds:\n%s", out.String())
	}
	for _, args := range [][]string{{"-set", "hardest"}, {"-set", "hard", "-lang", "ko"}, {"-set", "hard", "-dir", "."}, {"-sfx", "-dir", "."}} {
		if _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

// A sound effect counts as marked when the block it matched is kind sfx, read or not; the
// transcript's skipped blocks are counted apart.
func TestPublishTallySoundEffectsAndSkipped(t *testing.T) {
	var tl publishTally
	tl.add(pageResult{
		Engine: &engine.Transcript{Blocks: []engine.TranscriptBlock{
			{Kind: "sfx", Status: "skipped", Reason: "sound effect"},
			{Kind: "free", Status: "skipped", Reason: "read with too little confidence"},
			{Kind: "bubble", Status: "lettered"},
		}},
		Bubbles: []bubbleResult{
			{Kind: mangapage.KindSFX, Text: "ドドド", Reading: reading{Block: 0}},
			{Kind: mangapage.KindSFX, Text: "バン", Reading: reading{Block: 1}},
			{Kind: mangapage.KindSFX, Text: "ゴゴゴ", Reading: reading{Block: -1}},
			{Kind: mangapage.KindBubble, Text: "行くぞ、みんな！", Scored: true, Reading: reading{Block: 2, Read: true}},
		},
	})
	if tl.SFXMarked != 1 || tl.KindTotal[mangapage.KindSFX] != 3 {
		t.Errorf("%d of %d sound effects marked, want 1 of 3", tl.SFXMarked, tl.KindTotal[mangapage.KindSFX])
	}
	if tl.Skipped != 2 || tl.Blocks != 3 {
		t.Errorf("%d of %d blocks skipped, want 2 of 3", tl.Skipped, tl.Blocks)
	}
}
