// Package gemini is the production engine: it hands each page to one of Google's Gemini image
// models with an instruction to translate the lettering in place, and returns the page the
// model draws.
//
// The models only draw in a fixed set of aspect ratios and sizes, so the page is padded to the
// nearest supported ratio before it is sent and the padding is cut off the answer; at the
// "original" resolution the answer is scaled back to the source's exact dimensions.
//
// The genai client is configured never to retry on its own (one attempt per call): a 429 must
// reach the workflow with its RetryInfo delay and a 503 as a retryable error, so that retries
// are scheduled, counted and visible in Temporal rather than hidden inside one activity attempt.
package gemini

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/job"
)

// Default models per mode.
const (
	DefaultFastModel     = "gemini-2.5-flash-image"
	DefaultStandardModel = "gemini-3.1-flash-image-preview"
	DefaultAdvancedModel = "gemini-3-pro-image-preview"
)

// DefaultTimeout bounds one GenerateContent call. A 4K page from the pro model can take well
// over a minute, so this is generous; the activity's own timeout is the real bound.
const DefaultTimeout = 5 * time.Minute

const (
	// maxUploadEdge bounds the long edge of the image sent. The models look at far fewer
	// pixels than this, and the inline request body is capped at 20 MB.
	maxUploadEdge = 3072
	// maxPNGUpload is the size past which a PNG page is sent as JPEG instead, which happens
	// only for photographic PNGs, where JPEG's loss does not show.
	maxPNGUpload = 12 << 20
	// progressEvery is how often Request.Progress is called while the model works, so that an
	// activity heartbeat timeout shorter than a model call does not kill a healthy page.
	progressEvery = 10 * time.Second
)

// Config configures the engine. The zero value of every field but APIKey has a default.
type Config struct {
	// APIKey authenticates with the Gemini API. It is sent only in the x-goog-api-key header
	// and never logged or put into errors. Required: the genai SDK's own fallback to
	// environment variables is deliberately not relied on, so configuration has one source.
	APIKey string
	// BaseURL replaces https://generativelanguage.googleapis.com/ (for tests and proxies).
	BaseURL string
	// Models maps a mode ("fast", "standard", "advanced") to a model name. Modes absent from
	// the map get their default model; a mode mapped to "" is disabled, and Supports refuses it.
	Models map[string]string
	// Timeout bounds each API call; zero means DefaultTimeout.
	Timeout time.Duration
	// HTTPClient, when set, carries the requests (for proxies or custom transports).
	HTTPClient *http.Client
}

// String keeps the API key out of logs when a Config is printed.
func (c Config) String() string {
	return fmt.Sprintf("gemini.Config{APIKey:%s BaseURL:%q Models:%v Timeout:%s}", redacted(c.APIKey), c.BaseURL, c.Models, c.Timeout)
}

// GoString is String, so that %#v cannot print the key either.
func (c Config) GoString() string { return c.String() }

// LogValue is String for log/slog.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

func redacted(key string) string {
	if key == "" {
		return `""`
	}
	return "[redacted]"
}

// Engine translates pages with Gemini image models. It is safe for concurrent use.
type Engine struct {
	client        *genai.Client
	models        map[string]string
	progressEvery time.Duration
}

var _ engine.Engine = (*Engine)(nil)

// New builds an engine. It makes no network call.
func New(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.APIKey == "" {
		return nil, errors.New("gemini: an API key is required")
	}
	models := map[string]string{
		string(job.Fast):     DefaultFastModel,
		string(job.Standard): DefaultStandardModel,
		string(job.Advanced): DefaultAdvancedModel,
	}
	for mode, m := range cfg.Models {
		if m = strings.TrimSpace(m); m == "" {
			delete(models, mode)
		} else {
			models[mode] = m
		}
	}
	if len(models) == 0 {
		return nil, errors.New("gemini: every mode is disabled; configure at least one model")
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	hc := cfg.HTTPClient
	if hc == nil {
		// No client-level timeout: HTTPOptions.Timeout sets a per-call deadline instead,
		// which also tells the server (x-server-timeout) how long we will wait.
		hc = &http.Client{}
	}
	oneAttempt := int32(1)
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:     cfg.APIKey,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: hc,
		HTTPOptions: genai.HTTPOptions{
			BaseURL:      cfg.BaseURL,
			Timeout:      &timeout,
			RetryOptions: &genai.HTTPRetryOptions{Attempts: &oneAttempt},
		},
	})
	if err != nil {
		// The SDK prints its whole ClientConfig, key included, into some errors; only a
		// redacted message leaves this function, and the original is not wrapped.
		return nil, fmt.Errorf("gemini: create client: %s", strings.ReplaceAll(err.Error(), cfg.APIKey, "[redacted]"))
	}
	return &Engine{client: client, models: models, progressEvery: progressEvery}, nil
}

// Modes returns the modes that have a model, sorted.
func (e *Engine) Modes() []string {
	modes := make([]string, 0, len(e.models))
	for m := range e.models {
		modes = append(modes, m)
	}
	slices.Sort(modes)
	return modes
}

// Model returns the model that serves mode, if any.
func (e *Engine) Model(mode string) (string, bool) {
	m, ok := e.models[mode]
	return m, ok
}

// Supports accepts any pair of distinct known languages ("auto" as a source) in a mode that
// has a model.
func (e *Engine) Supports(src, dst string, mode job.Mode) error {
	if _, ok := e.models[string(mode)]; !ok {
		return &engine.UnsupportedError{Reason: fmt.Sprintf("translation mode %q is not available", mode), Supported: e.Modes()}
	}
	if _, ok := LanguageName(src); !ok && src != Auto {
		return &engine.UnsupportedError{Reason: fmt.Sprintf("source language %q is not supported", src), Supported: append([]string{Auto}, Languages()...)}
	}
	if _, ok := LanguageName(dst); !ok {
		return &engine.UnsupportedError{Reason: fmt.Sprintf("target language %q is not supported", dst), Supported: Languages()}
	}
	if strings.EqualFold(src, dst) {
		return &engine.UnsupportedError{Reason: fmt.Sprintf("source and target language are both %q", dst)}
	}
	return nil
}

// Translate sends one page to the mode's model and returns the translated page in the
// source's format and dimensions (or, at 1K/2K/4K, the source's shape at the model's size).
func (e *Engine) Translate(ctx context.Context, req engine.Request) (*engine.Response, error) {
	if err := e.Supports(req.SourceLang, req.TargetLang, req.Mode); err != nil {
		// Only the reason: the list of what is supported is for API clients, not a page's error.
		return nil, engine.Permanent(err.(*engine.UnsupportedError).Reason, err)
	}
	model := e.models[string(req.Mode)]
	srcName := Auto
	if req.SourceLang != Auto {
		srcName, _ = LanguageName(req.SourceLang)
	}
	dstName, _ := LanguageName(req.TargetLang)

	progress(req, "decoding page")
	img, info, err := imageio.Decode(req.Image)
	if err != nil {
		return nil, engine.Permanent(msgUnreadable, fmt.Errorf("gemini: decode %s: %w", req.Filename, err))
	}
	format := req.Format
	if format == "" {
		format = info.Format
	}
	size, err := imageSizeFor(req.Resolution, info.Width, info.Height)
	if err != nil {
		return nil, engine.Permanent(fmt.Sprintf("resolution %q is not supported", req.Resolution), err)
	}

	ratio := snapAspect(info.Width, info.Height)
	lay := padLayout(info.Width, info.Height, ratio)
	upload, mime, err := encodeUpload(pad(img, lay), info.Format)
	if err != nil {
		return nil, fmt.Errorf("gemini: encode %s for upload: %w", req.Filename, err)
	}

	imgCfg := &genai.ImageConfig{AspectRatio: ratio.String()}
	if takesImageSize(model) {
		imgCfg.ImageSize = size
	}
	contents := []*genai.Content{{
		Role: genai.RoleUser,
		Parts: []*genai.Part{
			// Image before instruction: Google's guidance for a single image with a prompt.
			{InlineData: &genai.Blob{MIMEType: mime, Data: upload}},
			{Text: buildPrompt(srcName, dstName, req.CustomPrompt, lay.padded())},
		},
	}}
	genCfg := &genai.GenerateContentConfig{
		// Image only: with TEXT allowed too, the models sometimes describe the translation
		// instead of drawing it, which is the commonest way to get no page back.
		ResponseModalities: []string{string(genai.ModalityImage)},
		ImageConfig:        imgCfg,
	}

	progress(req, "sending page to "+model)
	resp, err := e.generate(ctx, req, model, contents, genCfg)
	if err != nil {
		return nil, classify(ctx, model, err)
	}
	blob, err := pickImage(resp)
	if err != nil {
		return nil, err
	}

	progress(req, "encoding page")
	out, _, err := imageio.Decode(blob.Data)
	if err != nil {
		// A garbled answer is the provider's hiccup, not the page's fault: retry.
		return nil, fmt.Errorf("gemini: decode %s answer (%s, %d bytes): %w", model, blob.MIMEType, len(blob.Data), err)
	}
	out = unpad(out, lay)
	// 1K, 2K and 4K mean the same for every engine: the long edge of the page the user pays
	// for. A model whose grid is smaller (the fast model has no imageSize) is scaled up to it.
	w, h := info.Width, info.Height
	if req.Resolution != "" && req.Resolution != job.Original {
		w, h = withLongEdge(info.Width, info.Height, req.Resolution.LongEdge())
	}
	encoded, err := imageio.EncodeBytes(resize(out, w, h), format)
	if err != nil {
		return nil, fmt.Errorf("gemini: encode %s as %s: %w", req.Filename, format, err)
	}
	return &engine.Response{Image: encoded, Format: format}, nil
}

// generate calls the model, reporting progress while it waits.
func (e *Engine) generate(ctx context.Context, req engine.Request, model string, contents []*genai.Content, cfg *genai.GenerateContentConfig) (*genai.GenerateContentResponse, error) {
	if req.Progress != nil {
		done := make(chan struct{})
		var wg sync.WaitGroup
		// Joined before returning, so Progress is never called concurrently with itself.
		defer wg.Wait()
		defer close(done)
		wg.Go(func() {
			t := time.NewTicker(e.progressEvery)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					progress(req, "waiting for "+model)
				}
			}
		})
	}
	return e.client.Models.GenerateContent(ctx, model, contents, cfg)
}

func progress(req engine.Request, stage string) {
	if req.Progress != nil {
		req.Progress("gemini: " + stage)
	}
}

// encodeUpload scales the padded page to at most maxUploadEdge and encodes it: PNG pages stay
// PNG (line art and lettering survive losslessly), everything else goes as JPEG, which keeps
// the request small.
func encodeUpload(img image.Image, srcFormat string) ([]byte, string, error) {
	b := img.Bounds()
	w, h := fitLongEdge(b.Dx(), b.Dy(), maxUploadEdge)
	img = resize(img, w, h)
	if srcFormat == imageio.PNG {
		data, err := imageio.EncodeBytes(img, imageio.PNG)
		if err != nil {
			return nil, "", err
		}
		if len(data) <= maxPNGUpload {
			return data, imageio.ContentType(imageio.PNG), nil
		}
	}
	data, err := imageio.EncodeBytes(img, imageio.JPEG)
	if err != nil {
		return nil, "", err
	}
	return data, imageio.ContentType(imageio.JPEG), nil
}

// takesImageSize reports whether a model accepts ImageConfig.ImageSize. Gemini 2.5 Flash Image
// draws at about 1K only and predates the field; it is left out rather than risk a 400.
func takesImageSize(model string) bool {
	return !strings.HasPrefix(model, "gemini-2.5-flash-image")
}
