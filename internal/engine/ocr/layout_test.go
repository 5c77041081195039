package ocr

import (
	"image"
	"testing"
)

func TestParseTSV(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t800\t600\t-1\t\n" +
		"4\t1\t1\t1\t1\t0\t10\t20\t300\t40\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t10\t20\t120\t40\t96.5\tHello\n" +
		"5\t1\t1\t1\t1\t2\t140\t22\t150\t38\t91\tworld!\n" +
		"5\t1\t1\t1\t1\t3\t300\t22\t10\t38\t95\t \n"
	ws, err := parseTSV([]byte(tsv))
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].Text != "Hello" || ws[0].Box != image.Rect(10, 20, 130, 60) || ws[1].Conf != 91 {
		t.Fatalf("got %+v", ws)
	}
}

func w(x, y, wd, h int, text string) word {
	return word{Box: image.Rect(x, y, x+wd, y+h), Conf: 90, Text: text}
}

func TestGroupingSeparatesBubbles(t *testing.T) {
	words := []word{
		// bubble 1: two centred lines
		w(100, 100, 80, 30, "I"), w(190, 100, 90, 30, "HAVE"), w(290, 100, 60, 30, "TO"),
		w(130, 138, 110, 30, "FIND"), w(250, 138, 50, 30, "IT-"),
		// bubble 2, far to the right at the same height
		w(700, 105, 120, 30, "Hello"),
		// caption below with different letter size
		w(100, 400, 200, 60, "Later"),
	}
	blocks := groupBlocks(groupLines(cleanWords(words, 1000)))
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
	ls := []line{
		{Words: []word{w(0, 0, 50, 20, "my"), w(60, 0, 80, 20, "broth-")}},
		{Words: []word{w(0, 30, 50, 20, "er")}},
	}
	if got := blockText(ls); got != "my brother" {
		t.Fatalf("got %q", got)
	}
}

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
		res  string
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
