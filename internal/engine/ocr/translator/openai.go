package translator

import (
	"context"
	"encoding/base64"
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
	// Vision says the model accepts images (a multimodal model such as Qwen-VL or GPT-4o): each
	// block's crop is sent along and the model reads it itself.
	Vision bool
}

// OpenAI translates with a chat model. It translates between any two known languages.
type OpenAI struct {
	url         string
	model       string
	apiKey      string
	client      *http.Client
	temperature float64
	vision      bool
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
		vision:      cfg.Vision,
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

// chatMessage is one message of a chat-completions request. Content is a string, or for a
// message with images, an array of parts ({"type":"text"} and {"type":"image_url"}), as the
// OpenAI API documents and Ollama, llama.cpp and vLLM accept.
type chatMessage struct {
	Role    string      `json:"role"`
	Content chatContent `json:"content"`
}

type chatContent struct {
	Text  string
	Parts []contentPart
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

func (c chatContent) MarshalJSON() ([]byte, error) {
	if c.Parts != nil {
		return json.Marshal(c.Parts)
	}
	return json.Marshal(c.Text)
}

func (c *chatContent) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &c.Parts); err != nil {
			return err
		}
		for _, p := range c.Parts {
			if p.Type == "text" {
				c.Text += p.Text
			}
		}
		return nil
	}
	return json.Unmarshal(data, &c.Text)
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
Keep each translation about as short as the original, since it must fit the same speech bubble. Keep names, sound effects that have no equivalent, and numbers.
A block that is no text at all but OCR noise from the artwork (a few unrelated kana, letters or symbols that together mean nothing) gets "" instead of a translation: it is then left as drawn.`

const visionPrompt = `
The blocks were read by OCR, which makes mistakes. After the JSON array come the images of the blocks, one per block in the same order: read each image yourself.
Answer instead with a JSON array of the same length whose items are objects {"source": "the text as you read it in the image", "translation": "its translation"}.`

const contextPrompt = `
The previous page of the same chapter came before; keep names, speakers and tone consistent with it.`

// Translate implements Translator. All blocks travel in one request as a JSON array, and the
// answer is parsed back as one. The previous page, when given, goes first as an earlier turn of
// the same conversation, which is how chat models take context.
func (o *OpenAI) Translate(ctx context.Context, req Request) (*Result, error) {
	texts := req.Texts
	if len(texts) == 0 {
		return &Result{}, nil
	}
	vision := o.vision && len(req.Images) == len(texts)
	system := fmt.Sprintf(systemPrompt, LanguageName(req.Src), LanguageName(req.Dst))
	if req.Previous != nil && len(req.Previous.Source) > 0 {
		system += contextPrompt
	}
	if vision {
		system += visionPrompt
	}
	if len(req.Glossary) > 0 {
		system += "\nAlways translate these terms as given (source = translation):"
		for _, g := range req.Glossary {
			system += "\n" + g.Source + " = " + g.Target
		}
	}
	if p := strings.TrimSpace(req.CustomPrompt); p != "" {
		system += "\nThe reader's instructions, which take precedence on style and terminology but not on the answer format:\n" + p
	}
	messages := []chatMessage{{Role: "system", Content: chatContent{Text: system}}}
	if prev := req.Previous; prev != nil && len(prev.Source) > 0 && len(prev.Source) == len(prev.Translation) {
		src, _ := json.Marshal(prev.Source)
		dst, _ := json.Marshal(prev.Translation)
		messages = append(messages,
			chatMessage{Role: "user", Content: chatContent{Text: string(src)}},
			chatMessage{Role: "assistant", Content: chatContent{Text: string(dst)}})
	}
	user, err := json.Marshal(texts)
	if err != nil {
		return nil, fmt.Errorf("openai: encoding texts: %w", err)
	}
	content := chatContent{Text: string(user)}
	if vision {
		content.Parts = []contentPart{{Type: "text", Text: string(user)}}
		for _, img := range req.Images {
			content.Parts = append(content.Parts, contentPart{Type: "image_url",
				ImageURL: &imageURL{URL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(img)}})
		}
	}
	messages = append(messages, chatMessage{Role: "user", Content: content})
	header := http.Header{}
	if o.apiKey != "" {
		header.Set("Authorization", "Bearer "+o.apiKey)
	}
	var resp chatResponse
	err = postJSON(ctx, o.client, "openai", o.url, header, chatRequest{
		Model: o.model, Messages: messages, Temperature: o.temperature,
	}, &resp)
	if err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, errors.New("openai: response has no choices")
	}
	answer := resp.Choices[0].Message.Content
	res := &Result{}
	if vision {
		res.Sources, res.Translations, err = parseReadAndTranslate(answer)
	} else {
		res.Translations, err = parseJSONArray(answer)
	}
	if err != nil {
		return nil, fmt.Errorf("openai: reading translations: %w", err)
	}
	if err := checkCount("openai", len(texts), len(res.Translations)); err != nil {
		return nil, err
	}
	return res, nil
}

// ReadsImages implements ImageReader: true when the deployment said its model takes images.
func (o *OpenAI) ReadsImages() bool { return o.vision }

// parseReadAndTranslate reads a vision answer: an array of {source, translation} objects. A model
// that answered plain strings anyway is taken at its word for the translations.
func parseReadAndTranslate(content string) ([]string, []string, error) {
	start := strings.IndexByte(content, '[')
	end := strings.LastIndexByte(content, ']')
	if start < 0 || end < start {
		return nil, nil, fmt.Errorf("no JSON array in answer %q", truncate(content, 120))
	}
	var items []struct {
		Source      string `json:"source"`
		Translation string `json:"translation"`
	}
	if err := json.Unmarshal([]byte(content[start:end+1]), &items); err != nil {
		out, err2 := parseJSONArray(content)
		if err2 != nil {
			return nil, nil, fmt.Errorf("answer is neither objects nor strings: %w", err)
		}
		return make([]string, len(out)), out, nil
	}
	src, dst := make([]string, len(items)), make([]string, len(items))
	for i, it := range items {
		src[i], dst[i] = it.Source, it.Translation
	}
	return src, dst, nil
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
