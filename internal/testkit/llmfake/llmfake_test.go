package llmfake

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine/ocr/translator"
)

// The service's real OpenAI client talks to the fake, which sees the blocks and answers them.
func TestRealClientRoundTrip(t *testing.T) {
	srv := New(Translations(func(_ Request, src []string) []string {
		out := make([]string, len(src))
		for i, s := range src {
			out[i] = strings.ToUpper(s) + "!"
		}
		return out
	}))
	defer srv.Close()
	c, err := translator.NewOpenAI(translator.OpenAIConfig{BaseURL: srv.URL, Model: "oracle"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Translate(context.Background(), translator.Request{Src: "ja", Dst: "en", Texts: []string{"abc", "", "日本"}})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Translations
	if want := []string{"ABC!", "!", "日本!"}; !slices.Equal(got, want) {
		t.Errorf("translations = %q, want %q", got, want)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].Model != "oracle" || reqs[0].Messages[0].Role != "system" {
		t.Fatalf("requests = %+v", reqs)
	}
}

func TestParseContentParts(t *testing.T) {
	body := `{"model":"m","messages":[
		{"role":"system","content":"be good"},
		{"role":"user","content":"[\"old\"]"},
		{"role":"assistant","content":"[\"vieux\"]"},
		{"role":"user","content":[
			{"type":"text","text":"Translate these blocks:\n[\"一\", {\"id\":2,\"text\":\"二\"}]"},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]}`
	req, err := Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	src, err := req.Sources()
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"一", "二"}; !slices.Equal(src, want) {
		t.Errorf("sources = %q, want %q", src, want)
	}
	if imgs := req.LastUser().Images; len(imgs) != 1 || !strings.HasPrefix(imgs[0], "data:image/png") {
		t.Errorf("images = %q", imgs)
	}
	if _, err := Parse([]byte(`{"model":"m","messages":[]}`)); err == nil {
		t.Error("a request without messages parsed")
	}
	if _, err := (Request{Messages: []Message{{Role: "user", Text: "no array"}}}).Sources(); err == nil {
		t.Error("Sources found an array in plain text")
	}
}

// An answer error reaches the client as a server error.
func TestAnswerError(t *testing.T) {
	srv := New(func(context.Context, Request) (string, error) { return "", errors.New("boom") })
	defer srv.Close()
	c, _ := translator.NewOpenAI(translator.OpenAIConfig{BaseURL: srv.URL, Model: "m"})
	if _, err := c.Translate(context.Background(), translator.Request{Src: "ja", Dst: "en", Texts: []string{"a"}}); err == nil {
		t.Fatal("translation succeeded against a failing server")
	}
}
