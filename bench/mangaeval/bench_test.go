package main

import (
	"context"
	"io"
	"os/exec"
	"testing"

	"github.com/vtsproject/vts/internal/engine/ocr"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/testkit/llmfake"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// BenchmarkMangaEval runs the ocr engine on generated Japanese pages (seed 1, 2, … one per
// iteration) as the command does with -src ja, and reports the command's metrics beside the
// time per page:
//
//	go test -run '^$' -bench MangaEval -benchtime 24x ./bench/mangaeval
func BenchmarkMangaEval(b *testing.B) {
	tess, err := exec.LookPath("tesseract")
	if err != nil {
		b.Skip("tesseract is not installed")
	}
	o := &oracle{}
	fake := llmfake.New(llmfake.Translations(o.translate))
	defer fake.Close()
	tr, err := translator.NewOpenAI(translator.OpenAIConfig{BaseURL: fake.URL, Model: "oracle"})
	if err != nil {
		b.Fatal(err)
	}
	eng, err := ocr.New(ocr.Config{Translator: tr, AdvancedTranslator: tr})
	if err != nil {
		b.Fatal(err)
	}
	ev := &evaluator{engine: eng, oracle: o, mode: "standard", read: readBack{path: tess}, readBack: true, log: io.Discard}
	var t tally
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p, err := mangapage.Generate(int64(1+i), mangapage.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := ev.evaluate(context.Background(), p, "bench", "ja")
		if err != nil {
			b.Fatal(err)
		}
		t.add(res)
	}
	b.ReportMetric(ratio(t.Read, t.Bubbles), "read/bubble")
	b.ReportMetric(t.meanCER(), "CER")
	b.ReportMetric(ratio(t.WordsFound, t.WordsTotal), "words-back/word")
	b.ReportMetric(ratio(t.Emptied, t.Measured), "emptied/bubble")
	b.ReportMetric(t.meanSeconds(), "engine-s/page")
}
