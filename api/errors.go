package api

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/vtsproject/vts/internal/billing"
	"github.com/vtsproject/vts/internal/job"
)

// Error is every non-2xx answer of the API: {"error":{"code":"...","message":"..."}}. It is the
// one way handlers report failure; writeError is the one place that writes it.
type Error struct {
	Status     int    `json:"-"`
	Code       string `json:"code"`
	Message    string `json:"message"`
	Details    any    `json:"details,omitempty"`
	RetryAfter int    `json:"-"` // seconds, for 429 and 503
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

func newError(status int, code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// Errors shared by several handlers.
var (
	errJobNotFound = newError(http.StatusNotFound, "job_not_found", "no job with this ID")
	errInternal    = newError(http.StatusInternalServerError, "internal", "something went wrong on our side; it has been logged")
	// errDraining answers an upload still being received when a stopping server's grace ends.
	errDraining    = &Error{Status: http.StatusServiceUnavailable, Code: "draining", Message: "this server is shutting down; retry the upload", RetryAfter: 1}
	errUnavailable = &Error{Status: http.StatusServiceUnavailable, Code: "unavailable", Message: "the service is temporarily unavailable; try again shortly", RetryAfter: 5}
)

// writeError writes err as the JSON error body. It is the one place where what the packages below
// report becomes HTTP: a job's refusal, an unknown job, a billing failure. Any other error that
// is not an *Error is logged with the request and answered as a 500 that reveals nothing of it.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var e *Error
	var refused *job.Refusal
	var billed *billing.Error
	switch {
	case errors.As(err, &e):
	case errors.Is(err, job.ErrNotFound):
		e = errJobNotFound
	case errors.As(err, &refused):
		e = refusalError(refused)
	case errors.As(err, &billed):
		if e = billingError(billed); e.Status >= 500 {
			log.WarnContext(r.Context(), "billing failed", "path", r.URL.Path, "err", billed)
		}
	default:
		log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		e = errInternal
	}
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="vts"`)
	}
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	writeJSON(w, e.Status, struct {
		Error *Error `json:"error"`
	}{e})
}

// billingStatus is the HTTP status of each kind of billing failure.
var billingStatus = map[billing.Kind]int{
	billing.Invalid:        http.StatusBadRequest,
	billing.NotConfigured:  http.StatusServiceUnavailable,
	billing.ProviderFailed: http.StatusBadGateway,
	billing.NotReady:       http.StatusServiceUnavailable,
}

// billingError is the answer to a billing failure; a 503 asks to come back in 30 s.
func billingError(be *billing.Error) *Error {
	e := &Error{Status: billingStatus[be.Kind], Code: be.Code, Message: be.Message}
	if e.Status == 0 {
		e.Status = http.StatusInternalServerError
	}
	if e.Status == http.StatusServiceUnavailable {
		e.RetryAfter = 30
	}
	return e
}

// refusalError is the answer to a job that was refused: the one place a refusal's reason becomes
// an HTTP status and an error code.
func refusalError(r *job.Refusal) *Error {
	switch r.Reason {
	case job.InsufficientCredits:
		e := &Error{Status: http.StatusPaymentRequired, Code: "insufficient_credits", Message: r.Message}
		if r.CreditsNeeded > 0 { // the reservation's numbers
			e.Details = map[string]any{"creditsNeeded": r.CreditsNeeded, "creditsAvailable": r.CreditsAvailable}
		}
		return e
	case job.TooManyJobs:
		return &Error{Status: http.StatusTooManyRequests, Code: "concurrency_limit", Message: r.Message,
			RetryAfter: max(int(r.RetryAfter/time.Second), 1)}
	case job.UnsupportedPair:
		return &Error{Status: http.StatusBadRequest, Code: "unsupported_language", Message: r.Message,
			Details: map[string]any{"supported": r.Supported}}
	case job.Forbidden:
		return newError(http.StatusForbidden, "forbidden", r.Message)
	case job.KeyInUse:
		return &Error{Status: http.StatusConflict, Code: "idempotency_key_in_use", Message: r.Message,
			RetryAfter: int(r.RetryAfter / time.Second)}
	}
	return errUnavailable
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
