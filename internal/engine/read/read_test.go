package read_test

import (
	"context"
	"image"
	"image/draw"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

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
	img := image.NewRGBA(p.Image.Bounds())
	draw.Draw(img, img.Bounds(), p.Image, img.Bounds().Min, draw.Src)
	blocks, pa := find.Manga(img, true)
	tess := tesseract(t)
	rs, err := tess.Oriented(context.Background(), pa, blocks, func(vertical bool) string {
		if vertical {
			return "jpn_vert"
		}
		return "jpn"
	})
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
	var errs, chars int
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
		d, n := distance(got.String(), bb.Text)
		t.Logf("%q read as %q", bb.Text, got.String())
		if d*2 > n {
			t.Errorf("the bubble %q read as %q", bb.Text, got.String())
		}
		errs, chars = errs+d, chars+n
	}
	if errs*10 > chars*3 {
		t.Errorf("the page read with %d errors in %d characters", errs, chars)
	}
}

// distance is the rune edit distance of got from want after NFKC, without spaces, and want's
// length.
func distance(got, want string) (int, int) {
	a := []rune(strings.Join(strings.Fields(norm.NFKC.String(got)), ""))
	b := []rune(strings.Join(strings.Fields(norm.NFKC.String(want)), ""))
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)], len(b)
}
