package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/testkit/llmfake"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

func newEvaluator(t *testing.T, e func(*oracle) engine.Engine) *evaluator {
	t.Helper()
	o := &oracle{}
	ev := &evaluator{engine: e(o), oracle: o, mode: "standard", log: io.Discard}
	if path, err := exec.LookPath("tesseract"); err == nil {
		ev.read, ev.readBack = readBack{path: path}, true
	}
	return ev
}

func tallyOf(r pageResult) tally {
	var t tally
	t.add(r)
	return t
}

// The reference engine, which answers from the annotations, reaches the ceiling of every
// metric; an engine that changes nothing scores nothing.
func TestEvaluateReferenceAndNull(t *testing.T) {
	p, err := mangapage.Generate(4, mangapage.Options{Width: 827, Height: 1170})
	if err != nil {
		t.Fatal(err)
	}
	ref := newEvaluator(t, func(o *oracle) engine.Engine {
		r, err := newReferenceEngine(o)
		if err != nil {
			t.Fatal(err)
		}
		return r
	})
	res, err := ref.evaluate(context.Background(), p, "p4", "ja")
	if err != nil {
		t.Fatal(err)
	}
	got := tallyOf(res)
	if res.Error != "" || got.Bubbles == 0 || got.Read != got.Bubbles || got.meanCER() != 0 || got.Emptied != got.Measured || got.Measured != got.Bubbles {
		t.Errorf("reference engine: %s", res.line())
	}
	if ref.readBack && ratio(got.WordsFound, got.WordsTotal) < 0.7 {
		t.Errorf("reference engine: only %d of %d English words read back", got.WordsFound, got.WordsTotal)
	}

	null := newEvaluator(t, func(*oracle) engine.Engine { return nullEngine{} })
	res, err = null.evaluate(context.Background(), p, "p4", "ja")
	if err != nil {
		t.Fatal(err)
	}
	got = tallyOf(res)
	if got.Read != 0 || got.meanCER() != 1 || got.Emptied != 0 || got.WordsFound > got.WordsTotal/10 {
		t.Errorf("null engine: %s", res.line())
	}
}

// The oracle answers the service's real OpenAI client over the wire, block by block, from
// what the engine read.
func TestOracleOverTheWire(t *testing.T) {
	o := &oracle{}
	fake := llmfake.New(llmfake.Translations(o.translate))
	defer fake.Close()
	c, err := translator.NewOpenAI(translator.OpenAIConfig{BaseURL: fake.URL, Model: "oracle"})
	if err != nil {
		t.Fatal(err)
	}
	o.set([]mangapage.Bubble{
		{Text: "ちょっと待って！", Translation: "Wait a second!"},
		{Text: "遅いぞ、健太。", Translation: "You're late, Kenta."},
	}, nil)
	res, err := c.Translate(context.Background(), translator.Request{Src: "ja", Dst: "en", Texts: []string{"遅いぞ、健太", "", "ちよっと待って!", "???"}})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Translations
	if want := []string{"You're late, Kenta.", "", "Wait a second!", ""}; !slices.Equal(got, want) {
		t.Errorf("oracle answered %q, want %q", got, want)
	}
	if n := o.calls(); n != 1 {
		t.Errorf("oracle counted %d calls", n)
	}
	if ex := o.take(); len(ex) != 4 || ex[2].Answer != "Wait a second!" {
		t.Errorf("exchanges = %+v", ex)
	}
}

// The command writes a generated corpus with -dump and evaluates it back with -dir.
func TestRunDumpAndDir(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-pages", "2", "-seed", "9", "-dump", dir}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	results := t.TempDir()
	if err := run(context.Background(), []string{"-dir", dir, "-engine", "reference", "-readback=false", "-src", "auto,ja", "-out", results}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	report := out.String()
	for _, want := range []string{"| auto | 2 |", "| ja | 2 |", "| page-000 |", "| page-001 |"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	// Every row of the overall table reads 100 % and CER 0.
	for _, l := range strings.Split(report, "\n") {
		if strings.HasPrefix(l, "| auto |") || strings.HasPrefix(l, "| ja |") {
			cells := strings.Split(l, "|")
			if !strings.HasPrefix(strings.TrimSpace(cells[4]), "100.0 %") || strings.TrimSpace(cells[5]) != "0.000" || !strings.HasPrefix(strings.TrimSpace(cells[7]), "100.0 %") {
				t.Errorf("reference row: %s", l)
			}
		}
	}
	for _, name := range []string{"summary.md", "page-000.json", "page-000.ja.result.json", "page-001.auto.result.json"} {
		if fi, err := os.Stat(filepath.Join(results, name)); err != nil || fi.Size() == 0 {
			t.Errorf("-out did not write %s", name)
		}
	}
	if err := run(context.Background(), []string{"-lang", "fr"}, &out, io.Discard); err == nil {
		t.Error("-lang fr accepted")
	}
}

// Tesseract alone, the baseline, runs in one thread as the engine's processes do, unless the
// environment says otherwise: left to OpenMP its threads spin while they wait, and its time
// measured the machine's load.
func TestBaselineRunsInOneThread(t *testing.T) {
	p, err := mangapage.Generate(4, mangapage.Options{Width: 827, Height: 1170})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin, got := filepath.Join(dir, "tesseract"), filepath.Join(dir, "omp")
	script := "#!/bin/sh\ncat >/dev/null\nprintf '%s' \"$OMP_THREAD_LIMIT\" > " + got + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ set, want string }{{"", "1"}, {"2", "2"}} {
		t.Setenv("OMP_THREAD_LIMIT", c.set)
		if c.set == "" {
			os.Unsetenv("OMP_THREAD_LIMIT")
		}
		ev := &evaluator{engine: nullEngine{}, oracle: &oracle{}, mode: "standard", read: readBack{path: bin}, log: io.Discard}
		if _, err := ev.evaluate(context.Background(), p, "p4", "ja"); err != nil {
			t.Fatal(err)
		}
		if omp, _ := os.ReadFile(got); string(omp) != c.want {
			t.Errorf("OMP_THREAD_LIMIT %q in the environment: Tesseract alone ran with %q, want %q", c.set, omp, c.want)
		}
	}
}
