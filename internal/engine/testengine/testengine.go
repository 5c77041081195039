// Package testengine is a deterministic engine for tests and benchmarks only: it "translates" a
// page by inverting its colours, with injectable latency and failures. It never reads text: the
// transcript it returns is made up from the request (see Translate), so that tests can follow
// transcripts, glossaries and the previous page's context through the service.
package testengine

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/glossary"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/job"
)

// Engine is the test engine. The zero value translates at once and never fails.
type Engine struct {
	// Latency is slept per page, honouring the context.
	Latency time.Duration
	// FailSubstring makes pages whose filename contains it fail permanently.
	FailSubstring string
	// FlakySubstring makes pages whose filename contains it fail FlakyAttempts times, then succeed.
	FlakySubstring string
	FlakyAttempts  int
	// BlockSubstring makes pages whose filename contains it wait until their context ends, as a
	// page stuck in a slow engine does.
	BlockSubstring string
	// Gate, when set, holds every page until it is closed: tests use it to act while a job is
	// known to be running.
	Gate <-chan struct{}
	// ImageOnly makes the engine answer as an image-to-image model does: no transcript and no
	// cleaned page.
	ImageOnly bool

	mu       sync.Mutex
	attempts map[string]int
	calls    int
	requests []engine.Request
}

// DetectedLang is the source language the engine "detects" when a request says "auto".
const DetectedLang = "ja"

// The confidences of the two blocks of every transcript: one sure reading, one doubtful.
const (
	HighConfidence = 0.97
	LowConfidence  = 0.41
)

// Requests returns the requests the engine was given, in order of arrival, without their images.
func (e *Engine) Requests() []engine.Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.requests)
}

// Calls reports how many Translate calls the engine has seen.
func (e *Engine) Calls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.calls
}

// Translate inverts the page's colours and re-encodes it in its format. Unless ImageOnly is set,
// it also returns the source page, unchanged, as the cleaned page, and a transcript of two
// blocks: a bubble reading "Hello from <filename>" (confidence HighConfidence) and a vertical
// caption reading "Goodbye" (LowConfidence), in the request's source language or DetectedLang,
// each translated as "[<targetLang>] <source>" with the glossary's terms replaced.
func (e *Engine) Translate(ctx context.Context, req engine.Request) (*engine.Response, error) {
	e.mu.Lock()
	e.calls++
	if e.attempts == nil {
		e.attempts = map[string]int{}
	}
	e.attempts[req.Filename]++
	attempt := e.attempts[req.Filename]
	seen := req
	seen.Image, seen.Progress = nil, nil
	e.requests = append(e.requests, seen)
	e.mu.Unlock()

	if e.Latency > 0 {
		t := time.NewTimer(e.Latency)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
	if e.Gate != nil {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-e.Gate:
		}
	}
	if e.BlockSubstring != "" && strings.Contains(req.Filename, e.BlockSubstring) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if e.FailSubstring != "" && strings.Contains(req.Filename, e.FailSubstring) {
		return nil, engine.Permanent("the test engine was told to fail this page", nil)
	}
	if e.FlakySubstring != "" && strings.Contains(req.Filename, e.FlakySubstring) && attempt <= e.FlakyAttempts {
		return nil, fmt.Errorf("test engine: transient failure %d of %d", attempt, e.FlakyAttempts)
	}
	img, info, err := imageio.Decode(req.Image)
	if err != nil {
		return nil, engine.Permanent("the page image could not be read", err)
	}
	if req.Progress != nil {
		req.Progress("render")
	}
	b := img.Bounds()
	out := image.NewRGBA(b)
	draw.Draw(out, b, img, b.Min, draw.Src)
	for i := 0; i+3 < len(out.Pix); i += 4 {
		out.Pix[i], out.Pix[i+1], out.Pix[i+2] = 255-out.Pix[i], 255-out.Pix[i+1], 255-out.Pix[i+2]
	}
	data, err := imageio.EncodeBytes(out, info.Format)
	if err != nil {
		return nil, fmt.Errorf("test engine: encoding: %w", err)
	}
	resp := &engine.Response{Image: data, Format: info.Format}
	if e.ImageOnly {
		return resp, nil
	}
	if resp.Cleaned, err = imageio.EncodeBytes(img, info.Format); err != nil {
		return nil, fmt.Errorf("test engine: encoding the cleaned page: %w", err)
	}
	resp.Transcript = transcript(req, b.Dx(), b.Dy())
	resp.Blocks = len(resp.Transcript.Blocks)
	return resp, nil
}

func transcript(req engine.Request, w, h int) *engine.Transcript {
	lang := req.SourceLang
	if lang == "" || lang == "auto" {
		lang = DetectedLang
	}
	terms, _ := glossary.Parse(req.Glossary) // the API normalised it
	translate := func(s string) string {
		for _, t := range terms {
			s = strings.ReplaceAll(s, t.Source, t.Target)
		}
		return "[" + req.TargetLang + "] " + s
	}
	block := func(x, y, bw, bh int, kind string, vertical bool, source string, conf float64) engine.TranscriptBlock {
		box := engine.Rect{X: x, Y: y, W: bw, H: bh}
		return engine.TranscriptBlock{Box: box, Kind: kind, Vertical: vertical, Lang: lang, Source: source,
			Translation: translate(source), Confidence: conf,
			Shape: []engine.Point{{X: x, Y: y}, {X: x + bw, Y: y}, {X: x + bw, Y: y + bh}, {X: x, Y: y + bh}}}
	}
	return &engine.Transcript{Width: w, Height: h, SourceLang: lang, TargetLang: req.TargetLang, Engine: "test",
		Blocks: []engine.TranscriptBlock{
			block(w/10, h/10, w/2, h/5, "bubble", false, "Hello from "+req.Filename, HighConfidence),
			block(w*3/4, h/2, w/8, h/3, "free", true, "Goodbye", LowConfidence),
		}}
}

// Supports accepts every language except "xx", which tests use as the unsupported one.
func (e *Engine) Supports(src, dst string, mode job.Mode) error {
	if src == "xx" || dst == "xx" {
		return &engine.UnsupportedError{Reason: "the test engine does not support xx", Supported: []string{"any other code"}}
	}
	return nil
}

// Inverted reports whether b's pixel at (x, y) is the inverse of a's: tests use it to recognise a
// page the test engine produced.
func Inverted(a, b color.Color) bool {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	near := func(x, y uint32) bool { d := int(x>>8) + int(y>>8) - 255; return d >= -8 && d <= 8 }
	return near(ar, br) && near(ag, bg) && near(ab, bb)
}

var _ engine.Engine = (*Engine)(nil)

// ErrNotForProduction is what the engines registry says when the test engine is chosen outside tests.
var ErrNotForProduction = errors.New("the test engine inverts colours and translates nothing: for tests and benchmarks only")

// Edit implements engine.Editor as cheaply as the engine translates: the page comes back as its
// cleaned version with every block that has a translation marked lettered, each retranslated
// block reading "[dst] again: <source>".
func (e *Engine) Edit(ctx context.Context, req engine.EditRequest) (*engine.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	_, info, err := imageio.Decode(req.Cleaned)
	if err != nil {
		return nil, engine.Permanent("the cleaned page could not be read", err)
	}
	ts := *req.Transcript
	ts.Blocks = append([]engine.TranscriptBlock(nil), req.Transcript.Blocks...)
	n := 0
	for i, b := range ts.Blocks {
		if slices.Contains(req.Retranslate, b.ID) {
			ts.Blocks[i].Translation = "[" + ts.TargetLang + "] again: " + b.Source
		}
		if b.Status != engine.StatusKeep && b.Status != engine.StatusRemoved && ts.Blocks[i].Translation != "" {
			ts.Blocks[i].Status = "lettered"
			n++
		}
	}
	return &engine.Response{Image: req.Cleaned, Format: info.Format, Blocks: n, Transcript: &ts}, nil
}
