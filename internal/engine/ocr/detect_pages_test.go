package ocr

import (
	"context"
	"fmt"
	"testing"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/lang"
	"github.com/vtsproject/vts/internal/testkit/docpage"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// Under auto, every ordinary printed page of the corpus (documents, letters, book pages, manuals,
// screenshots and signs in thirteen typefaces, on white, cream, grey and photographed paper, as
// PNG and JPEG) is detected as the language it is written in and translated: none is taken for
// Korean or Chinese, as the report behind issue 15 found three of six.
func TestAutoDetectsOrdinaryPages(t *testing.T) {
	e := testEngine(t)
	for _, spec := range docpage.Corpus() {
		t.Run(spec.Name(), func(t *testing.T) {
			page, err := docpage.Render(spec)
			if err != nil {
				t.Fatal(err)
			}
			dumpImage(t, "in."+spec.Format, page.Image)
			dst := "es"
			if spec.Lang == "es" {
				dst = "en"
			}
			resp, err := e.Translate(context.Background(), engine.Request{
				Image: page.Image, Format: spec.Format, Filename: spec.Name(),
				SourceLang: "auto", TargetLang: dst,
			})
			if err != nil {
				t.Fatalf("auto on a %s page in %s: %v", spec.Lang, spec.Face.Name, err)
			}
			if resp.Transcript == nil {
				t.Fatalf("no transcript: the page came back untranslated")
			}
			if got := resp.Transcript.SourceLang; got != spec.Lang {
				t.Errorf("detected %q, want %q", got, spec.Lang)
			}
			d := resp.Transcript.Detection
			if d == nil || d.Reason == "" || len(d.Candidates) == 0 {
				t.Fatalf("the transcript does not say how the language was detected: %+v", d)
			}
			if d.Candidates[0].Script != "Latin" {
				t.Errorf("best candidate %+v, want Latin (%s)", d.Candidates[0], d.Reason)
			}
			t.Logf("%s: %s %+v", spec.Name(), d.Reason, d.Candidates)
			if resp.Blocks == 0 {
				t.Errorf("nothing was translated")
			}
		})
	}
}

// The Latin look that comes first under auto must not take manga for Latin: Japanese pages,
// Korean webtoon strips and Chinese pages of the generated corpus are still detected as their
// language, with Latin scored below their own script in the transcript.
func TestAutoStillDetectsMangaWebtoonAndManhua(t *testing.T) {
	_, llm := newOracle(t, nil)
	e, err := New(Config{Fallback: llm})
	if err != nil {
		t.Fatal(err)
	}
	pages := []struct {
		lang string
		seed int64
	}{{"ja", 1}, {"ja", 7}, {"ko", 2}, {"zh-Hans", 3}, {"zh-Hans", 5}}
	for _, pg := range pages {
		t.Run(fmt.Sprintf("%s-%d", pg.lang, pg.seed), func(t *testing.T) {
			page, err := mangapage.Generate(pg.seed, mangapage.Options{Lang: pg.lang})
			if err != nil {
				t.Fatal(err)
			}
			resp, err := e.Translate(context.Background(), engine.Request{Image: page.Encoded, Format: page.Format,
				Filename: "p." + page.Format, SourceLang: "auto", TargetLang: "en"})
			if err != nil {
				t.Fatalf("Translate: %v", err)
			}
			ts := resp.Transcript
			if ts == nil || ts.SourceLang != pg.lang {
				t.Fatalf("detected %+v, want %s", ts, pg.lang)
			}
			d := ts.Detection
			if d == nil || len(d.Candidates) == 0 || d.Candidates[0].Script != lang.Script(pg.lang) {
				t.Fatalf("detection %+v: want %s scored first", d, lang.Script(pg.lang))
			}
			t.Logf("%s", d.Reason)
		})
	}
}

// Detection on a Latin page costs at most one Tesseract pass over naming the language: the
// Latin look at the found lettering settles it, and no Chinese, Japanese or Korean model runs.
func TestAutoOnALatinPageCostsOnePassMore(t *testing.T) {
	e, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range docpage.Corpus()[:4] {
		t.Run(spec.Name(), func(t *testing.T) {
			page, err := docpage.Render(spec)
			if err != nil {
				t.Fatal(err)
			}
			dst := map[string]string{"en": "es", "es": "en"}[spec.Lang]
			passes := func(src string) int64 {
				before := e.tess.Runs()
				if _, err := e.Translate(context.Background(), engine.Request{Image: page.Image, Format: spec.Format,
					Filename: spec.Name(), SourceLang: src, TargetLang: dst}); err != nil {
					t.Fatalf("Translate from %s: %v", src, err)
				}
				return e.tess.Runs() - before
			}
			named, auto := passes(spec.Lang), passes("auto")
			if auto > named+1 {
				t.Errorf("auto ran %d Tesseract passes, %s ran %d: detection may cost one", auto, spec.Lang, named)
			}
		})
	}
}
