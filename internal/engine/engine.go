// Package engine defines the seam between the translation workflow and whatever turns a page image
// into a translated page image. Engines know pages, not users, money or HTTP.
package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vtsproject/vts/internal/job"
)

// Request is one page to translate. Image holds the encoded source page; its format was sniffed
// and its dimensions bounded at upload, so engines may decode it without further checks.
type Request struct {
	Image        []byte
	Format       string // "png", "jpeg" or "webp"
	Filename     string
	SourceLang   string // an ISO 639-1 code, "zh-Hans", "zh-Hant", or "auto"
	TargetLang   string
	Mode         job.Mode
	Resolution   job.Resolution
	CustomPrompt string
	// Glossary holds the job's fixed translations, one "source=target" per line; translators that
	// take instructions must use them.
	Glossary string
	// Lettering is "upper" for comic-style capitals; anything else letters in mixed case.
	Lettering job.Lettering
	// Previous is the transcript of the job's previous page when it is already translated, so
	// that names, speakers and tone carry over from page to page. It may be nil.
	Previous *Transcript
	// Progress, when set, is called as the engine makes headway, so that long pages keep the
	// activity's heartbeat alive. It must be cheap.
	Progress func(stage string)
}

// Response is the translated page, encoded in Format (the source's format unless the engine
// cannot produce it).
type Response struct {
	Image  []byte
	Format string
	// Blocks is how many text blocks were found and translated; zero is a valid answer for a
	// page without text.
	Blocks int
	// Transcript lists what was found, read and written, for proofreading; nil when the engine
	// keeps none (an image-to-image model).
	Transcript *Transcript
	// Cleaned is the page with its source lettering removed and nothing lettered in, encoded in
	// Format, for teams that letter by hand; nil when the engine does not produce one.
	Cleaned []byte
}

// Transcript is one translated page's text, block by block in reading order: the proofreading
// copy that travels beside the page in the ZIP.
type Transcript struct {
	// Page is the page's name in the job (its output name).
	Page       string `json:"page"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	SourceLang string `json:"sourceLang"` // as detected when the upload said "auto"
	TargetLang string `json:"targetLang"`
	Engine     string `json:"engine"`
	// Detection says how SourceLang was decided when the upload said "auto": which scripts were
	// read and how they scored, so that a wrong decision can be diagnosed from a user's report.
	Detection *Detection `json:"detection,omitempty"`
	// Lettering is "upper" when the page was lettered in capitals, so that lettering it again
	// after an edit keeps them; empty for mixed case.
	Lettering string            `json:"lettering,omitempty"`
	Blocks    []TranscriptBlock `json:"blocks"`
}

// Detection is the evidence behind an automatic language decision.
type Detection struct {
	// Reason says in words what decided, e.g. "Latin lines read with confidence".
	Reason string `json:"reason"`
	// Candidates are the scripts read, best first.
	Candidates []DetectionCandidate `json:"candidates"`
}

// DetectionCandidate is one script's reading of the page's lettering.
type DetectionCandidate struct {
	// Script is "Latin", "Japanese", "Hangul" or "Han".
	Script string `json:"script"`
	// Langs are the candidate languages read in that script (with the models of each).
	Langs []string `json:"langs"`
	// Score is the page's lettering, in characters, read confidently in that script and fitting
	// it: the same measure for every script.
	Score float64 `json:"score"`
	// Confidence is the mean confidence of the readings that counted, from 0 to 1.
	Confidence float64 `json:"confidence"`
}

// TranscriptBlock is one bubble, caption or run of free text.
type TranscriptBlock struct {
	// ID names the block in its page, stable across re-lettering ("b1", "b2", … in reading
	// order), so that an edited transcript can say which block it changes.
	ID string `json:"id,omitempty"`
	// Status is how far the block went: "found", "read", "translated", "lettered" or "skipped"
	// (then Reason says why).
	Status string `json:"status,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Box is the lettering's bounding box in page pixels.
	Box Rect `json:"box"`
	// Shape is the outline of the area the translation was lettered into (a bubble's interior,
	// as a polygon in page pixels), or the box's corners for text on art.
	Shape []Point `json:"shape"`
	// Kind is "bubble" (text inside an enclosed balloon) or "free" (captions, text on art).
	Kind     string `json:"kind"`
	Vertical bool   `json:"vertical"`
	Lang     string `json:"lang"`
	Source   string `json:"source"`
	// Translation is empty where the block was left untranslated.
	Translation string `json:"translation"`
	// Confidence of the reading, from 0 to 1.
	Confidence float64 `json:"confidence"`
}

// Rect is an axis-aligned box in page pixels.
type Rect struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

// Point is a page pixel position.
type Point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// Engine translates the text inside one page image.
type Engine interface {
	Translate(ctx context.Context, req Request) (*Response, error)
	// Supports answers nil when the engine can translate src to dst in the given mode, and an
	// *UnsupportedError otherwise. It is checked at upload so that an unsupported request is a
	// 400 that costs nothing, never a failed job.
	Supports(src, dst string, mode job.Mode) error
}

// UnsupportedError says a language, pair or mode cannot be served, and what can.
type UnsupportedError struct {
	Reason    string
	Supported []string
}

func (e *UnsupportedError) Error() string {
	if len(e.Supported) == 0 {
		return e.Reason
	}
	return fmt.Sprintf("%s (supported: %v)", e.Reason, e.Supported)
}

// PermanentError is a failure that retrying cannot fix: a safety block, a model that answered
// without an image, an image the engine cannot read. Message is shown to the user as is.
type PermanentError struct {
	Message string
	Err     error
}

func (e *PermanentError) Error() string {
	if e.Err == nil {
		return e.Message
	}
	return e.Message + ": " + e.Err.Error()
}

func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err as a PermanentError with a user-facing message.
func Permanent(message string, err error) error { return &PermanentError{Message: message, Err: err} }

// RetryAfterError asks the caller to wait at least After before trying again (a provider's
// rate limit with RetryInfo, for instance).
type RetryAfterError struct {
	After time.Duration
	Err   error
}

func (e *RetryAfterError) Error() string {
	return fmt.Sprintf("retry after %s: %v", e.After, e.Err)
}

func (e *RetryAfterError) Unwrap() error { return e.Err }

// IsPermanent reports whether err, or anything it wraps, is a PermanentError.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}
