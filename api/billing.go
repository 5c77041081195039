package api

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/vtsproject/vts/internal/billing"
)

const maxJSONBody = 64 << 10

// decodeJSON reads a small JSON object body into v, strictly.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	return decodeJSONUpTo(w, r, v, maxJSONBody)
}

// decodeJSONUpTo is decodeJSON for a body of up to limit bytes.
func decodeJSONUpTo(w http.ResponseWriter, r *http.Request, v any, limit int64) error {
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "application/json" {
		return newError(http.StatusUnsupportedMediaType, "expected_json", "send a JSON body with Content-Type: application/json")
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, limit))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return newError(http.StatusRequestEntityTooLarge, "request_too_large", "the JSON body is too large")
		}
		return newError(http.StatusBadRequest, "invalid_json", "the body is not the expected JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return newError(http.StatusBadRequest, "invalid_json", "the body has data after the JSON object")
	}
	return nil
}

// checkout is POST /api/checkout: a hosted checkout session for a plan or a credit pack.
func (s *Server) checkout(w http.ResponseWriter, r *http.Request) {
	var req billing.CheckoutRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	if strings.TrimSpace(req.UserID) == "" {
		writeError(w, r, s.Log, newError(http.StatusBadRequest, "missing_user_id", "the userId field is required"))
		return
	}
	if err := s.authorize(r, req.UserID); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	url, err := s.Billing.CreateCheckout(r.Context(), req)
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"url": url})
}

// account is GET /api/account?userId=...: plan and balances.
func (s *Server) account(w http.ResponseWriter, r *http.Request) {
	userID := r.URL.Query().Get("userId")
	if strings.TrimSpace(userID) == "" {
		writeError(w, r, s.Log, newError(http.StatusBadRequest, "missing_user_id", "the userId query parameter is required"))
		return
	}
	if err := s.authorize(r, userID); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	acct, err := s.Billing.Account(r.Context(), userID)
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	writeJSON(w, http.StatusOK, acct)
}

// stripeWebhook is POST /api/stripe/webhook. The raw body is what the signature covers.
func (s *Server) stripeWebhook(w http.ResponseWriter, r *http.Request) {
	payload, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 256<<10))
	if err != nil {
		writeError(w, r, s.Log, bodyError(err))
		return
	}
	if err := s.Billing.HandleWebhook(r.Context(), payload, r.Header.Get("Stripe-Signature")); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"received": true})
}
