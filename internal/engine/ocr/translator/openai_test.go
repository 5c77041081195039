package translator

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/glossary"
)

// fakeChat speaks the chat-completions wire format: it checks the request as OpenAI documents
// it and answers with the given assistant content.
func fakeChat(t *testing.T, status int, answer func(texts []string) string) (*httptest.Server, *chatRequest) {
	t.Helper()
	var seen chatRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			t.Errorf("got %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
			t.Errorf("Authorization = %q", got)
		}
		if err := json.NewDecoder(r.Body).Decode(&seen); err != nil {
			t.Errorf("decoding request: %v", err)
		}
		w.Header().Set("Content-Type", "application/json")
		if status != http.StatusOK {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(status)
			w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests","param":null,"code":"rate_limit_exceeded"}}`))
			return
		}
		var texts []string
		if len(seen.Messages) == 2 {
			json.Unmarshal([]byte(seen.Messages[1].Content.Text), &texts)
		}
		resp := map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": seen.Model,
			"choices": []map[string]any{{
				"index":         0,
				"message":       map[string]any{"role": "assistant", "content": answer(texts)},
				"finish_reason": "stop",
			}},
			"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
		}
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv, &seen
}

func TestOpenAITranslatesPageInOneRequest(t *testing.T) {
	srv, seen := fakeChat(t, http.StatusOK, func(texts []string) string {
		out := make([]string, len(texts))
		for i, s := range texts {
			out[i] = "ES:" + s
		}
		b, _ := json.Marshal(out)
		return "```json\n" + string(b) + "\n```" // models like fences; the client must cope
	})
	o, err := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, Model: "llama3", APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"Hello", `He said "run"`, "Bye"}
	res, err := o.Translate(context.Background(), Request{Src: "en", Dst: "es", Texts: texts, CustomPrompt: "Use informal tú."})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	got := res.Translations
	if strings.Join(got, "|") != `ES:Hello|ES:He said "run"|ES:Bye` {
		t.Fatalf("got %q", got)
	}
	if seen.Model != "llama3" || len(seen.Messages) != 2 || seen.Messages[0].Role != "system" || seen.Messages[1].Role != "user" {
		t.Fatalf("request shape: %+v", seen)
	}
	if !strings.Contains(seen.Messages[0].Content.Text, "Use informal tú.") || !strings.Contains(seen.Messages[0].Content.Text, "Spanish") {
		t.Errorf("system prompt lacks the custom prompt or target: %q", seen.Messages[0].Content.Text)
	}
	var sent []string
	if err := json.Unmarshal([]byte(seen.Messages[1].Content.Text), &sent); err != nil || len(sent) != 3 {
		t.Errorf("user message is not the JSON array of blocks: %q", seen.Messages[1].Content.Text)
	}
}

func TestOpenAICountMismatch(t *testing.T) {
	srv, _ := fakeChat(t, http.StatusOK, func([]string) string { return `["only one"]` })
	o, _ := NewOpenAI(OpenAIConfig{BaseURL: srv.URL + "/v1", Model: "m", APIKey: "sk-test"})
	_, err := o.Translate(context.Background(), Request{Src: "en", Dst: "es", Texts: []string{"a", "b"}, CustomPrompt: ""})
	if !errors.Is(err, ErrCountMismatch) {
		t.Fatalf("err = %v, want ErrCountMismatch", err)
	}
}

func TestOpenAIRateLimitIsTemporaryAndKeyless(t *testing.T) {
	srv, _ := fakeChat(t, http.StatusTooManyRequests, nil)
	o, _ := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, Model: "m", APIKey: "sk-test"})
	_, err := o.Translate(context.Background(), Request{Src: "en", Dst: "es", Texts: []string{"a"}, CustomPrompt: ""})
	var se *StatusError
	if !errors.As(err, &se) || !se.Temporary() || se.RetryAfter.Seconds() != 7 {
		t.Fatalf("err = %#v, want a temporary StatusError with Retry-After 7s", err)
	}
	if !strings.Contains(err.Error(), "Rate limit reached") || strings.Contains(err.Error(), "sk-test") {
		t.Fatalf("error text %q: want the provider message and never the key", err)
	}
}

// With a model that reads images, every block's crop goes along as an image part (a data URL),
// and the model's own reading comes back beside its translation.
func TestOpenAIVisionSendsCropsAndReadsTranscriptions(t *testing.T) {
	var raw map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&raw)
		content := `[{"source":"お前は何者だ？","translation":"Who are you?"},{"source":"逃げよう！","translation":"Let's run!"}]`
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"index": 0,
			"message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}}})
	}))
	t.Cleanup(srv.Close)
	o, _ := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, Model: "qwen2.5vl", Vision: true})
	png := []byte("\x89PNG\r\n\x1a\nfake")
	res, err := o.Translate(context.Background(), Request{Src: "ja", Dst: "en", Texts: []string{"お前は何者た", "逃げよラ"},
		Images: [][]byte{png, png}})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	if strings.Join(res.Translations, "|") != "Who are you?|Let's run!" || strings.Join(res.Sources, "|") != "お前は何者だ？|逃げよう！" {
		t.Fatalf("result %+v", res)
	}
	msgs := raw["messages"].([]any)
	parts, ok := msgs[len(msgs)-1].(map[string]any)["content"].([]any)
	if !ok || len(parts) != 3 {
		t.Fatalf("last message content %v: want a text part and two image parts", msgs[len(msgs)-1])
	}
	if p := parts[0].(map[string]any); p["type"] != "text" || !strings.Contains(p["text"].(string), "お前は何者た") {
		t.Errorf("first part %v", p)
	}
	for _, p := range parts[1:] {
		url, _ := p.(map[string]any)["image_url"].(map[string]any)["url"].(string)
		if p.(map[string]any)["type"] != "image_url" || !strings.HasPrefix(url, "data:image/png;base64,") {
			t.Errorf("image part %v", p)
		}
	}
}

// The previous page goes first as an earlier turn of the conversation, and the glossary into
// the instructions.
func TestOpenAIContextAndGlossary(t *testing.T) {
	srv, seen := fakeChat(t, http.StatusOK, func(texts []string) string { return `["Senpai, wait!"]` })
	o, _ := NewOpenAI(OpenAIConfig{BaseURL: srv.URL, Model: "m", APIKey: "sk-test"})
	_, err := o.Translate(context.Background(), Request{Src: "ja", Dst: "en", Texts: []string{"先輩、待って！"},
		Glossary: []glossary.Entry{{Source: "先輩", Target: "Senpai"}},
		Previous: &Exchange{Source: []string{"田中先輩！"}, Translation: []string{"Tanaka-senpai!"}}})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	if len(seen.Messages) != 4 || seen.Messages[1].Role != "user" || seen.Messages[2].Role != "assistant" ||
		!strings.Contains(seen.Messages[1].Content.Text, "田中先輩！") || !strings.Contains(seen.Messages[2].Content.Text, "Tanaka-senpai!") {
		t.Fatalf("messages %+v: want the previous page as a user and an assistant turn", seen.Messages)
	}
	if !strings.Contains(seen.Messages[0].Content.Text, "先輩 = Senpai") {
		t.Errorf("system prompt lacks the glossary: %q", seen.Messages[0].Content.Text)
	}
}
