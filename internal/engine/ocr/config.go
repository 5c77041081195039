package ocr

import (
	"log/slog"

	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/job"
)

// Effort is how hard OCR tries, traded against time.
type Effort int

const (
	// EffortFast runs one Tesseract pass, on the inverted page when the page is mostly dark.
	EffortFast Effort = iota
	// EffortStandard reads the page and its negative, so dark-on-light and light-on-dark
	// lettering on the same page are both found.
	EffortStandard
	// EffortBest is EffortStandard on a page upscaled 2x, for small print.
	EffortBest
)

// Mode is what one of the service's modes ("fast", "standard", "advanced") does.
type Mode struct {
	// Translator for this mode; nil takes Config.Translator.
	Translator translator.Translator
	Effort     Effort
}

// Config configures the engine. The zero value works on a Debian machine with tesseract-ocr,
// apertium with a pair, and fonts-noto-core installed.
type Config struct {
	// TesseractPath is the tesseract binary; "tesseract" (from PATH) when empty.
	TesseractPath string
	// TessdataDir overrides where Tesseract finds its *.traineddata.
	TessdataDir string
	// FontPath is the font for non-CJK lettering; NotoSans-Bold from fonts-noto-core when
	// empty, else DejaVu Sans Bold.
	FontPath string
	// CJKFontPath is a font or collection (.ttc) for Chinese, Japanese and Korean targets;
	// NotoSansCJK-Bold.ttc from fonts-noto-cjk when empty. Without one, CJK targets are
	// unsupported.
	CJKFontPath string
	// ComicFontPath is the lettering font for bubbles; ComicNeue-Bold from fonts-comic-neue when
	// empty, else FontPath.
	ComicFontPath string
	// FallbackFontPath is used when FontPath lacks a glyph of a translation.
	FallbackFontPath string
	// Translator is the default translator; nil builds Apertium from the system packages.
	Translator translator.Translator
	// AdvancedTranslator serves the "advanced" mode, typically a language model; nil takes
	// Translator.
	AdvancedTranslator translator.Translator
	// Fallback translates the pairs a mode's own translator cannot, in every mode: typically the
	// language model that serves Japanese, Korean and Chinese while Apertium serves the rest.
	Fallback translator.Translator
	// Modes overrides the built-in modes: fast (Translator, EffortFast), standard (Translator,
	// EffortStandard), advanced (AdvancedTranslator, EffortBest).
	Modes map[job.Mode]Mode
	// MaxConcurrency bounds concurrent tesseract processes in this engine; the number of CPUs
	// when zero.
	MaxConcurrency int
	Logger         *slog.Logger
}
