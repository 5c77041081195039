// Package ocr is the offline translation engine: Tesseract finds the words, they are grouped
// into blocks of lettering, a pluggable translator translates each page's blocks in one call,
// the original glyphs are painted over from their surroundings and the translation is lettered
// into each block.
package ocr

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/letter"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/engine/read"
	"github.com/vtsproject/vts/internal/job"
)

// Engine implements engine.Engine offline. It is safe for concurrent use.
type Engine struct {
	tess  *read.Tesseract
	fonts *letter.Fonts
	modes map[job.Mode]Mode
	log   *slog.Logger
	// langs maps installed service language codes to Tesseract data names.
	langs  map[string]string
	hasOSD bool
	// installed is Tesseract's language data, vertical models included ("jpn_vert").
	installed []string
	fallback  translator.Translator
}

var _ engine.Engine = (*Engine)(nil)

// New checks that Tesseract, its language data, the fonts and the translators are present, and
// says which package to install when one is not.
func New(cfg Config) (*Engine, error) {
	ctx := context.Background()
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	bin := cfg.TesseractPath
	if bin == "" {
		bin = "tesseract"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("tesseract not found (%s): apt-get install tesseract-ocr: %w", bin, err)
	}
	conc := cfg.MaxConcurrency
	if conc <= 0 {
		conc = runtime.NumCPU()
	}
	e := &Engine{
		tess:  read.NewTesseract(path, cfg.TessdataDir, conc),
		log:   log,
		langs: map[string]string{},
	}
	installed, err := e.tess.ListLangs(ctx)
	if err != nil {
		return nil, err
	}
	for code, tl := range tessLang {
		if slices.Contains(installed, tl) {
			e.langs[code] = tl
		}
	}
	e.hasOSD = slices.Contains(installed, "osd")
	e.installed = installed
	e.fallback = cfg.Fallback
	if len(e.langs) == 0 {
		return nil, fmt.Errorf("tesseract at %s has no language data the service can use (found %v): apt-get install tesseract-ocr-eng", path, installed)
	}
	if e.fonts, err = letter.LoadFonts(letter.FontPaths{Primary: cfg.FontPath, Fallback: cfg.FallbackFontPath, Comic: cfg.ComicFontPath, CJK: cfg.CJKFontPath}); err != nil {
		return nil, err
	}

	def := cfg.Translator
	if def == nil {
		if def, err = translator.NewApertium(ctx, translator.ApertiumConfig{}); err != nil {
			return nil, err
		}
	}
	adv := cfg.AdvancedTranslator
	if adv == nil {
		adv = def
	}
	e.modes = map[job.Mode]Mode{
		job.Fast:     {Translator: def, Effort: EffortFast},
		job.Standard: {Translator: def, Effort: EffortStandard},
		job.Advanced: {Translator: adv, Effort: EffortBest},
	}
	for name, m := range cfg.Modes {
		if m.Translator == nil {
			m.Translator = def
		}
		e.modes[name] = m
	}
	return e, nil
}

// Supports implements engine.Engine.
func (e *Engine) Supports(src, dst string, mode job.Mode) error {
	_, err := e.plan(src, dst, mode)
	return err
}

// plan resolves a request to its mode and the candidate source languages, best first.
func (e *Engine) plan(src, dst string, mode job.Mode) (planned, error) {
	if mode == "" {
		mode = job.DefaultMode
	}
	m, ok := e.modes[mode]
	if !ok {
		return planned{}, &engine.UnsupportedError{Reason: fmt.Sprintf("mode %q is not offered", mode), Supported: sortedKeys(e.modes)}
	}
	if !e.fonts.CanWrite(dst) {
		return planned{}, &engine.UnsupportedError{
			Reason:    fmt.Sprintf("no font can letter %q (install fonts-noto-cjk)", dst),
			Supported: e.targets(m.Translator),
		}
	}
	if src == "auto" {
		var cands, cjk []string
		for code := range e.langs {
			switch {
			case code == dst:
			case isCJK(code):
				// Read and detected whatever the translators can do: a page in a language
				// that cannot be translated fails honestly instead of being misread.
				cjk = append(cjk, code)
			case e.translatorFor(m, code, dst) != nil:
				cands = append(cands, code)
			}
		}
		translatable := len(cands) > 0
		for _, c := range cjk {
			translatable = translatable || e.translatorFor(m, c, dst) != nil
		}
		if !translatable {
			return planned{}, &engine.UnsupportedError{
				Reason:    fmt.Sprintf("no installed language can be translated to %q in mode %s", dst, mode),
				Supported: e.pairs(m.Translator),
			}
		}
		// English first: on a tie in detection, the most common source wins.
		slices.SortFunc(cands, func(a, b string) int {
			if a == "en" || b == "en" {
				return boolCmp(b == "en", a == "en")
			}
			return strings.Compare(a, b)
		})
		sort.Strings(cjk)
		return planned{mode: m, auto: true, candidates: cands, cjk: cjk, dst: dst}, nil
	}
	if _, ok := e.langs[src]; !ok {
		return planned{}, &engine.UnsupportedError{
			Reason:    fmt.Sprintf("cannot read %q text: tesseract-ocr-%s is not installed", src, strings.ReplaceAll(tessLang[src], "_", "-")),
			Supported: sortedKeys(e.langs),
		}
	}
	if e.translatorFor(m, src, dst) == nil {
		return planned{}, &engine.UnsupportedError{Reason: needsTranslator(src, dst, m.Translator), Supported: e.pairs(m.Translator)}
	}
	if isCJK(src) {
		return planned{mode: m, cjk: []string{src}, dst: dst}, nil
	}
	return planned{mode: m, candidates: []string{src}, dst: dst}, nil
}

// translatorFor is the translator that serves src→dst in mode m: the mode's own, else the
// deployment's fallback (the language model), else nil.
func (e *Engine) translatorFor(m Mode, src, dst string) translator.Translator {
	if m.Translator.Supports(src, dst) {
		return m.Translator
	}
	if e.fallback != nil && e.fallback.Supports(src, dst) {
		return e.fallback
	}
	return nil
}

// needsTranslator says which pair cannot be translated and how a deployment enables it.
func needsTranslator(src, dst string, t translator.Translator) string {
	if isCJK(src) || isCJK(dst) {
		return fmt.Sprintf("%s→%s needs a language-model translator: set VTS_LLM_URL and VTS_LLM_MODEL", src, dst)
	}
	return fmt.Sprintf("%s cannot translate %s→%s: install the Apertium pair, or set VTS_LLM_URL and VTS_LLM_MODEL for a language-model translator", t.Name(), src, dst)
}

type planned struct {
	mode Mode
	// auto is true when the upload left the source language to detection.
	auto bool
	// candidates are the Latin-script (and other non-CJK) sources to read, best first.
	candidates []string
	// cjk are the Chinese, Japanese and Korean sources to detect and read as manga lettering.
	cjk []string
	dst string
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// pairs lists what a translator can do from languages Tesseract can read.
func (e *Engine) pairs(t translator.Translator) []string {
	var out []string
	if ps := t.Pairs(); ps != nil {
		for _, p := range ps {
			if _, ok := e.langs[p.Src]; ok && e.fonts.CanWrite(p.Dst) {
				out = append(out, p.String())
			}
		}
	} else {
		for src := range e.langs {
			out = append(out, src+"→*")
		}
	}
	sort.Strings(out)
	return out
}

func (e *Engine) targets(t translator.Translator) []string {
	seen := map[string]bool{}
	if ps := t.Pairs(); ps != nil {
		for _, p := range ps {
			if e.fonts.CanWrite(p.Dst) {
				seen[p.Dst] = true
			}
		}
	} else {
		for _, c := range translator.KnownLanguages() {
			if e.fonts.CanWrite(c) {
				seen[c] = true
			}
		}
	}
	return sortedKeys(seen)
}

func sortedKeys[K ~string, V any](m map[K]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, string(k))
	}
	sort.Strings(out)
	return out
}

// translationError sorts a translator failure into what the workflow can act on: wait, give up,
// or retry.
func translationError(name string, err error) error {
	var se *translator.StatusError
	if errors.As(err, &se) {
		if se.RetryAfter > 0 {
			return &engine.RetryAfterError{After: se.RetryAfter, Err: err}
		}
		if !se.Temporary() {
			return engine.Permanent("the translation service refused the page", err)
		}
	}
	return fmt.Errorf("translating with %s: %w", name, err)
}
