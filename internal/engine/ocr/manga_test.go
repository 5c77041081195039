package ocr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/detect"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// oracle is a local server speaking OpenAI's chat-completions wire format. It answers each
// source string with the known translation of the most similar known text, as a perfect
// translator would, and records the requests it saw.
type oracle struct {
	known map[string]string
	mu    sync.Mutex
	seen  []map[string]any
}

func newOracle(t testing.TB, known map[string]string) (*oracle, *translator.OpenAI) {
	t.Helper()
	o := &oracle{known: known}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		var raw map[string]any
		body := new(bytes.Buffer)
		body.ReadFrom(r.Body)
		if err := json.Unmarshal(body.Bytes(), &req); err != nil || json.Unmarshal(body.Bytes(), &raw) != nil {
			http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		o.mu.Lock()
		o.seen = append(o.seen, raw)
		o.mu.Unlock()
		last := req.Messages[len(req.Messages)-1].Content
		var text string
		if json.Unmarshal(last, &text) != nil {
			var parts []struct{ Type, Text string }
			json.Unmarshal(last, &parts)
			for _, p := range parts {
				if p.Type == "text" {
					text = p.Text
				}
			}
		}
		var texts []string
		json.Unmarshal([]byte(text), &texts)
		out := make([]string, len(texts))
		for i, s := range texts {
			best := 0.0
			for src, dst := range o.known {
				if sim := similarity(s, src); sim > best {
					best, out[i] = sim, dst
				}
			}
		}
		answer, _ := json.Marshal(out)
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": "oracle",
			"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": string(answer)}, "finish_reason": "stop"}},
		})
	}))
	t.Cleanup(srv.Close)
	tr, err := translator.NewOpenAI(translator.OpenAIConfig{BaseURL: srv.URL, Model: "oracle"})
	if err != nil {
		t.Fatal(err)
	}
	return o, tr
}

// similarity is 1 minus the character error rate of got against want (the benchmark's).
func similarity(got, want string) float64 { return 1 - mangapage.CER(want, got) }

var sampleTranslations = map[string]string{
	"お前は何者だ？":    "Who are you?",
	"私の名前は田中です。": "My name is Tanaka.",
	"ここから逃げよう！":  "Let's run away from here!",
}

func TestMangaPageIsFoundReadTranslatedAndLettered(t *testing.T) {
	img, boxes := sampleMangaPage(t)
	o, llm := newOracle(t, sampleTranslations)
	e, err := New(Config{Fallback: llm})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.Translate(context.Background(), engine.Request{Image: encode(t, img, "png"), Format: "png", Filename: "p1.png",
		SourceLang: "auto", TargetLang: "en", Mode: "standard", Glossary: "田中=Tanaka-san"})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	dumpImage(t, "out.png", resp.Image)
	ts := resp.Transcript
	if ts == nil || ts.SourceLang != "ja" || len(ts.Blocks) != 3 {
		t.Fatalf("transcript %+v: want 3 Japanese blocks", ts)
	}
	// Reading order is right to left, then top to bottom: the right bubble, the left one, the
	// lower one.
	wantOrder := []string{"お前は何者だ？", "私の名前は田中です。", "ここから逃げよう！"}
	for i, b := range ts.Blocks {
		if sim := similarity(b.Source, wantOrder[i]); sim < 0.7 {
			t.Errorf("block %d read %q, want %q (similarity %.2f)", i, b.Source, wantOrder[i], sim)
		}
		if !b.Vertical || b.Kind != "bubble" || b.Confidence < detect.MinReadConf || b.Translation != sampleTranslations[wantOrder[i]] {
			t.Errorf("block %d: %+v", i, b)
		}
		if b.ID != fmt.Sprintf("b%d", i+1) || b.Status != "lettered" || b.Reason != "" {
			t.Errorf("block %d is %s, %s %q; want b%d, lettered", i, b.ID, b.Status, b.Reason, i+1)
		}
	}
	// One request carried every block in reading order, with the glossary.
	if len(o.seen) != 1 {
		t.Fatalf("%d translator requests, want 1", len(o.seen))
	}
	sys := o.seen[0]["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.Contains(sys, "田中 = Tanaka-san") || !strings.Contains(sys, "Japanese") {
		t.Errorf("system prompt lacks the glossary or the language: %q", sys)
	}
	// A speck of art read as kana and sent anyway is the model's to refuse, with "", which
	// leaves it as drawn.
	if !strings.Contains(sys, `OCR noise from the artwork`) || !strings.Contains(sys, `gets ""`) {
		t.Errorf("system prompt does not ask for \"\" for OCR noise: %q", sys)
	}
	out, _, err := imageio.Decode(resp.Image)
	if err != nil {
		t.Fatal(err)
	}
	cleaned, _, err := imageio.Decode(resp.Cleaned)
	if err != nil {
		t.Fatal(err)
	}
	for i, box := range boxes {
		// The Japanese is gone from the cleaned page: no ink left where it was.
		if n := darkPixels(cleaned, box); n > 0 {
			t.Errorf("bubble %d: %d dark pixels of the source lettering remain", i, n)
		}
	}
	// The English is lettered where it can be read back.
	words := 0
	for _, b := range ts.Blocks {
		bb := image.Rect(b.Box.X, b.Box.Y, b.Box.X+b.Box.W, b.Box.Y+b.Box.H).Inset(-120).Intersect(out.Bounds())
		got := readBack(t, e, out.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(bb))
		for _, w := range strings.Fields(strings.ToLower(b.Translation)) {
			w = strings.Trim(w, "!?.,'")
			if len(w) > 1 && strings.Contains(got, w) {
				words++
			}
		}
	}
	if words < 6 {
		t.Errorf("only %d translated words read back from the page", words)
	}
	// The lettering never spills out of its bubble: every pixel lettering changed is inside one.
	spilled := 0
	b := out.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if out.At(x, y) != cleaned.At(x, y) && !inBubble(image.Pt(x, y)) {
				spilled++
			}
		}
	}
	if spilled > 0 {
		t.Errorf("%d lettered pixels outside the bubbles", spilled)
	}
}

// A page exported with a transparent background, its drawing and lettering alone opaque, is
// translated as a reader sees it on a white page: every bubble read and lettered, and the page
// given back opaque on white paper. Read as stored, its paper was black and nothing was found.
func TestTransparentPageIsReadOnWhite(t *testing.T) {
	img, _ := sampleMangaPage(t)
	layer := image.NewNRGBA(img.Bounds())
	for i := 0; i < len(img.Pix); i += 4 {
		layer.Pix[i+3] = 255 - img.Pix[i] // the page's ink as black of that opacity
	}
	_, llm := newOracle(t, sampleTranslations)
	e, err := New(Config{Fallback: llm})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.Translate(context.Background(), engine.Request{Image: encode(t, layer, "png"), Format: "png", Filename: "p1.png",
		SourceLang: "ja", TargetLang: "en", Mode: "standard"})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	ts := resp.Transcript
	if ts == nil || len(ts.Blocks) != 3 {
		t.Fatalf("transcript %+v: want the 3 bubbles", ts)
	}
	for i, want := range []string{"お前は何者だ？", "私の名前は田中です。", "ここから逃げよう！"} {
		if b := ts.Blocks[i]; b.Status != "lettered" || similarity(b.Source, want) < 0.7 {
			t.Errorf("block %d: %s %q, want %q lettered", i, b.Status, b.Source, want)
		}
	}
	out, _, err := imageio.Decode(resp.Image)
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, a := out.At(5, 5).RGBA(); r>>8 < 250 || g>>8 < 250 || b>>8 < 250 || a != 0xffff {
		t.Errorf("the page's paper came back as %d %d %d alpha %d, want opaque white", r>>8, g>>8, b>>8, a>>8)
	}
}

// Into Chinese, Japanese or Korean, vertical bubbles are lettered vertically again.
func TestMangaIntoCJKIsLetteredVertically(t *testing.T) {
	img, boxes := sampleMangaPage(t)
	_, llm := newOracle(t, map[string]string{"お前は何者だ？": "你是什么人？", "私の名前は田中です。": "我叫田中。", "ここから逃げよう！": "我们从这里逃走吧！"})
	e, err := New(Config{Fallback: llm})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.Translate(context.Background(), engine.Request{Image: encode(t, img, "png"), Format: "png", SourceLang: "ja", TargetLang: "zh-Hans", Mode: "standard"})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	dumpImage(t, "out.png", resp.Image)
	out, _, _ := imageio.Decode(resp.Image)
	for i, box := range boxes {
		var ink image.Rectangle
		area := box.Inset(-60).Intersect(out.Bounds())
		for y := area.Min.Y; y < area.Max.Y; y++ {
			for x := area.Min.X; x < area.Max.X; x++ {
				if c := color.GrayModel.Convert(out.At(x, y)).(color.Gray); c.Y < 100 && inBubble(image.Pt(x, y)) {
					ink = ink.Union(image.Rect(x, y, x+1, y+1))
				}
			}
		}
		if ink.Empty() || ink.Dy() <= ink.Dx() {
			t.Errorf("bubble %d: lettering spans %v, want a column taller than wide", i, ink)
		}
	}
}

func darkPixels(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if c := color.GrayModel.Convert(img.At(x, y)).(color.Gray); c.Y < 128 {
				n++
			}
		}
	}
	return n
}

// Without a translator for Japanese, an explicit ja is refused up front, naming the pair and
// the fix; under auto the page fails (and is refunded by the workflow) instead of coming back
// with lettering made of misread text.
func TestJapaneseWithoutTranslatorIsRefusedNotMisread(t *testing.T) {
	e := testEngine(t) // Apertium only
	err := e.Supports("ja", "en", "standard")
	var un *engine.UnsupportedError
	if !errors.As(err, &un) || !strings.Contains(err.Error(), "ja→en needs a language-model translator: set VTS_LLM_URL and VTS_LLM_MODEL") {
		t.Fatalf("Supports(ja, en) = %v", err)
	}
	if err := e.Supports("auto", "en", "standard"); err != nil {
		t.Fatalf("auto must stay accepted while some language can be translated: %v", err)
	}
	img, _ := sampleMangaPage(t)
	_, err = e.Translate(context.Background(), engine.Request{Image: encode(t, img, "png"), Format: "png", SourceLang: "auto", TargetLang: "en", Mode: "standard"})
	if !engine.IsPermanent(err) || !strings.Contains(err.Error(), "ja→en needs a language-model translator") {
		t.Fatalf("auto on a Japanese page without translator: err = %v, want a permanent failure naming ja→en", err)
	}
}

func TestTextFreeArtComesBackUnchanged(t *testing.T) {
	_, llm := newOracle(t, sampleTranslations)
	e, err := New(Config{Fallback: llm})
	if err != nil {
		t.Fatal(err)
	}
	img, _ := mangaPage(t, 900, 1200, nil) // tone, hatching, no lettering
	fillEllipse(img, image.Pt(450, 600), 150, 110, color.RGBA{255, 255, 255, 255}, color.RGBA{0, 0, 0, 255})
	src := encode(t, img, "png")
	resp, err := e.Translate(context.Background(), engine.Request{Image: src, Format: "png", SourceLang: "auto", TargetLang: "en", Mode: "standard"})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	if !bytes.Equal(resp.Image, src) || resp.Blocks != 0 {
		t.Fatalf("a page without text came back changed (%d blocks)", resp.Blocks)
	}
}
