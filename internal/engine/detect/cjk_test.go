package detect_test

import (
	"context"
	"image"
	"log/slog"
	"os/exec"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine/detect"
	"github.com/vtsproject/vts/internal/engine/find"
	"github.com/vtsproject/vts/internal/engine/page"
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

// chineseReader reads every block as the same line of Chinese, in the script and with the
// confidence its model is given.
type chineseReader struct{ sim, tra page.Reading }

func (r chineseReader) Latin(_ context.Context, _ *page.Analysis, blocks []*page.Block, _ string) ([]page.Reading, error) {
	return make([]page.Reading, len(blocks)), nil
}

func (r chineseReader) Oriented(_ context.Context, _ *page.Analysis, blocks []*page.Block, model func(bool) string) ([]page.Reading, error) {
	out := make([]page.Reading, len(blocks))
	for i := range out {
		switch model(false) {
		case "chi_sim":
			out[i] = r.sim
		case "chi_tra":
			out[i] = r.tra
		}
	}
	return out, nil
}

func (r chineseReader) Script(context.Context, *image.Gray) (string, error) { return "", nil }

// Most characters are written alike in simplified and traditional Chinese, and on a page of
// them both models read about as well: traditional is taken only where its model reads clearly
// better, as it does a page set in traditional characters.
func TestChineseIsTraditionalOnlyWhereItsModelReadsClearlyBetter(t *testing.T) {
	line := image.Rect(10, 10, 210, 30)
	blocks := []*page.Block{{Box: line, Char: 20, Lines: []image.Rectangle{line}}}
	for _, c := range []struct {
		sim, tra page.Reading
		want     string
	}{
		{page.Reading{Text: "今天的天气真好。", Conf: 0.92}, page.Reading{Text: "今天的天氣真好。", Conf: 0.921}, "zh-Hans"},
		{page.Reading{Text: "今天的天气真好。", Conf: 0.80}, page.Reading{Text: "今天的天氣真好。", Conf: 0.95}, "zh-Hant"},
		{page.Reading{Text: "今天的天气真好。", Conf: 0.95}, page.Reading{Text: "今天的天氣真好。", Conf: 0.80}, "zh-Hans"},
	} {
		res, err := detect.CJK(context.Background(), chineseReader{c.sim, c.tra}, &page.Analysis{}, blocks,
			detect.Options{Auto: true, CJK: []string{"zh-Hans", "zh-Hant"}, Installed: []string{"chi_sim", "chi_tra"}, Log: slog.Default()})
		if err != nil {
			t.Fatal(err)
		}
		if res.Lang != c.want {
			t.Errorf("simplified read at %.3f, traditional at %.3f: decided %q (%s), want %s", c.sim.Conf, c.tra.Conf, res.Lang, res.Detection.Reason, c.want)
		}
	}
}
