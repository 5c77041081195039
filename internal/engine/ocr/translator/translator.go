// Package translator turns the text blocks of one page into another language. A page's blocks are
// translated in one call so that whatever context a backend can use (a dialogue running across
// bubbles, a paragraph split by a picture) is not lost between them.
package translator

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/vtsproject/vts/internal/glossary"
)

// Translator translates the text blocks of one page. Languages are ISO 639-1 codes, plus
// "zh-Hans" and "zh-Hant"; never "auto" (the caller detects the language first).
type Translator interface {
	// Name identifies the backend in logs, such as "apertium" or "deepl".
	Name() string
	// Translate returns exactly one translation per text, in order.
	Translate(ctx context.Context, req Request) (*Result, error)
	// Supports reports whether src can be translated to dst.
	Supports(src, dst string) bool
	// Pairs lists the pairs Supports accepts, or nil when the backend takes any pair of known
	// languages (a language model).
	Pairs() []Pair
}

// Request is one page's blocks and what helps translate them.
type Request struct {
	Src, Dst string
	// Texts are the page's blocks in reading order.
	Texts []string
	// CustomPrompt holds the user's instructions; backends that cannot follow instructions
	// ignore it.
	CustomPrompt string
	// Glossary is the job's fixed translations; backends that take instructions must follow it.
	Glossary []glossary.Entry
	// Previous is the page before this one, so that names, speakers and tone carry over.
	Previous *Exchange
	// Images holds, when the backend reads images, one PNG crop per text: the model transcribes
	// it itself where the OCR reading is poor. Nil for text-only translation.
	Images [][]byte
}

// Exchange is an earlier page's blocks and their translations.
type Exchange struct {
	Source      []string
	Translation []string
}

// Result holds one translation per text, and, from a backend that read the images, its own
// transcription of each (empty where it kept the given text).
type Result struct {
	Translations []string
	Sources      []string
}

// ImageReader is a Translator that can read text from images (a multimodal model).
type ImageReader interface {
	ReadsImages() bool
}

// Pair is a translation direction.
type Pair struct{ Src, Dst string }

func (p Pair) String() string { return p.Src + "→" + p.Dst }

// ErrCountMismatch means a backend answered with a different number of texts than it was given,
// so translations cannot be matched to their blocks.
var ErrCountMismatch = errors.New("translator answered a different number of texts than it was sent")

// StatusError is an HTTP failure of a remote translator. It carries no request content and no
// credentials, so it is safe to log.
type StatusError struct {
	Provider   string
	StatusCode int
	// RetryAfter is the provider's Retry-After, zero when it gave none.
	RetryAfter time.Duration
	// Message is the provider's own error text, trimmed.
	Message string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s answered HTTP %d", e.Provider, e.StatusCode)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// Temporary reports whether trying again later may succeed: rate limits, timeouts and server
// errors. Other client errors (bad key, unsupported language, quota used up) will not heal.
func (e *StatusError) Temporary() bool {
	return e.StatusCode == 408 || e.StatusCode == 429 || e.StatusCode >= 500
}

// parseRetryAfter reads a Retry-After header given in seconds; the HTTP-date form is rare from
// these providers and is treated as absent.
func parseRetryAfter(v string) time.Duration {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// checkCount guards against a backend that merged or split texts.
func checkCount(name string, want, got int) error {
	if want != got {
		return fmt.Errorf("%s: %w (sent %d, got %d)", name, ErrCountMismatch, want, got)
	}
	return nil
}
