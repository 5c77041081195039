package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	xdraw "golang.org/x/image/draw"
)

// fakeGemini is a local server speaking the generateContent wire format as Google documents
// it (https://ai.google.dev/api/generate-content): POST /v1beta/models/{model}:generateContent
// with camelCase JSON, inline bytes in base64. Its request types are its own, not genai's, so a
// change in what the SDK puts on the wire shows up here.
type fakeGemini struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	requests []wireCall
	// reply answers a call; nil means translateReply.
	reply func(w http.ResponseWriter, call wireCall)
}

// wireCall is one request as the fake received it.
type wireCall struct {
	Model  string
	APIKey string
	Body   wireRequest
}

type wireRequest struct {
	Contents []struct {
		Role  string     `json:"role"`
		Parts []wirePart `json:"parts"`
	} `json:"contents"`
	GenerationConfig struct {
		ResponseModalities []string `json:"responseModalities"`
		ImageConfig        struct {
			AspectRatio string `json:"aspectRatio"`
			ImageSize   string `json:"imageSize"`
		} `json:"imageConfig"`
	} `json:"generationConfig"`
}

type wirePart struct {
	Text       string    `json:"text,omitempty"`
	Thought    bool      `json:"thought,omitempty"`
	InlineData *wireBlob `json:"inlineData,omitempty"`
}

type wireBlob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

func newFake(t *testing.T) *fakeGemini {
	t.Helper()
	f := &fakeGemini{t: t}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1beta/models/{call}", func(w http.ResponseWriter, r *http.Request) {
		model, action, ok := strings.Cut(r.PathValue("call"), ":")
		if !ok || action != "generateContent" {
			writeError(w, http.StatusNotFound, "NOT_FOUND", "unknown method "+r.URL.Path, nil)
			return
		}
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "content type "+ct, nil)
			return
		}
		var call wireCall
		call.Model = model
		call.APIKey = r.Header.Get("x-goog-api-key")
		body, _ := io.ReadAll(r.Body)
		dec := json.NewDecoder(bytes.NewReader(body))
		if err := dec.Decode(&call.Body); err != nil {
			writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "bad JSON: "+err.Error(), nil)
			return
		}
		f.mu.Lock()
		f.requests = append(f.requests, call)
		reply := f.reply
		f.mu.Unlock()
		if reply == nil {
			reply = translateReply
		}
		reply(w, call)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGemini) setReply(reply func(w http.ResponseWriter, call wireCall)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reply = reply
}

func (f *fakeGemini) calls() []wireCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]wireCall(nil), f.requests...)
}

// inputImage returns the first inline image of a call.
func (c wireCall) inputImage() (image.Image, string, error) {
	for _, content := range c.Body.Contents {
		for _, p := range content.Parts {
			if p.InlineData == nil {
				continue
			}
			data, err := base64.StdEncoding.DecodeString(p.InlineData.Data)
			if err != nil {
				return nil, "", err
			}
			img, _, err := image.Decode(bytes.NewReader(data))
			return img, p.InlineData.MimeType, err
		}
	}
	return nil, "", fmt.Errorf("no inline image in request")
}

// text is all text parts of a call joined.
func (c wireCall) text() string {
	var b strings.Builder
	for _, content := range c.Body.Contents {
		for _, p := range content.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// modelGrid is the pixel size the image models draw for each ratio at 1K. Several are not
// exactly their ratio (3:4 is 864×1184), which the engine's crop must absorb.
var modelGrid = map[string]image.Point{
	"1:1": {1024, 1024}, "2:3": {832, 1248}, "3:2": {1248, 832}, "3:4": {864, 1184},
	"4:3": {1184, 864}, "4:5": {896, 1152}, "5:4": {1152, 896}, "9:16": {768, 1344},
	"16:9": {1344, 768}, "21:9": {1536, 672},
}

func gridSize(ratio, size string) image.Point {
	p := modelGrid[ratio]
	switch size {
	case "2K":
		return p.Mul(2)
	case "4K":
		return p.Mul(4)
	}
	return p
}

// translateReply is the well-behaved model: it "translates" by inverting every pixel of the
// input at its own grid size, so a test can tell the model's output from its input and see
// where the padding went.
func translateReply(w http.ResponseWriter, call wireCall) {
	out, err := invertedAnswer(call)
	if err != nil {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", err.Error(), nil)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": []any{imagePart("image/png", out)}},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 1290, "candidatesTokenCount": 1290, "totalTokenCount": 2580},
		"modelVersion":  call.Model,
	})
}

func invertedAnswer(call wireCall) ([]byte, error) {
	in, _, err := call.inputImage()
	if err != nil {
		return nil, err
	}
	ic := call.Body.GenerationConfig.ImageConfig
	size, ok := modelGrid[ic.AspectRatio]
	if !ok {
		return nil, fmt.Errorf("unsupported aspect ratio %q", ic.AspectRatio)
	}
	size = gridSize(ic.AspectRatio, ic.ImageSize)
	dst := image.NewRGBA(image.Rectangle{Max: size})
	xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), in, in.Bounds(), xdraw.Src, nil)
	for i := 0; i < len(dst.Pix); i += 4 {
		dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2] = 255-dst.Pix[i], 255-dst.Pix[i+1], 255-dst.Pix[i+2]
	}
	var buf bytes.Buffer
	err = png.Encode(&buf, dst)
	return buf.Bytes(), err
}

func imagePart(mime string, data []byte) map[string]any {
	return map[string]any{"inlineData": map[string]any{"mimeType": mime, "data": base64.StdEncoding.EncodeToString(data)}}
}

func solidPNG(c color.Color) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = 0
	}
	xdraw.Draw(img, img.Bounds(), image.NewUniform(c), image.Point{}, xdraw.Src)
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	return buf.Bytes()
}

func solidJPEG(c color.Color, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.Draw(img, img.Bounds(), image.NewUniform(c), image.Point{}, xdraw.Src)
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, nil)
	return buf.Bytes()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes Google's error envelope.
func writeError(w http.ResponseWriter, code int, status, message string, details []any) {
	e := map[string]any{"code": code, "message": message, "status": status}
	if details != nil {
		e["details"] = details
	}
	writeJSON(w, code, map[string]any{"error": e})
}
