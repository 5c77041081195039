package ocr

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/testkit/docpage"
)

// benchPage is a 1600×2400 comic page: four speech bubbles on a gradient, a dark caption box
// with light lettering, and a paragraph panel.
func benchPage(b *testing.B) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 1600, 2400))
	gradient(img)
	white, black := color.RGBA{255, 255, 255, 255}, color.RGBA{20, 20, 20, 255}
	bubbles := []struct {
		c     image.Point
		lines []string
	}{
		{image.Pt(450, 300), []string{"I have to find", "my brother."}},
		{image.Pt(1150, 650), []string{"Where is the", "big house?"}},
		{image.Pt(450, 1050), []string{"The dog runs", "in the garden."}},
		{image.Pt(1150, 1450), []string{"We are late", "for school!"}},
	}
	for _, bb := range bubbles {
		fillEllipse(img, bb.c, 360, 190, white, black)
		drawLettering(b, img, lettering{Lines: bb.lines, Font: notoBold, Size: 56, Ink: black, Center: bb.c})
	}
	fillRect(img, image.Rect(100, 1750, 1500, 1950), color.RGBA{25, 30, 60, 255})
	drawLettering(b, img, lettering{Lines: []string{"The night was cold."}, Font: dejaVuSerif, Size: 64, Ink: white, Center: image.Pt(800, 1850)})
	fillRect(img, image.Rect(100, 2000, 1500, 2350), color.RGBA{250, 250, 245, 255})
	drawLettering(b, img, lettering{Lines: []string{"The children play in the garden every", "morning. Their mother works in the city."},
		Font: notoRegular, Size: 44, Ink: black, Center: image.Pt(800, 2175)})
	return img
}

// BenchmarkOCREngine translates the page en→es in standard mode: two Tesseract passes,
// Apertium, inpainting, lettering and PNG encoding.
func BenchmarkOCREngine(b *testing.B) {
	e := testEngine(b)
	data := encode(b, benchPage(b), "png")
	req := engine.Request{Image: data, Format: "png", SourceLang: "en", TargetLang: "es", Mode: "standard", Resolution: "original"}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		resp, err := e.Translate(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		if resp.Blocks != 6 {
			b.Fatalf("Blocks = %d, want 6", resp.Blocks)
		}
	}
}

// BenchmarkOCREngineFast is the same page in fast mode (one Tesseract pass).
func BenchmarkOCREngineFast(b *testing.B) {
	e := testEngine(b)
	data := encode(b, benchPage(b), "png")
	req := engine.Request{Image: data, Format: "png", SourceLang: "en", TargetLang: "es", Mode: "fast", Resolution: "original"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Translate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTesseractCLI is the baseline: the Tesseract CLI alone reading the same page from a
// PNG file, as one would run it by hand. The engine's overhead is measured against it.
func BenchmarkTesseractCLI(b *testing.B) {
	path := filepath.Join(b.TempDir(), "page.png")
	// bench/ocr_rss.sh measures Tesseract's memory on the very same page.
	if p := os.Getenv("VTS_BENCH_PAGE"); p != "" {
		path = p
	}
	if err := os.WriteFile(path, encode(b, benchPage(b), "png"), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		out, err := exec.Command("tesseract", path, "stdout", "-l", "eng", "--psm", "11", "tsv").Output()
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Contains(out, []byte("brother")) {
			b.Fatal("tesseract did not read the page")
		}
	}
}

// BenchmarkAutoOnLatinPages translates the first six pages of the ordinary-page corpus (the
// pages of the report behind issue 15, among them) once with their language named and once
// under auto, in the same iteration, and reports the time and Tesseract passes per page of each
// and the ratio: what detection costs on an ordinary page.
func BenchmarkAutoOnLatinPages(b *testing.B) {
	e := testEngine(b)
	specs := docpage.Corpus()[:6]
	pages := make([]docpage.Page, len(specs))
	for i, s := range specs {
		p, err := docpage.Render(s)
		if err != nil {
			b.Fatal(err)
		}
		pages[i] = p
	}
	var named, auto time.Duration
	var namedRuns, autoRuns int64
	run := func(p docpage.Page, src string) (time.Duration, int64) {
		dst := map[string]string{"en": "es", "es": "en"}[p.Lang]
		runs := e.tess.runs.Load()
		start := time.Now()
		if _, err := e.Translate(context.Background(), engine.Request{Image: p.Image, Format: p.Format, Filename: p.Name(),
			SourceLang: src, TargetLang: dst}); err != nil {
			b.Fatalf("%s from %s: %v", p.Name(), src, err)
		}
		return time.Since(start), e.tess.runs.Load() - runs
	}
	for b.Loop() {
		for _, p := range pages {
			d, r := run(p, p.Lang)
			named, namedRuns = named+d, namedRuns+r
			d, r = run(p, "auto")
			auto, autoRuns = auto+d, autoRuns+r
		}
	}
	n := float64(b.N * len(pages))
	b.ReportMetric(named.Seconds()/n, "named-s/page")
	b.ReportMetric(auto.Seconds()/n, "auto-s/page")
	b.ReportMetric(auto.Seconds()/named.Seconds(), "auto/named")
	b.ReportMetric(float64(namedRuns)/n, "named-passes/page")
	b.ReportMetric(float64(autoRuns)/n, "auto-passes/page")
}

// BenchmarkEditAgainstTranslate letters the sample manga page again from its edited transcript
// (one translation changed, no OCR, no translation) and, in the same run, translates the page in
// full (OCR, the language model's answer from a local fake, cleaning, lettering): the edit's
// cost is reported as a ratio of the full translation's.
func BenchmarkEditAgainstTranslate(b *testing.B) {
	img, _ := sampleMangaPage(b)
	_, llm := newOracle(b, sampleTranslations)
	e, err := New(Config{Fallback: llm})
	if err != nil {
		b.Fatal(err)
	}
	req := engine.Request{Image: encode(b, img, "png"), Format: "png", Filename: "p1.png", SourceLang: "ja", TargetLang: "en", Mode: "standard"}
	resp, err := e.Translate(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	edited := *resp.Transcript
	edited.Blocks = engine.NameBlocks(resp.Transcript.Blocks)
	edited.Blocks[0].Translation = "Stop right there, thief!"
	edit := engine.EditRequest{Cleaned: resp.Cleaned, Source: req.Image, Machine: resp.Transcript, Transcript: &edited, Mode: "standard"}
	var editTime, fullTime time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		if _, err := e.Edit(context.Background(), edit); err != nil {
			b.Fatal(err)
		}
		editTime += time.Since(start)
		start = time.Now()
		if _, err := e.Translate(context.Background(), req); err != nil {
			b.Fatal(err)
		}
		fullTime += time.Since(start)
	}
	b.ReportMetric(float64(editTime.Milliseconds())/float64(b.N), "edit-ms/page")
	b.ReportMetric(float64(fullTime.Milliseconds())/float64(b.N), "translate-ms/page")
	b.ReportMetric(float64(editTime)/float64(fullTime), "edit/translate")
}
