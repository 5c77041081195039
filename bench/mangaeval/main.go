// Command mangaeval measures how well the offline engine translates manga pages.
//
// It generates annotated pages with internal/testkit/mangapage (or reads annotated pages from
// a directory), runs the real ocr engine on each through the public engine seam, with the
// real OpenAI-compatible translator pointed at a local fake chat-completions server that
// acts as an oracle: each block gets the known English of the annotated lettering most similar
// to it, or "" when nothing is similar enough (half its characters, or a fair part of one
// balloon; see oracle.go). So the translator is perfect and what is measured is the engine.
// It reports, for dialogue (every annotated kind but "sfx"):
//
//   - found and read: the fraction of bubbles whose best-overlapping transcript block (by
//     intersection over union with the annotated box) reads with a character similarity of
//     at least 0.5 (similarity = 1 - CER; CER = rune Levenshtein distance over the reference
//     length after NFKC normalisation and without whitespace, capped at 1);
//   - mean CER, a missed bubble counting 1;
//   - English read back: the fraction of the words of the known translations (lower case,
//     letters only, two letters or more) that Tesseract (eng, --psm 6) reads on the output
//     page inside each bubble's balloon (or around its box when it has none);
//   - emptied: the fraction of bubbles of which at least 90 % of the source-ink pixels now
//     look like what the lettering was drawn over: on a generated page (or an annotated one
//     with a plate), like the page drawn without its lettering (within 40 % of the way from
//     it to the ink, the plate taken over a 5×5 window so that a tone or hatching rebuilt a
//     pixel off counts as rebuilt); on a page without one, like the paper around the glyphs
//     (closer to the bubble's paper colour than 40 % of the way to its ink colour). Measured
//     on Response.Cleaned, or on Response.Image when the engine gives no cleaned page (where
//     the English lettering then counts against it);
//   - seconds per page (wall time of Translate): mean, 90th percentile, and pages per second.
//
// Metrics that need a transcript read 0 when the engine returns none.
//
// Usage:
//
//	go run ./bench/mangaeval [-pages 24] [-seed 1] [-src auto,ja] [-lang ja|ko|zh-Hans|mix]
//	    [-set default|hard|harsh] [-sfx] [-otherfaces] [-mode standard] [-dir annotated/] [-out results/] [-dump corpus/]
//	    [-engine reference]
//
// -set hard generates Japanese pages that add, to the usual lettering, the kinds engines miss on
// published pages (mangapage.Options.Hard: short shouts, open or frame-cut balloons, text on
// tone or hatching, square blocks of columns), and reports recall by that kind; the default set
// is the one earlier figures were measured on. -set harsh draws the pages as published scans
// shared as JPEG leave them (mangapage.Options.Harsh: quality 60–80, soft grey glyph edges,
// tinted textured paper, light screentone in some balloons), where erasing leaves ghosts.
//
// -otherfaces letters the generated pages' dialogue in typefaces the engine was never tuned on
// (mangapage.Options.OtherFaces: Motoya L Maruberi and Cedar, M+, Klee One, UmePlus Gothic), to
// see how far the figures carry to the faces real pages use.
//
// -engine reference replaces the ocr engine by one that answers from the annotations (it
// erases the annotated ink and letters the known English in each balloon): the ceiling of the
// metrics on a corpus, which shows what the harness itself loses; -engine null hands every page
// back untouched: their floor (Tesseract finds a few English words in any art).
//
// -dir evaluates real pages instead: every *.json file in the directory is an annotation in
// this format (the one mangapage.WritePage writes, so -dump writes a generated corpus in it):
//
//	{
//	  "image": "0001.jpg",               // the page, relative to the JSON file (PNG, JPEG, WebP)
//	  "width": 1654, "height": 2339,     // its size in pixels
//	  "lang": "ja",                      // its main language
//	  "ink": "0001.ink.png",             // optional: 8-bit grey mask, 255 where source lettering is
//	  "plate": "0001.plate.png",         // optional: the page without its dialogue's lettering
//	  "bubbles": [{
//	    "box":     {"x": 812, "y": 140, "w": 96, "h": 310},  // the lettering's ink box
//	    "balloon": {"x": 760, "y": 96, "w": 200, "h": 400},  // optional: the balloon's box
//	    "kind": "bubble",                // "bubble", "caption", "free" or "sfx" (not scored)
//	    "lang": "ja",                    // optional, defaults to the page's
//	    "vertical": true,
//	    "text": "田中先輩、おはようございます！", // the source as lettered, without furigana
//	    "translation": "Good morning, Tanaka-senpai!",
//	    "hard": "short"                  // optional: "short", "open", "on-art" or "square"
//	  }]
//	}
//
// Without an ink mask, a bubble's source ink is taken to be the pixels of its box that differ
// from the paper around it by at least half of the strongest contrast in the box.
//
// -out writes, per page, the page and its annotation (as -dump does), the translated page,
// the cleaned page when there is one, and a JSON report with the transcript and every
// bubble's scores, plus summary.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strings"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/ocr"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/llmfake"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mangaeval:", err)
		os.Exit(1)
	}
}

type config struct {
	Pages      int
	Seed       int64
	Srcs       []string
	Mode       string
	Lang       string
	Dir        string
	Out        string
	Dump       string
	Tesseract  string
	ReadBack   bool
	Verbose    bool
	Engine     string
	Set        string
	SFX        bool
	OtherFaces bool
	// CPUProfile names a file for a Go CPU profile of the run: where the engine's own time goes
	// (Tesseract's processes are not in it; the report's Tesseract-alone column measures them).
	CPUProfile string
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	var srcs string
	fs := flag.NewFlagSet("mangaeval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&c.Pages, "pages", 24, "number of generated pages")
	fs.Int64Var(&c.Seed, "seed", 1, "seed of the first generated page; page i has seed+i")
	fs.StringVar(&srcs, "src", "auto", "source languages to request, comma-separated (auto, ja, ko, zh-Hans)")
	fs.StringVar(&c.Mode, "mode", "standard", "engine mode")
	fs.StringVar(&c.Lang, "lang", "ja", "language of generated pages: ja, ko, zh-Hans, or mix (mostly ja)")
	fs.StringVar(&c.Dir, "dir", "", "evaluate the annotated pages of this directory instead of generated ones")
	fs.StringVar(&c.Out, "out", "", "directory for translated pages and per-page JSON reports")
	fs.StringVar(&c.Dump, "dump", "", "write the generated pages and annotations to this directory and exit")
	fs.StringVar(&c.Tesseract, "tesseract", "tesseract", "Tesseract CLI for reading the English back")
	fs.BoolVar(&c.ReadBack, "readback", true, "read the English back with Tesseract")
	fs.BoolVar(&c.Verbose, "v", false, "log every bubble")
	fs.StringVar(&c.Set, "set", "default", "generated pages: default; hard (adds the lettering engines miss on published pages, recall reported by hard kind; ja only); harsh (scans shared as JPEG q60–80: soft grey glyph edges, tinted textured paper, tone in balloons)")
	fs.BoolVar(&c.SFX, "sfx", false, "generated pages get two to four more sound effects, in more looks and faces (mangapage.Options.SFX)")
	fs.BoolVar(&c.OtherFaces, "otherfaces", false, "generated pages letter their dialogue in typefaces the engine was never tuned on (mangapage.Options.OtherFaces; ja only)")
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "write a Go CPU profile of the run to this file")
	fs.StringVar(&c.Engine, "engine", "ocr", "engine: ocr; reference (answers from the annotations: the metrics' ceiling); null (changes nothing: their floor)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	for _, s := range strings.Split(srcs, ",") {
		if s = strings.TrimSpace(s); s != "" {
			c.Srcs = append(c.Srcs, s)
		}
	}
	if len(c.Srcs) == 0 {
		return c, errors.New("-src names no language")
	}
	switch c.Engine {
	case "ocr", "reference", "null":
	default:
		return c, fmt.Errorf("-engine %q: want ocr, reference or null", c.Engine)
	}
	switch c.Lang {
	case "ja", "ko", "zh-Hans", "mix":
	default:
		return c, fmt.Errorf("-lang %q: want ja, ko, zh-Hans or mix", c.Lang)
	}
	switch {
	case c.Set != "default" && c.Set != "hard" && c.Set != "harsh":
		return c, fmt.Errorf("-set %q: want default, hard or harsh", c.Set)
	case c.Set == "hard" && c.Lang != "ja":
		return c, fmt.Errorf("-set hard draws Japanese pages only, not -lang %s", c.Lang)
	case c.OtherFaces && c.Lang != "ja":
		return c, fmt.Errorf("-otherfaces draws Japanese pages only, not -lang %s", c.Lang)
	case c.OtherFaces && c.Dir != "":
		return c, errors.New("-otherfaces draws generated pages; -dir pages carry their own lettering")
	case c.SFX && c.Dir != "":
		return c, errors.New("-sfx draws generated pages; -dir pages carry their own sound effects")
	case c.Set != "default" && c.Dir != "":
		return c, errors.New("-set chooses generated pages; -dir pages carry their own hard kinds")
	}
	return c, nil
}

// corpus yields the pages to evaluate, one at a time so that large pages do not pile up.
type corpus struct {
	n    int
	page func(i int) (mangapage.Page, string, error)
}

func openCorpus(c config) (corpus, error) {
	if c.Dir != "" {
		paths, err := mangapage.Annotated(c.Dir)
		if err != nil {
			return corpus{}, err
		}
		return corpus{n: len(paths), page: func(i int) (mangapage.Page, string, error) {
			p, err := mangapage.ReadPage(paths[i])
			return p, strings.TrimSuffix(filepath.Base(paths[i]), ".json"), err
		}}, nil
	}
	return corpus{n: c.Pages, page: func(i int) (mangapage.Page, string, error) {
		seed := c.Seed + int64(i)
		lang := c.Lang
		if lang == "mix" {
			lang = []string{"ja", "ja", "ja", "ja", "ko", "zh-Hans"}[i%6]
		}
		p, err := mangapage.Generate(seed, mangapage.Options{Lang: lang, Hard: c.Set == "hard", Harsh: c.Set == "harsh", SFX: c.SFX, OtherFaces: c.OtherFaces, Plate: true})
		return p, fmt.Sprintf("page-%03d", i), err
	}}, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	pages, err := openCorpus(c)
	if err != nil {
		return err
	}
	if c.Dump != "" {
		if err := os.MkdirAll(c.Dump, 0o755); err != nil {
			return err
		}
		for i := range pages.n {
			p, name, err := pages.page(i)
			if err != nil {
				return err
			}
			if err := mangapage.WritePage(c.Dump, name, p); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "wrote %d pages to %s\n", pages.n, c.Dump)
		return nil
	}
	if c.CPUProfile != "" {
		f, err := os.Create(c.CPUProfile)
		if err != nil {
			return fmt.Errorf("creating the CPU profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("starting the CPU profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	if c.Out != "" {
		if err := os.MkdirAll(c.Out, 0o755); err != nil {
			return err
		}
	}
	if c.ReadBack {
		if _, err := exec.LookPath(c.Tesseract); err != nil {
			return fmt.Errorf("reading back needs the Tesseract CLI (or -readback=false): %w", err)
		}
	}

	orc := &oracle{}
	fake := llmfake.New(llmfake.Translations(orc.translate))
	defer fake.Close()
	tr, err := translator.NewOpenAI(translator.OpenAIConfig{BaseURL: fake.URL, Model: "oracle"})
	if err != nil {
		return err
	}
	var eng engine.Engine
	switch c.Engine {
	case "reference":
		eng, err = newReferenceEngine(orc)
	case "null":
		eng = nullEngine{}
	default:
		eng, err = ocr.New(ocr.Config{Translator: tr, AdvancedTranslator: tr, Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	}
	if err != nil {
		return fmt.Errorf("building the %s engine: %w", c.Engine, err)
	}
	ev := &evaluator{engine: eng, oracle: orc, mode: job.Mode(c.Mode), read: readBack{path: c.Tesseract}, readBack: c.ReadBack, out: c.Out, log: stderr, verbose: c.Verbose}

	results := map[string][]pageResult{}
	for i := range pages.n {
		p, name, err := pages.page(i)
		if err != nil {
			return err
		}
		if c.Out != "" {
			if err := mangapage.WritePage(c.Out, name, p); err != nil {
				return err
			}
		}
		for _, src := range c.Srcs {
			res, err := ev.evaluate(ctx, p, name, src)
			if err != nil {
				return err
			}
			results[src] = append(results[src], res)
			fmt.Fprintf(stderr, "%s %-5s %s\n", name, src, res.line())
		}
	}
	what := fmt.Sprintf("%d generated %s pages, seeds %d–%d", pages.n, c.Lang, c.Seed, c.Seed+int64(pages.n)-1)
	if c.Set == "hard" {
		what = fmt.Sprintf("%d generated %s pages with the hard kinds of lettering (-set hard), seeds %d–%d", pages.n, c.Lang, c.Seed, c.Seed+int64(pages.n)-1)
	}
	if c.Set == "harsh" {
		what = fmt.Sprintf("%d generated %s pages drawn as harsh scans (-set harsh), seeds %d–%d", pages.n, c.Lang, c.Seed, c.Seed+int64(pages.n)-1)
	}
	if c.SFX {
		what += ", with more sound effects (-sfx)"
	}
	if c.OtherFaces {
		what += ", lettered in typefaces the engine was never tuned on (-otherfaces)"
	}
	if c.Dir != "" {
		what = fmt.Sprintf("%d annotated pages of %s", pages.n, c.Dir)
	}
	report := markdown(what, c, results)
	fmt.Fprint(stdout, report)
	if c.Out != "" {
		if err := os.WriteFile(filepath.Join(c.Out, "summary.md"), []byte(report), 0o644); err != nil {
			return err
		}
	}
	return nil
}
