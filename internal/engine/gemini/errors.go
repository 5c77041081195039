package gemini

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/vtsproject/vts/internal/engine"
)

// Messages shown to users when a page fails for good. They say what happened in the user's
// terms; the wrapped error keeps the provider's details for operators.
const (
	msgSafety     = "the model declined to translate this page for safety reasons"
	msgRecitation = "the model declined to translate this page because it resembles existing copyrighted material"
	msgNoImage    = "the model answered without an image"
	msgRejected   = "the translation service rejected this page"
	msgMisconfig  = "the translation service is not configured correctly; please contact support"
	msgUnreadable = "the page image could not be read"
)

// apiError finds the genai.APIError in err. The SDK returns it by value; a pointer is accepted
// too, so a future SDK that switches does not silently turn every error retryable.
func apiError(err error) (genai.APIError, bool) {
	var v genai.APIError
	if errors.As(err, &v) {
		return v, true
	}
	var p *genai.APIError
	if errors.As(err, &p) && p != nil {
		return *p, true
	}
	return genai.APIError{}, false
}

// classify turns an error from GenerateContent into the engine's vocabulary: RetryAfterError
// for a rate limit that says when, PermanentError for what no retry can change, and a plain
// error (which the workflow retries with backoff) for everything transient.
func classify(ctx context.Context, model string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("gemini: generate with %s: %w", model, ctxErr)
	}
	ae, ok := apiError(err)
	if !ok {
		// Transport failures: connection refused, reset, timeouts. All transient.
		return fmt.Errorf("gemini: generate with %s: %w", model, err)
	}
	wrapped := fmt.Errorf("gemini: generate with %s: %w", model, err)
	switch {
	case ae.Code == http.StatusTooManyRequests:
		if d, ok := retryDelay(ae.Details); ok {
			return &engine.RetryAfterError{After: d, Err: wrapped}
		}
		return wrapped
	case ae.Code == http.StatusRequestTimeout || ae.Code >= 500:
		return wrapped
	case hasReason(ae.Details, "API_KEY_INVALID"),
		ae.Code == http.StatusUnauthorized, ae.Code == http.StatusForbidden, ae.Code == http.StatusNotFound,
		ae.Status == "FAILED_PRECONDITION", ae.Status == "PERMISSION_DENIED", ae.Status == "UNAUTHENTICATED":
		// A bad key, an unknown model, a region without access: every page would fail the same
		// way, and the user can do nothing about it.
		return engine.Permanent(msgMisconfig, wrapped)
	case ae.Code >= 400:
		// INVALID_ARGUMENT and the rest of 4xx: the request itself (this page, these options)
		// is what the API refuses, so sending it again cannot help.
		return engine.Permanent(msgRejected, wrapped)
	}
	return wrapped
}

// retryDelay reads google.rpc.RetryInfo from an error's details. Its retryDelay is a
// google.protobuf.Duration, which JSON renders as a string of seconds ("12s", "0.5s"); the
// object form {"seconds":..,"nanos":..} is accepted too.
func retryDelay(details []map[string]any) (time.Duration, bool) {
	for _, d := range details {
		if t, _ := d["@type"].(string); !strings.HasSuffix(t, "google.rpc.RetryInfo") {
			continue
		}
		switch v := d["retryDelay"].(type) {
		case string:
			if dur, err := time.ParseDuration(v); err == nil && dur >= 0 {
				return dur, true
			}
		case map[string]any:
			secs, _ := v["seconds"].(float64)
			nanos, _ := v["nanos"].(float64)
			if dur := time.Duration(secs*float64(time.Second) + nanos); dur >= 0 {
				return dur, true
			}
		}
	}
	return 0, false
}

// hasReason reports whether a google.rpc.ErrorInfo detail carries reason. Google answers an
// invalid API key with 400 INVALID_ARGUMENT, and only this reason tells it from a bad request.
func hasReason(details []map[string]any, reason string) bool {
	for _, d := range details {
		if t, _ := d["@type"].(string); strings.HasSuffix(t, "google.rpc.ErrorInfo") {
			if r, _ := d["reason"].(string); r == reason {
				return true
			}
		}
	}
	return false
}
