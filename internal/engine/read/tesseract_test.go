package read

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
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

// Each tesseract process runs one OpenMP thread (its spinning threads made a busy machine's
// pages several times slower), unless the operator chose the number of threads.
func TestTesseractRunsOneThreadUnlessTold(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tesseract")
	// A stand-in that reads the image and answers one word: the thread limit it was given.
	script := "#!/bin/sh\ncat >/dev/null\nprintf '5\\t1\\t1\\t1\\t1\\t1\\t0\\t0\\t1\\t1\\t90\\tomp=%s\\n' \"$OMP_THREAD_LIMIT\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	limit := func() string {
		ws, err := NewTesseract(bin, "", 1).Words(context.Background(), image.NewGray(image.Rect(0, 0, 4, 4)), "eng", 7)
		if err != nil || len(ws) != 1 {
			t.Fatalf("Words = %+v, %v", ws, err)
		}
		return ws[0].Text
	}
	t.Setenv("OMP_THREAD_LIMIT", "") // restored after the test
	os.Unsetenv("OMP_THREAD_LIMIT")
	if got := limit(); got != "omp=1" {
		t.Errorf("without OMP_THREAD_LIMIT set, tesseract got %q, want omp=1", got)
	}
	t.Setenv("OMP_THREAD_LIMIT", "2")
	if got := limit(); got != "omp=2" {
		t.Errorf("with OMP_THREAD_LIMIT=2 set, tesseract got %q, want omp=2", got)
	}
}

// Korean sets a space between its words, and Tesseract's Korean models read them as words: the
// reading keeps the spaces a quarter of a character wide or more, and none where the model
// parted one word in two. Japanese and Chinese set none between theirs, nor between lines.
func TestParseReadingsKeepsKoreanWordSpaces(t *testing.T) {
	// A word at left, width pixels wide, in a crop of 48-pixel characters.
	row := func(pg, line, word, left, width int, text string) string {
		return fmt.Sprintf("5\t%d\t1\t1\t%d\t%d\t%d\t30\t%d\t48\t90\t%s\n", pg, line, word, left, width, text)
	}
	tsv := row(1, 1, 1, 32, 150, "괜찮아,") + row(1, 1, 2, 200, 100, "내가") + row(1, 1, 3, 318, 150, "있잖아.") +
		// 오랜만이야 parted by the model where its syllables stand no further apart than the rest.
		row(2, 1, 1, 32, 150, "오랜만") + row(2, 1, 2, 187, 100, "이야.") +
		row(3, 1, 1, 32, 150, "大丈夫") + row(3, 1, 2, 200, 100, "だよ") + row(3, 2, 1, 32, 150, "本当に") +
		row(4, 1, 1, 32, 100, "Level") + row(4, 1, 2, 140, 20, "1")
	rs, err := parseReadings([]byte(tsv), 4)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"괜찮아, 내가 있잖아.", "오랜만이야.", "大丈夫だよ本当に", "Level 1"} {
		if rs[i].Text != want {
			t.Errorf("page %d read %q, want %q", i+1, rs[i].Text, want)
		}
	}
}
