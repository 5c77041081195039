package read_test

import (
	"context"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine/find"
	"github.com/vtsproject/vts/internal/engine/read"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

func tesseract(t *testing.T) *read.Tesseract {
	t.Helper()
	path, err := exec.LookPath("tesseract")
	if err != nil {
		t.Fatalf("tesseract is needed: %v", err)
	}
	return read.NewTesseract(path, "", runtime.NumCPU())
}

// The columns the finder found on a generated Japanese page read, crop by crop in one Tesseract
// process per direction (and one more for the second look at doubtful lines), as the lettered
// text: no bubble misses half its characters, and the page reads at a character error rate
// under 0.3 (the corpus averages 0.23), one reading per block.
func TestOrientedReadsTheColumns(t *testing.T) {
	p, err := mangapage.Generate(1, mangapage.Options{Lang: "ja"})
	if err != nil {
		t.Fatal(err)
	}
	blocks, pa := find.Manga(p.RGBA(), true)
	tess := tesseract(t)
	rs, err := tess.Oriented(context.Background(), pa, blocks, read.JapaneseModel)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(blocks) {
		t.Fatalf("%d readings for %d blocks", len(rs), len(blocks))
	}
	if runs := tess.Runs(); runs > 4 {
		t.Errorf("%d Tesseract processes for one page: the crops are not batched", runs)
	}
	// Each bubble's text against what its blocks read, in block order.
	var errs float64
	var chars int
	for _, bb := range p.Bubbles {
		if !bb.Dialogue() {
			continue
		}
		var got strings.Builder
		for i, b := range blocks {
			if b.Box.Overlaps(bb.Box) {
				got.WriteString(read.CleanCJK(rs[i].Text))
			}
		}
		cer, n := mangapage.CER(bb.Text, got.String()), len(mangapage.Normalize(bb.Text))
		t.Logf("%q read as %q", bb.Text, got.String())
		if cer > 0.5 {
			t.Errorf("the bubble %q read as %q", bb.Text, got.String())
		}
		errs, chars = errs+cer*float64(n), chars+n
	}
	if errs > 0.3*float64(chars) {
		t.Errorf("the page read with %.0f errors in %d characters", errs, chars)
	}
}
