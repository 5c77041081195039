package api_test

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/ocr"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/testkit/docpage"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// The honesty rule, through the whole service with the real offline engine and no language
// model configured: what cannot be translated is refused or refunded, never charged as garbage.

var (
	ocrOnce sync.Once
	ocrEng  *ocr.Engine
	ocrErr  error
)

func offlineEngine(t *testing.T) *ocr.Engine {
	t.Helper()
	ocrOnce.Do(func() { ocrEng, ocrErr = ocr.New(ocr.Config{}) })
	if ocrErr != nil {
		t.Fatalf("ocr engine: %v", ocrErr)
	}
	return ocrEng
}

func japanesePage(t *testing.T) apitest.File {
	t.Helper()
	p, err := mangapage.Generate(7, mangapage.Options{Lang: "ja", Width: 1000, Height: 1400, Format: "png", Pristine: true})
	if err != nil {
		t.Fatal(err)
	}
	return apitest.File{Name: "p1.png", Data: p.Encoded}
}

func TestJapaneseWithoutLanguageModelCostsNothing(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: offlineEngine(t)})
	page := japanesePage(t)

	// An explicit ja is refused at upload, naming the pair and how to enable it.
	resp := env.Upload([][2]string{{"userId", "reader"}, {"sourceLang", "ja"}, {"targetLang", "en"}}, page)
	if resp.Status != http.StatusBadRequest || !strings.Contains(string(resp.Body), "ja→en needs a language-model translator: set VTS_LLM_URL and VTS_LLM_MODEL") {
		t.Fatalf("explicit ja: %d %s", resp.Status, resp.Body)
	}
	if n := env.Blobs(""); n != 0 {
		t.Errorf("%d blobs left by a refused upload", n)
	}
	before, _ := env.Balance("reader")

	// Under auto the page is detected as Japanese and fails with the same message, refunded:
	// nothing lettered, nothing charged.
	a := env.UploadAccepted(t, [][2]string{{"userId", "reader"}, {"targetLang", "en"}}, page)
	last := finished(t, env, a.JobID)
	if last.Status != "failed" || len(last.Results) != 0 || len(last.Errors) != 1 ||
		!strings.Contains(last.Errors[0].Message, "ja→en needs a language-model translator") {
		t.Fatalf("auto on a Japanese page ended %+v", last)
	}
	if after, _ := env.Balance("reader"); after != before {
		t.Errorf("allowance %d after the failed page, %d before: the credit was not refunded", after, before)
	}

	// A page without lettering comes back byte for byte, and says it found nothing to read.
	art := artPage(t)
	b := env.UploadAccepted(t, [][2]string{{"userId", "reader"}, {"targetLang", "en"}}, apitest.File{Name: "art.png", Data: art})
	last = finished(t, env, b.JobID)
	if last.Status != "completed" || len(last.Results) != 1 {
		t.Fatalf("art page ended %+v", last)
	}
	out := env.Do("GET", last.Results[0].URL, nil, nil)
	if out.Status != http.StatusOK || !bytes.Equal(out.Body, art) {
		t.Fatalf("the page without text came back changed (%d, %d bytes for %d)", out.Status, len(out.Body), len(art))
	}
}

// artPage is a page of panels, tone and an empty bubble: no lettering anywhere.
func artPage(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 800, 1100))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{250, 250, 250, 255}), image.Point{}, draw.Src)
	for y := 40; y < 520; y++ {
		for x := 40; x < 760; x++ {
			if x%7 < 2 && y%7 < 2 {
				img.Set(x, y, color.Black)
			}
		}
	}
	for x := 40; x < 760; x++ {
		for _, y := range []int{40, 41, 42, 519, 520, 580, 581, 1060, 1061} {
			img.Set(x, y, color.Black)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The web page's defaults (sourceLang auto) with the real offline engine on the three ordinary
// pages the report behind issue 15 saw fail as Korean: the job completes, every page is detected
// as English and charged once, and its transcript says why.
func TestAutoTranslatesOrdinaryEnglishPages(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: offlineEngine(t)})
	var files []apitest.File
	for _, spec := range docpage.Corpus()[:3] {
		p, err := docpage.Render(spec)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, apitest.File{Name: spec.Name(), Data: p.Image})
	}
	a := env.UploadAccepted(t, [][2]string{{"userId", "reader"}, {"targetLang", "es"}}, files...)
	last := finished(t, env, a.JobID)
	if last.Status != "completed" || len(last.Results) != 3 || len(last.Errors) != 0 {
		t.Fatalf("auto on ordinary English pages ended %+v", last)
	}
	for _, r := range last.Results {
		if r.SourceLang != "en" {
			t.Errorf("%s: detected %q, want en", r.SourceFilename, r.SourceLang)
		}
		var tr engine.Transcript
		env.Do("GET", r.Transcript, nil, nil).JSON(t, &tr)
		if tr.Detection == nil || tr.Detection.Reason == "" || len(tr.Detection.Candidates) == 0 || tr.Detection.Candidates[0].Script != "Latin" {
			t.Errorf("%s: transcript detection %+v", r.SourceFilename, tr.Detection)
		}
	}
	// A new user's Free allowance is 10 credits: three pages cost three.
	if al, _ := env.Balance("reader"); al != 7 {
		t.Errorf("allowance %d after three translated pages, want 7", al)
	}
}
