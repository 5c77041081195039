// Package llmfake is an OpenAI-compatible chat-completions server for tests and benchmarks.
// It parses the real wire format (POST /v1/chat/completions), records every request, and
// answers with whatever a pluggable function says, so that a test can run the service's real
// OpenAI client against an oracle, a scripted reply or a failure.
package llmfake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Message is one chat message with its content flattened: Text joins the message's text parts
// (or is its string content) and Images lists its image URLs (data: URLs included).
type Message struct {
	Role   string
	Text   string
	Images []string
}

// Request is one parsed chat-completions request.
type Request struct {
	Model    string
	Messages []Message
	Stream   bool
	// Body is the request body as received.
	Body []byte
}

// LastUser is the last message with role "user", or the zero Message.
func (r Request) LastUser() Message {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i]
		}
	}
	return Message{}
}

// Sources is the JSON array of strings the last user message holds: its whole text, or the
// outermost brackets inside it. Objects in the array stand for their "text" (or "source")
// field, for clients that number their blocks.
func (r Request) Sources() ([]string, error) {
	text := strings.TrimSpace(r.LastUser().Text)
	start, end := strings.IndexByte(text, '['), strings.LastIndexByte(text, ']')
	if start < 0 || end < start {
		return nil, fmt.Errorf("llmfake: no JSON array in the last user message %q", truncate(text, 80))
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(text[start:end+1]), &raw); err != nil {
		return nil, fmt.Errorf("llmfake: the last user message's array: %w", err)
	}
	out := make([]string, len(raw))
	for i, m := range raw {
		if err := json.Unmarshal(m, &out[i]); err == nil {
			continue
		}
		var obj struct {
			Text   *string `json:"text"`
			Source *string `json:"source"`
		}
		if err := json.Unmarshal(m, &obj); err != nil {
			return nil, fmt.Errorf("llmfake: element %d is neither a string nor an object: %w", i, err)
		}
		switch {
		case obj.Text != nil:
			out[i] = *obj.Text
		case obj.Source != nil:
			out[i] = *obj.Source
		}
	}
	return out, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// AnswerFunc returns the assistant's content for a request; an error answers HTTP 500 with
// an OpenAI-style error body.
type AnswerFunc func(ctx context.Context, req Request) (string, error)

// Translations adapts f, which maps the request's source strings to their translations, into
// an AnswerFunc answering with a JSON array of strings, as a well-behaved model does.
func Translations(f func(req Request, sources []string) []string) AnswerFunc {
	return func(ctx context.Context, req Request) (string, error) {
		src, err := req.Sources()
		if err != nil {
			return "", err
		}
		out := f(req, src)
		if out == nil {
			out = []string{}
		}
		b, err := json.Marshal(out)
		if err != nil {
			return "", fmt.Errorf("llmfake: encoding answer: %w", err)
		}
		return string(b), nil
	}
}

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the server root, without /v1: what translator.OpenAIConfig.BaseURL takes.
	URL string

	srv    *httptest.Server
	answer AnswerFunc
	mu     sync.Mutex
	reqs   []Request
}

// New starts a server answering with answer. Close it when done.
func New(answer AnswerFunc) *Server {
	s := &Server{answer: answer}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Requests returns the requests received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// Parse reads a chat-completions request body.
func Parse(body []byte) (Request, error) {
	var w struct {
		Model    string        `json:"model"`
		Messages []wireMessage `json:"messages"`
		Stream   bool          `json:"stream"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return Request{}, fmt.Errorf("llmfake: request body: %w", err)
	}
	if len(w.Messages) == 0 {
		return Request{}, errors.New("llmfake: request has no messages")
	}
	req := Request{Model: w.Model, Stream: w.Stream, Body: body}
	for i, m := range w.Messages {
		msg := Message{Role: m.Role}
		var text string
		var parts []wirePart
		switch {
		case len(m.Content) == 0 || string(m.Content) == "null":
		case json.Unmarshal(m.Content, &text) == nil:
			msg.Text = text
		case json.Unmarshal(m.Content, &parts) == nil:
			var texts []string
			for _, p := range parts {
				switch p.Type {
				case "text":
					texts = append(texts, p.Text)
				case "image_url":
					msg.Images = append(msg.Images, p.ImageURL.URL)
				}
			}
			msg.Text = strings.Join(texts, "\n")
		default:
			return Request{}, fmt.Errorf("llmfake: message %d: content is neither a string nor an array of parts", i)
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	req, err := Parse(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	n := len(s.reqs)
	s.mu.Unlock()

	content, err := s.answer(r.Context(), req)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	id := fmt.Sprintf("chatcmpl-fake-%d", n)
	if req.Stream {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": map[string]string{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", b)
		return
	}
	resp := map[string]any{
		"id": id, "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       map[string]string{"role": "assistant", "content": content},
			"finish_reason": "stop",
		}},
		"usage": map[string]int{"prompt_tokens": len(body) / 4, "completion_tokens": len(content) / 4, "total_tokens": (len(body) + len(content)) / 4},
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(resp); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(buf.Bytes())
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "code": nil}})
}
