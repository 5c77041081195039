package detect_test

import (
	"context"
	"log/slog"
	"os/exec"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine/detect"
	"github.com/vtsproject/vts/internal/engine/find"
	"github.com/vtsproject/vts/internal/engine/read"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// Under auto, a generated Korean webtoon strip, read by the real read stage, is told Korean: the
// Latin look does not settle it, Hangul read into words wins, and the evidence names Latin as
// a candidate scored below Korean's script.
func TestCJKTellsKoreanUnderAuto(t *testing.T) {
	p, err := mangapage.Generate(2, mangapage.Options{Lang: "ko"})
	if err != nil {
		t.Fatal(err)
	}
	path, err := exec.LookPath("tesseract")
	if err != nil {
		t.Fatalf("tesseract is needed: %v", err)
	}
	tess := read.NewTesseract(path, "", 2)
	installed, err := tess.ListLangs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	blocks, pa := find.Manga(p.RGBA(), true)
	model, langs := detect.LatinModel([]string{"en"}, map[string]string{"en": "eng"}, installed)
	res, err := detect.CJK(context.Background(), tess, pa, blocks, detect.Options{Auto: true, CJK: []string{"ja", "ko", "zh-Hans"},
		LatinModel: model, LatinLangs: langs, Installed: installed, Log: slog.Default()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Lang != "ko" || res.Latin || len(res.Readings) != len(blocks) {
		t.Fatalf("decided %q (Latin %v) with %d readings for %d blocks: %+v", res.Lang, res.Latin, len(res.Readings), len(blocks), res.Detection)
	}
	d := res.Detection
	if d == nil || len(d.Candidates) < 2 || d.Candidates[0].Script != "Hangul" || !strings.Contains(d.Reason, "Hangul") {
		t.Fatalf("evidence %+v: want Hangul first, with the reason", d)
	}
	latin := false
	for _, c := range d.Candidates[1:] {
		latin = latin || c.Script == "Latin"
	}
	if !latin {
		t.Errorf("Latin was not weighed: %+v", d.Candidates)
	}
}
