package translator

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"
)

// DeepL endpoints: keys ending in ":fx" belong to the free API.
const (
	DeepLProURL  = "https://api.deepl.com"
	DeepLFreeURL = "https://api-free.deepl.com"
)

// DeepLConfig configures the DeepL API.
type DeepLConfig struct {
	// BaseURL defaults to DeepLFreeURL for ":fx" keys and DeepLProURL otherwise.
	BaseURL    string
	APIKey     string
	HTTPClient *http.Client
}

// DeepL translates with the DeepL API.
type DeepL struct {
	url    string
	apiKey string
	client *http.Client
}

// NewDeepL validates cfg. It does not contact the server.
func NewDeepL(cfg DeepLConfig) (*DeepL, error) {
	if cfg.APIKey == "" {
		return nil, errors.New("deepl translator: API key is required")
	}
	base := cfg.BaseURL
	if base == "" {
		base = DeepLProURL
		if strings.HasSuffix(cfg.APIKey, ":fx") {
			base = DeepLFreeURL
		}
	}
	d := &DeepL{url: strings.TrimRight(base, "/") + "/v2/translate", apiKey: cfg.APIKey, client: cfg.HTTPClient}
	if d.client == nil {
		d.client = &http.Client{Timeout: time.Minute}
	}
	return d, nil
}

// Name implements Translator.
func (d *DeepL) Name() string { return "deepl" }

// DeepL's source languages by service code; target codes differ for a few (see deeplTarget).
var deeplSource = map[string]string{
	"ar": "AR", "bg": "BG", "cs": "CS", "da": "DA", "de": "DE", "el": "EL", "en": "EN", "es": "ES",
	"et": "ET", "fi": "FI", "fr": "FR", "hu": "HU", "id": "ID", "it": "IT", "ja": "JA", "ko": "KO",
	"lt": "LT", "lv": "LV", "nb": "NB", "no": "NB", "nl": "NL", "pl": "PL", "pt": "PT", "ro": "RO",
	"ru": "RU", "sk": "SK", "sl": "SL", "sv": "SV", "tr": "TR", "uk": "UK",
	"zh-Hans": "ZH", "zh-Hant": "ZH",
}

// deeplTarget maps a service code to DeepL's target code, which names a variant where DeepL
// requires one.
func deeplTarget(code string) (string, bool) {
	switch code {
	case "en":
		return "EN-US", true
	case "pt":
		return "PT-PT", true
	case "zh-Hans":
		return "ZH-HANS", true
	case "zh-Hant":
		return "ZH-HANT", true
	}
	c, ok := deeplSource[code]
	return c, ok
}

// Pairs implements Translator.
func (d *DeepL) Pairs() []Pair {
	var out []Pair
	for s := range deeplSource {
		for t := range deeplSource {
			if d.Supports(s, t) {
				out = append(out, Pair{s, t})
			}
		}
	}
	return out
}

// Supports implements Translator.
func (d *DeepL) Supports(src, dst string) bool {
	_, okS := deeplSource[src]
	_, okT := deeplTarget(dst)
	return okS && okT && src != dst
}

type deeplRequest struct {
	Text       []string `json:"text"`
	SourceLang string   `json:"source_lang,omitempty"`
	TargetLang string   `json:"target_lang"`
	// Context is text that informs the translation without being translated or billed.
	Context string `json:"context,omitempty"`
}

type deeplResponse struct {
	Translations []struct {
		DetectedSourceLanguage string `json:"detected_source_language"`
		Text                   string `json:"text"`
	} `json:"translations"`
}

// Translate implements Translator: one request with one text entry per block. DeepL does not
// carry context from one text entry to the next, so the whole page goes along as context, after
// the previous page's text. The custom prompt and glossary are not sent: DeepL documents its
// context field as page content, not instructions, and its glossaries are server-side objects.
func (d *DeepL) Translate(ctx context.Context, r Request) (*Result, error) {
	texts := r.Texts
	if len(texts) == 0 {
		return &Result{}, nil
	}
	target, _ := deeplTarget(r.Dst)
	req := deeplRequest{Text: texts, SourceLang: deeplSource[r.Src], TargetLang: target}
	var context []string
	if r.Previous != nil {
		context = append(context, r.Previous.Source...)
	}
	if len(texts) > 1 || len(context) > 0 {
		req.Context = strings.Join(append(context, texts...), "\n")
	}
	header := http.Header{}
	header.Set("Authorization", "DeepL-Auth-Key "+d.apiKey)
	var resp deeplResponse
	if err := postJSON(ctx, d.client, "deepl", d.url, header, req, &resp); err != nil {
		return nil, err
	}
	if err := checkCount("deepl", len(texts), len(resp.Translations)); err != nil {
		return nil, err
	}
	out := make([]string, len(texts))
	for i, t := range resp.Translations {
		out[i] = t.Text
	}
	return &Result{Translations: out}, nil
}
