package gemini

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/job"
)

const testKey = "AIza-test-SECRET-key-0123456789"

func newEngine(t *testing.T, f *fakeGemini, models map[string]string) *Engine {
	t.Helper()
	e, err := New(context.Background(), Config{APIKey: testKey, BaseURL: f.srv.URL, Models: models})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return e
}

var (
	red     = color.RGBA{255, 0, 0, 255}
	green   = color.RGBA{0, 255, 0, 255}
	blue    = color.RGBA{0, 0, 255, 255}
	yellow  = color.RGBA{255, 255, 0, 255}
	magenta = color.RGBA{255, 0, 255, 255}
)

// testPage is red with a band of a different colour along each edge: left green, right blue
// (full height), top yellow, bottom magenta. Its edges are not uniform, so padding is white,
// and after the fake's inversion every band must come back inverted at the very edge of the
// result: a leftover border would be black there.
func testPage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	band := min(w, h) / 8
	for y := range h {
		for x := range w {
			c := red
			switch {
			case x < band:
				c = green
			case x >= w-band:
				c = blue
			case y < band:
				c = yellow
			case y >= h-band:
				c = magenta
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

func invert(c color.RGBA) color.RGBA { return color.RGBA{255 - c.R, 255 - c.G, 255 - c.B, 255} }

func near(got color.Color, want color.RGBA, tol int) bool {
	r, g, b, _ := got.RGBA()
	d := func(a uint32, b uint8) int { return max(int(a>>8)-int(b), int(b)-int(a>>8)) }
	return d(r, want.R) <= tol && d(g, want.G) <= tol && d(b, want.B) <= tol
}

func request(t *testing.T, img image.Image, format string) engine.Request {
	t.Helper()
	data, err := imageio.EncodeBytes(img, format)
	if err != nil {
		t.Fatal(err)
	}
	return engine.Request{
		Image: data, Format: format, Filename: "page." + format,
		SourceLang: "ja", TargetLang: "de", Mode: "standard", Resolution: "original",
		CustomPrompt: "Call the hero Kenji; keep honorifics.",
	}
}

func TestTranslateRoundTrip(t *testing.T) {
	cases := []struct {
		format       string
		w, h         int
		ratio        string
		padded       bool
		wantMIMEType string
	}{
		{imageio.PNG, 300, 500, "9:16", true, "image/png"},   // heightened
		{imageio.JPEG, 500, 300, "16:9", true, "image/jpeg"}, // widened
		{imageio.WebP, 400, 400, "1:1", false, "image/jpeg"},
		{imageio.PNG, 600, 800, "3:4", false, "image/png"}, // the model's 3:4 grid is not exactly 3:4
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s_%dx%d", tc.format, tc.w, tc.h), func(t *testing.T) {
			f := newFake(t)
			e := newEngine(t, f, nil)
			var stages []string
			var mu sync.Mutex
			req := request(t, testPage(tc.w, tc.h), tc.format)
			req.Progress = func(s string) { mu.Lock(); stages = append(stages, s); mu.Unlock() }

			resp, err := e.Translate(context.Background(), req)
			if err != nil {
				t.Fatalf("Translate: %v", err)
			}

			calls := f.calls()
			if len(calls) != 1 {
				t.Fatalf("%d calls, want 1", len(calls))
			}
			c := calls[0]
			if c.Model != DefaultStandardModel {
				t.Errorf("model %q, want %q", c.Model, DefaultStandardModel)
			}
			if c.APIKey != testKey {
				t.Errorf("x-goog-api-key = %q, want the configured key", c.APIKey)
			}
			gc := c.Body.GenerationConfig
			if gc.ImageConfig.AspectRatio != tc.ratio || gc.ImageConfig.ImageSize != "1K" {
				t.Errorf("imageConfig = %+v, want aspect %s size 1K", gc.ImageConfig, tc.ratio)
			}
			if len(gc.ResponseModalities) != 1 || gc.ResponseModalities[0] != "IMAGE" {
				t.Errorf("responseModalities = %v", gc.ResponseModalities)
			}
			in, mime, err := c.inputImage()
			if err != nil {
				t.Fatalf("request image: %v", err)
			}
			if mime != tc.wantMIMEType {
				t.Errorf("uploaded as %s, want %s", mime, tc.wantMIMEType)
			}
			ib := in.Bounds()
			if tc.padded == (ib.Dx() == tc.w && ib.Dy() == tc.h) {
				t.Errorf("uploaded %dx%d for a %dx%d page, padded=%v", ib.Dx(), ib.Dy(), tc.w, tc.h, tc.padded)
			}
			var rw, rh int
			fmt.Sscanf(tc.ratio, "%d:%d", &rw, &rh)
			if d := ib.Dx()*rh - ib.Dy()*rw; d < -rw*rh || d > rw*rh {
				t.Errorf("uploaded %dx%d is not %s", ib.Dx(), ib.Dy(), tc.ratio)
			}
			if tc.padded {
				// The border is white: the page's edges are too varied to continue.
				if !near(in.At(ib.Min.X, ib.Min.Y), color.RGBA{255, 255, 255, 255}, 8) {
					t.Errorf("padding corner is %v, want white", in.At(0, 0))
				}
			}
			prompt := c.text()
			for _, want := range []string{"Japanese", "German", "Call the hero Kenji; keep honorifics.", userBegin, userEnd} {
				if !strings.Contains(prompt, want) {
					t.Errorf("prompt lacks %q:\n%s", want, prompt)
				}
			}

			if resp.Format != tc.format {
				t.Errorf("response format %q, want %q", resp.Format, tc.format)
			}
			out, info, err := imageio.Decode(resp.Image)
			if err != nil {
				t.Fatalf("decode response: %v", err)
			}
			if info.Format != tc.format || info.Width != tc.w || info.Height != tc.h {
				t.Fatalf("response is %s %dx%d, want %s %dx%d", info.Format, info.Width, info.Height, tc.format, tc.w, tc.h)
			}
			// Every edge shows its band inverted: the model's output, with no border left.
			checks := []struct {
				name string
				x, y int
				want color.RGBA
			}{
				{"left edge", 1, tc.h / 2, invert(green)},
				{"right edge", tc.w - 2, tc.h / 2, invert(blue)},
				{"top edge", tc.w / 2, 1, invert(yellow)},
				{"bottom edge", tc.w / 2, tc.h - 2, invert(magenta)},
				{"centre", tc.w / 2, tc.h / 2, invert(red)},
			}
			for _, ch := range checks {
				if got := out.At(ch.x, ch.y); !near(got, ch.want, 64) {
					t.Errorf("%s at (%d,%d) is %v, want about %v", ch.name, ch.x, ch.y, got, ch.want)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(stages) == 0 {
				t.Error("Progress was never called")
			}
		})
	}
}

func TestTranslateResolution(t *testing.T) {
	cases := []struct {
		name, mode, resolution string
		w, h                   int
		wantSize               string // "" means absent from the request
		wantLong               int    // approximate long edge of the result
	}{
		// 1K/2K/4K are the long edge the user pays for, whatever grid the model answered on.
		{"explicit 2K", "standard", "2K", 300, 500, "2K", 2048},
		{"original picks 2K for a 1800px page", "advanced", "original", 1080, 1800, "2K", 1800},
		{"fast model takes no imageSize but still delivers 2K", "fast", "2K", 300, 500, "", 2048},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			e := newEngine(t, f, nil)
			req := request(t, testPage(tc.w, tc.h), imageio.JPEG)
			req.Mode, req.Resolution = job.Mode(tc.mode), job.Resolution(tc.resolution)
			req.SourceLang = Auto
			resp, err := e.Translate(context.Background(), req)
			if err != nil {
				t.Fatalf("Translate: %v", err)
			}
			c := f.calls()[0]
			if want, _ := e.Model(tc.mode); c.Model != want {
				t.Errorf("model %q, want %q", c.Model, want)
			}
			if p := c.text(); !strings.Contains(p, "Detect the source language") || !strings.Contains(p, "into German") {
				t.Errorf("prompt for auto source:\n%s", p)
			}
			if got := c.Body.GenerationConfig.ImageConfig.ImageSize; got != tc.wantSize {
				t.Errorf("imageSize %q, want %q", got, tc.wantSize)
			}
			_, info, err := imageio.Decode(resp.Image)
			if err != nil {
				t.Fatal(err)
			}
			long := max(info.Width, info.Height)
			if long < tc.wantLong-2 || long > tc.wantLong+2 {
				t.Errorf("result %dx%d, want long edge about %d", info.Width, info.Height, tc.wantLong)
			}
			// The source's shape survives, whatever the model's grid was.
			if r, want := float64(info.Width)/float64(info.Height), float64(tc.w)/float64(tc.h); r < want*0.99 || r > want*1.01 {
				t.Errorf("result ratio %.3f, want %.3f", r, want)
			}
		})
	}
}

func TestTranslateFindsImageInAnyPart(t *testing.T) {
	final := solidJPEG(color.RGBA{10, 200, 30, 255}, 768, 1344)
	draft := solidPNG(color.RGBA{200, 10, 10, 255})
	f := newFake(t)
	f.setReply(func(w http.ResponseWriter, _ wireCall) {
		writeJSON(w, http.StatusOK, map[string]any{"candidates": []any{
			map[string]any{
				"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": "Here is a first candidate without a picture."}}},
				"finishReason": "STOP", "index": 0,
			},
			map[string]any{
				"content": map[string]any{"role": "model", "parts": []any{
					map[string]any{"text": "Thinking about the balloons", "thought": true},
					map[string]any{"thought": true, "inlineData": imagePart("image/png", draft)["inlineData"]},
					map[string]any{"text": "Here is the translated page."},
					imagePart("image/jpeg", final),
				}},
				"finishReason": "STOP", "index": 1,
			},
		}})
	})
	e := newEngine(t, f, nil)
	resp, err := e.Translate(context.Background(), request(t, testPage(300, 500), imageio.PNG))
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	out, info, err := imageio.Decode(resp.Image)
	if err != nil {
		t.Fatal(err)
	}
	if info.Format != imageio.PNG || info.Width != 300 || info.Height != 500 {
		t.Fatalf("got %s %dx%d", info.Format, info.Width, info.Height)
	}
	if got := out.At(150, 250); !near(got, color.RGBA{10, 200, 30, 255}, 16) {
		t.Errorf("centre %v: the final image was not the one used (draft is red)", got)
	}
}

func TestTranslateErrors(t *testing.T) {
	retryInfo := []any{
		map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{"quotaMetric": "generativelanguage.googleapis.com/generate_content_requests"}}},
		map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "12s"},
	}
	apiKeyInvalid := []any{map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com"}}
	cases := []struct {
		name       string
		reply      func(w http.ResponseWriter, _ wireCall)
		retryAfter time.Duration // >0: want a RetryAfterError with it
		permanent  string        // non-empty: want a PermanentError with this message
		inError    string        // the error text must contain this (provider detail for operators)
	}{
		{
			name: "429 with RetryInfo",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeError(w, 429, "RESOURCE_EXHAUSTED", "You exceeded your current quota.", retryInfo)
			},
			retryAfter: 12 * time.Second, inError: "RESOURCE_EXHAUSTED",
		},
		{
			name: "429 without RetryInfo",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeError(w, 429, "RESOURCE_EXHAUSTED", "Resource has been exhausted.", nil)
			},
			inError: "429",
		},
		{
			name: "503",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeError(w, 503, "UNAVAILABLE", "The model is overloaded. Please try again later.", nil)
			},
			inError: "overloaded",
		},
		{
			name: "500 plain text",
			reply: func(w http.ResponseWriter, _ wireCall) {
				http.Error(w, "upstream connect error", http.StatusInternalServerError)
			},
			inError: "upstream connect error",
		},
		{
			name: "400 invalid argument",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeError(w, 400, "INVALID_ARGUMENT", "Unable to process input image.", nil)
			},
			permanent: msgRejected, inError: "Unable to process input image",
		},
		{
			name: "400 invalid API key",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeError(w, 400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", apiKeyInvalid)
			},
			permanent: msgMisconfig, inError: "API key not valid",
		},
		{
			name: "404 unknown model",
			reply: func(w http.ResponseWriter, c wireCall) {
				writeError(w, 404, "NOT_FOUND", "models/"+c.Model+" is not found for API version v1beta", nil)
			},
			permanent: msgMisconfig, inError: "is not found",
		},
		{
			name: "prompt blocked",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeJSON(w, 200, map[string]any{
					"promptFeedback": map[string]any{"blockReason": "PROHIBITED_CONTENT"},
					"usageMetadata":  map[string]any{"promptTokenCount": 1300, "totalTokenCount": 1300},
				})
			},
			permanent: msgSafety, inError: "PROHIBITED_CONTENT",
		},
		{
			name: "SAFETY finish reason",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeJSON(w, 200, map[string]any{"candidates": []any{map[string]any{
					"finishReason":  "SAFETY",
					"index":         0,
					"safetyRatings": []any{map[string]any{"category": "HARM_CATEGORY_SEXUALLY_EXPLICIT", "probability": "HIGH", "blocked": true}},
				}}})
			},
			permanent: msgSafety, inError: "SAFETY",
		},
		{
			name: "IMAGE_SAFETY finish reason with text",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeJSON(w, 200, map[string]any{"candidates": []any{map[string]any{
					"content":       map[string]any{"role": "model", "parts": []any{map[string]any{"text": "I can't help with that image."}}},
					"finishReason":  "IMAGE_SAFETY",
					"finishMessage": "Unable to show the generated image.",
				}}})
			},
			permanent: msgSafety, inError: "I can't help with that image.",
		},
		{
			name: "RECITATION finish reason",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeJSON(w, 200, map[string]any{"candidates": []any{map[string]any{"finishReason": "RECITATION"}}})
			},
			permanent: msgRecitation, inError: "RECITATION",
		},
		{
			name: "text-only answer",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeJSON(w, 200, map[string]any{"candidates": []any{map[string]any{
					"content":      map[string]any{"role": "model", "parts": []any{map[string]any{"text": "Sure! The text says: \"Ich muss meinen Bruder finden.\""}}},
					"finishReason": "STOP",
				}}})
			},
			permanent: msgNoImage, inError: "Ich muss meinen Bruder finden.",
		},
		{
			name: "no candidates",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeJSON(w, 200, map[string]any{"usageMetadata": map[string]any{"promptTokenCount": 10}})
			},
			permanent: msgNoImage,
		},
		{
			name: "non-image inline data",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeJSON(w, 200, map[string]any{"candidates": []any{map[string]any{
					"content":      map[string]any{"role": "model", "parts": []any{imagePart("text/plain", []byte("not a picture"))}},
					"finishReason": "STOP",
				}}})
			},
			permanent: msgNoImage,
		},
		{
			name: "garbled image",
			reply: func(w http.ResponseWriter, _ wireCall) {
				writeJSON(w, 200, map[string]any{"candidates": []any{map[string]any{
					"content": map[string]any{"role": "model", "parts": []any{imagePart("image/png", []byte("\x89PNG\r\n\x1a\ntruncated"))}},
				}}})
			},
			inError: "decode",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.setReply(tc.reply)
			e := newEngine(t, f, nil)
			_, err := e.Translate(context.Background(), request(t, testPage(300, 500), imageio.PNG))
			if err == nil {
				t.Fatal("Translate succeeded")
			}
			if n := len(f.calls()); n != 1 {
				t.Errorf("%d calls reached the server, want exactly 1 (no retries inside the client)", n)
			}
			if strings.Contains(err.Error(), testKey) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), testKey) {
				t.Errorf("error reveals the API key: %v", err)
			}
			if tc.inError != "" && !strings.Contains(err.Error(), tc.inError) {
				t.Errorf("error %q lacks %q", err, tc.inError)
			}
			var ra *engine.RetryAfterError
			if got := errors.As(err, &ra); got != (tc.retryAfter > 0) {
				t.Errorf("RetryAfterError: %v, want %v (err %v)", got, tc.retryAfter > 0, err)
			} else if got && ra.After != tc.retryAfter {
				t.Errorf("After = %s, want %s", ra.After, tc.retryAfter)
			}
			var pe *engine.PermanentError
			if got := errors.As(err, &pe); got != (tc.permanent != "") {
				t.Errorf("permanent: %v, want %v (err %v)", got, tc.permanent != "", err)
			} else if got && pe.Message != tc.permanent {
				t.Errorf("message %q, want %q", pe.Message, tc.permanent)
			}
		})
	}
}

func TestTranslateRejectsBeforeCalling(t *testing.T) {
	f := newFake(t)
	e := newEngine(t, f, map[string]string{"advanced": ""})
	base := request(t, testPage(100, 100), imageio.PNG)
	cases := map[string]func(r *engine.Request){
		"disabled mode":   func(r *engine.Request) { r.Mode = "advanced" },
		"unknown target":  func(r *engine.Request) { r.TargetLang = "xx" },
		"unreadable page": func(r *engine.Request) { r.Image = []byte("GIF89a not ours") },
		"bad resolution":  func(r *engine.Request) { r.Resolution = "8K" },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			req := base
			mutate(&req)
			_, err := e.Translate(context.Background(), req)
			if !engine.IsPermanent(err) {
				t.Fatalf("err = %v, want permanent", err)
			}
		})
	}
	if n := len(f.calls()); n != 0 {
		t.Errorf("%d calls reached the server", n)
	}
}

func TestTranslateHonoursCancellation(t *testing.T) {
	f := newFake(t)
	arrived := make(chan struct{})
	released := make(chan struct{})
	f.setReply(func(w http.ResponseWriter, _ wireCall) {
		close(arrived)
		<-released
	})
	t.Cleanup(func() { close(released) })
	e := newEngine(t, f, nil)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := e.Translate(ctx, request(t, testPage(100, 100), imageio.PNG))
		errc <- err
	}()
	<-arrived
	cancel()
	err := <-errc
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if engine.IsPermanent(err) {
		t.Error("a cancelled call must not be permanent")
	}
}

func TestProgressWhileWaiting(t *testing.T) {
	f := newFake(t)
	ticked := make(chan struct{})
	var once sync.Once
	f.setReply(func(w http.ResponseWriter, call wireCall) {
		<-ticked // answer only once the engine has reported that it is still waiting
		translateReply(w, call)
	})
	e := newEngine(t, f, nil)
	e.progressEvery = time.Millisecond
	req := request(t, testPage(100, 100), imageio.PNG)
	req.Progress = func(stage string) {
		if strings.HasPrefix(stage, "gemini: waiting for "+DefaultStandardModel) {
			once.Do(func() { close(ticked) })
		}
	}
	if _, err := e.Translate(context.Background(), req); err != nil {
		t.Fatal(err)
	}
}

func TestSupports(t *testing.T) {
	f := newFake(t)
	e := newEngine(t, f, map[string]string{"fast": "", "standard": "my-tuned-image-model"})
	if m, _ := e.Model("standard"); m != "my-tuned-image-model" {
		t.Errorf("standard model %q", m)
	}
	if got := strings.Join(e.Modes(), ","); got != "advanced,standard" {
		t.Errorf("modes %s", got)
	}
	ok := [][3]string{
		{"ja", "en", "standard"}, {"auto", "de", "advanced"}, {"zh-Hans", "zh-Hant", "standard"},
		{"ko", "zh-hans", "standard"}, {"en", "pt", "advanced"},
	}
	for _, c := range ok {
		if err := e.Supports(c[0], c[1], job.Mode(c[2])); err != nil {
			t.Errorf("Supports%v = %v", c, err)
		}
	}
	bad := [][3]string{
		{"ja", "en", "fast"}, {"ja", "en", "turbo"}, {"xx", "en", "standard"}, {"ja", "auto", "standard"},
		{"en", "en", "standard"}, {"ja", "", "standard"}, {"", "en", "standard"},
	}
	for _, c := range bad {
		err := e.Supports(c[0], c[1], job.Mode(c[2]))
		var ue *engine.UnsupportedError
		if !errors.As(err, &ue) {
			t.Errorf("Supports%v = %v, want *engine.UnsupportedError", c, err)
		}
	}
}

func TestNew(t *testing.T) {
	if _, err := New(context.Background(), Config{}); err == nil {
		t.Error("New without a key succeeded")
	}
	if _, err := New(context.Background(), Config{APIKey: testKey, Models: map[string]string{"fast": "", "standard": "", "advanced": ""}}); err == nil {
		t.Error("New with every mode disabled succeeded")
	}
	cfg := Config{APIKey: testKey, BaseURL: "http://127.0.0.1:1"}
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprint(&cfg)} {
		if strings.Contains(s, testKey) {
			t.Errorf("printed config reveals the key: %s", s)
		}
	}
}

func TestTransportErrorIsRetryable(t *testing.T) {
	f := newFake(t)
	e := newEngine(t, f, nil)
	f.srv.Close() // nothing listens any more
	_, err := e.Translate(context.Background(), request(t, testPage(100, 100), imageio.PNG))
	if err == nil || engine.IsPermanent(err) || strings.Contains(err.Error(), testKey) {
		t.Fatalf("err = %v, want a retryable error without the key", err)
	}
}
