// Package engines builds the engine that serves each mode from the configuration.
package engines

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/vtsproject/vts/internal/config"
	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/gemini"
	"github.com/vtsproject/vts/internal/engine/ocr"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
)

// Set maps each mode to its engine.
type Set struct {
	byMode map[job.Mode]engine.Engine
	names  map[job.Mode]string
}

// Static serves every mode with e; tests and benchmarks use it.
func Static(e engine.Engine) *Set {
	s := &Set{byMode: map[job.Mode]engine.Engine{}, names: map[job.Mode]string{}}
	for _, m := range job.Modes {
		s.byMode[m], s.names[m] = e, "static"
	}
	return s
}

// New builds the engines cfg names, each once, however many modes share it. A mode whose engine
// cannot be built is left without one, so its uploads get a 400 while the other modes work;
// New fails only when no mode has an engine.
func New(ctx context.Context, cfg config.Config, log interface{ Warn(string, ...any) }) (*Set, error) {
	s := &Set{byMode: map[job.Mode]engine.Engine{}, names: map[job.Mode]string{}}
	built := map[string]engine.Engine{}
	var errs []string
	for _, mode := range job.Modes {
		name := cfg.EngineFor(string(mode))
		e, ok := built[name]
		if !ok {
			var err error
			e, err = build(ctx, name, cfg)
			if err != nil {
				log.Warn("engine unavailable", "engine", name, "mode", mode, "err", err)
				errs = append(errs, fmt.Sprintf("%s: %v", name, err))
				built[name] = nil
				continue
			}
			built[name] = e
		}
		if e != nil {
			s.byMode[mode], s.names[mode] = e, name
		}
	}
	if len(s.byMode) == 0 {
		return nil, fmt.Errorf("no translation engine is usable: %v", errs)
	}
	return s, nil
}

func build(ctx context.Context, name string, cfg config.Config) (engine.Engine, error) {
	switch name {
	case "ocr":
		return buildOCR(ctx, cfg)
	case "gemini":
		if cfg.GeminiAPIKey == "" {
			return nil, errors.New("the gemini engine needs GEMINI_API_KEY")
		}
		return gemini.New(ctx, gemini.Config{APIKey: cfg.GeminiAPIKey, BaseURL: cfg.GeminiBaseURL, Models: cfg.GeminiModels})
	case "test":
		return &testengine.Engine{Latency: cfg.TestEngineLatency}, nil
	}
	return nil, fmt.Errorf("unknown engine %q (known: %v)", name, Known())
}

// Known lists the engine names VTS_ENGINE accepts.
func Known() []string {
	k := []string{"gemini", "ocr", "test"}
	sort.Strings(k)
	return k
}

func buildOCR(ctx context.Context, cfg config.Config) (engine.Engine, error) {
	tr, err := buildTranslator(ctx, cfg.Translator, cfg)
	if err != nil {
		return nil, err
	}
	adv := tr
	if cfg.AdvancedTranslator != cfg.Translator {
		if adv, err = buildTranslator(ctx, cfg.AdvancedTranslator, cfg); err != nil {
			return nil, fmt.Errorf("advanced translator: %w", err)
		}
	}
	// With a language model configured, it translates in every mode the pairs the mode's own
	// translator cannot: Japanese, Korean and Chinese above all.
	var fallback translator.Translator
	if cfg.LLMBaseURL != "" {
		if fallback, err = buildTranslator(ctx, "openai", cfg); err != nil {
			return nil, err
		}
	}
	return ocr.New(ocr.Config{
		TesseractPath: cfg.TesseractPath, TessdataDir: cfg.TessdataDir, FontPath: cfg.FontPath,
		CJKFontPath: cfg.CJKFontPath, ComicFontPath: cfg.ComicFontPath, Translator: tr, AdvancedTranslator: adv,
		Fallback: fallback, MaxConcurrency: cfg.OCRConcurrency,
	})
}

func buildTranslator(ctx context.Context, name string, cfg config.Config) (translator.Translator, error) {
	switch name {
	case "apertium", "":
		return translator.NewApertium(ctx, translator.ApertiumConfig{})
	case "openai", "llm":
		if cfg.LLMBaseURL == "" {
			return nil, errors.New("the openai translator needs VTS_LLM_URL (an OpenAI-compatible server such as Ollama)")
		}
		return translator.NewOpenAI(translator.OpenAIConfig{BaseURL: cfg.LLMBaseURL, Model: cfg.LLMModel, APIKey: cfg.LLMAPIKey, Vision: cfg.LLMVision})
	case "deepl":
		return translator.NewDeepL(translator.DeepLConfig{BaseURL: cfg.DeepLBaseURL, APIKey: cfg.DeepLAPIKey})
	}
	return nil, fmt.Errorf("unknown translator %q (known: apertium, openai, deepl)", name)
}

// For returns the engine serving mode.
func (s *Set) For(mode job.Mode) (engine.Engine, error) {
	e, ok := s.byMode[mode]
	if !ok {
		return nil, &engine.UnsupportedError{Reason: fmt.Sprintf("no translation engine is configured for mode %q", mode), Supported: s.Modes()}
	}
	return e, nil
}

// Modes lists the modes that have an engine.
func (s *Set) Modes() []string {
	var out []string
	for _, m := range job.Modes {
		if _, ok := s.byMode[m]; ok {
			out = append(out, string(m))
		}
	}
	return out
}

// Name is the engine name serving mode, for logs and the UI.
func (s *Set) Name(mode job.Mode) string { return s.names[mode] }

// Supports checks, at upload, that mode has an engine and that it translates src to dst.
func (s *Set) Supports(src, dst string, mode job.Mode) error {
	e, err := s.For(mode)
	if err != nil {
		return err
	}
	return e.Supports(src, dst, mode)
}
