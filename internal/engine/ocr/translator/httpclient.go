package translator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// maxResponseBytes bounds what a remote translator may send back for one page.
const maxResponseBytes = 8 << 20

// postJSON sends body as JSON to url with the given headers and decodes a 2xx answer into out.
// A non-2xx answer becomes a *StatusError whose message is taken from the provider's body.
func postJSON(ctx context.Context, client *http.Client, provider, url string, header http.Header, body, out any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: encoding request: %w", provider, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return fmt.Errorf("%s: building request: %w", provider, err)
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		// The URL is the configured base, never a credential; the key lives in a header.
		return fmt.Errorf("%s: sending request: %w", provider, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return fmt.Errorf("%s: reading response: %w", provider, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &StatusError{
			Provider:   provider,
			StatusCode: resp.StatusCode,
			RetryAfter: parseRetryAfter(resp.Header.Get("Retry-After")),
			Message:    providerMessage(data),
		}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s: decoding response: %w", provider, err)
	}
	return nil
}

// providerMessage extracts the human part of an error body: OpenAI-style {"error":{"message"}}
// or DeepL-style {"message"}, else a short prefix of the raw text.
func providerMessage(data []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(data, &e) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		if len(e.Error) > 0 && json.Unmarshal(e.Error, &inner) == nil && inner.Message != "" {
			return truncate(inner.Message, 300)
		}
		var s string
		if len(e.Error) > 0 && json.Unmarshal(e.Error, &s) == nil && s != "" {
			return truncate(s, 300)
		}
		if e.Message != "" {
			return truncate(e.Message, 300)
		}
	}
	return truncate(strings.TrimSpace(string(data)), 300)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
