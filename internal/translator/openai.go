package translator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// OpenAIConfig configures a chat-completions endpoint: OpenAI itself or a local server that
// speaks its protocol (Ollama, llama.cpp, vLLM).
type OpenAIConfig struct {
	// BaseURL is the server root without /v1, e.g. "https://api.openai.com" or
	// "http://localhost:11434" for Ollama.
	BaseURL string
	Model   string
	// APIKey is sent as a bearer token when set; local servers usually need none.
	APIKey string
	// HTTPClient defaults to a client with a two-minute timeout (local models are slow).
	HTTPClient *http.Client
	// Temperature defaults to 0.2: translation wants faithfulness over variety.
	Temperature *float64
}

// OpenAI translates with a chat model. It translates between any two known languages.
type OpenAI struct {
	url         string
	model       string
	apiKey      string
	client      *http.Client
	temperature float64
}

// NewOpenAI validates cfg. It does not contact the server.
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if cfg.BaseURL == "" {
		return nil, errors.New("openai translator: base URL is required")
	}
	if cfg.Model == "" {
		return nil, errors.New("openai translator: model is required")
	}
	o := &OpenAI{
		url:         strings.TrimRight(cfg.BaseURL, "/") + "/v1/chat/completions",
		model:       cfg.Model,
		apiKey:      cfg.APIKey,
		client:      cfg.HTTPClient,
		temperature: 0.2,
	}
	if strings.HasSuffix(strings.TrimRight(cfg.BaseURL, "/"), "/v1") {
		o.url = strings.TrimRight(cfg.BaseURL, "/") + "/chat/completions"
	}
	if o.client == nil {
		o.client = &http.Client{Timeout: 2 * time.Minute}
	}
	if cfg.Temperature != nil {
		o.temperature = *cfg.Temperature
	}
	return o, nil
}

// Name implements Translator.
func (o *OpenAI) Name() string { return "openai" }

// Pairs implements Translator: a language model takes any pair.
func (o *OpenAI) Pairs() []Pair { return nil }

// Supports implements Translator.
func (o *OpenAI) Supports(src, dst string) bool {
	return KnownLanguage(src) && KnownLanguage(dst) && src != dst
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
	Stream      bool          `json:"stream"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

const systemPrompt = `You translate the lettering of a comic or document page from %s to %s.
The user sends a JSON array of strings: the text blocks of one page in reading order, so earlier blocks are context for later ones.
Answer with only a JSON array of strings of the same length, the translation of each block at the same index: no commentary, no code fences.
Keep each translation about as short as the original, since it must fit the same speech bubble. Keep names, sound effects that have no equivalent, and numbers.`

// Translate implements Translator. All blocks travel in one request as a JSON array, and the
// answer is parsed back as one.
func (o *OpenAI) Translate(ctx context.Context, src, dst string, texts []string, customPrompt string) ([]string, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	system := fmt.Sprintf(systemPrompt, LanguageName(src), LanguageName(dst))
	if p := strings.TrimSpace(customPrompt); p != "" {
		system += "\nThe reader's instructions, which take precedence on style and terminology but not on the answer format:\n" + p
	}
	user, err := json.Marshal(texts)
	if err != nil {
		return nil, fmt.Errorf("openai: encoding texts: %w", err)
	}
	header := http.Header{}
	if o.apiKey != "" {
		header.Set("Authorization", "Bearer "+o.apiKey)
	}
	var resp chatResponse
	err = postJSON(ctx, o.client, "openai", o.url, header, chatRequest{
		Model: o.model,
		Messages: []chatMessage{
			{Role: "system", Content: system},
			{Role: "user", Content: string(user)},
		},
		Temperature: o.temperature,
	}, &resp)
	if err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, errors.New("openai: response has no choices")
	}
	out, err := parseJSONArray(resp.Choices[0].Message.Content)
	if err != nil {
		return nil, fmt.Errorf("openai: reading translations: %w", err)
	}
	if err := checkCount("openai", len(texts), len(out)); err != nil {
		return nil, err
	}
	return out, nil
}

// parseJSONArray finds the JSON array of strings in a model's answer. Models often wrap it in a
// code fence or a sentence despite being told not to, so the outermost brackets are taken.
func parseJSONArray(content string) ([]string, error) {
	start := strings.IndexByte(content, '[')
	end := strings.LastIndexByte(content, ']')
	if start < 0 || end < start {
		return nil, fmt.Errorf("no JSON array in answer %q", truncate(content, 120))
	}
	var out []string
	if err := json.Unmarshal([]byte(content[start:end+1]), &out); err != nil {
		return nil, fmt.Errorf("answer is not a JSON array of strings: %w", err)
	}
	return out, nil
}
