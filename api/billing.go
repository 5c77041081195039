package api

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
)

const maxJSONBody = 64 << 10

// decodeJSON reads a small JSON object body into v, strictly.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "application/json" {
		return newError(http.StatusUnsupportedMediaType, "expected_json", "send a JSON body with Content-Type: application/json")
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxJSONBody))
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

type checkoutRequest struct {
	PriceID string `json:"priceId"`
	Mode    string `json:"mode"`
	UserID  string `json:"userId"`
}

var errBillingOff = newError(http.StatusNotImplemented, "billing_not_configured",
	"payments are not configured on this server (set STRIPE_SECRET_KEY and VTS_STRIPE_PRICES)")

// checkout is POST /api/checkout: a hosted checkout session for a plan or a credit pack.
func (s *Server) checkout(w http.ResponseWriter, r *http.Request) {
	var req checkoutRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	if strings.TrimSpace(req.UserID) == "" {
		writeError(w, r, s.Log, newError(http.StatusBadRequest, "missing_user_id", "the userId field is required"))
		return
	}
	if err := s.Identity.Authorize(r, req.UserID); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	if s.Billing == nil {
		writeError(w, r, s.Log, errBillingOff)
		return
	}
	url, err := s.Billing.CheckoutURL(r.Context(), req.UserID, req.PriceID, req.Mode)
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
	if err := s.Identity.Authorize(r, userID); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	if s.Billing != nil {
		acct, err := s.Billing.Account(r.Context(), userID)
		if err != nil {
			writeError(w, r, s.Log, err)
			return
		}
		writeJSON(w, http.StatusOK, acct)
		return
	}
	u, err := s.Store.EnsureUser(r.Context(), userID)
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"userId": u.ID, "plan": u.Plan, "allowanceCredits": u.AllowanceCredits,
		"purchasedCredits": u.PurchasedCredits, "periodEnd": u.PeriodEnd, "pagesThisPeriod": u.PagesThisPeriod})
}

// stripeWebhook is POST /api/stripe/webhook.
func (s *Server) stripeWebhook(w http.ResponseWriter, r *http.Request) {
	if s.Billing == nil {
		writeError(w, r, s.Log, errBillingOff)
		return
	}
	payload, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		writeError(w, r, s.Log, newError(http.StatusRequestEntityTooLarge, "request_too_large", "the webhook body is too large"))
		return
	}
	if err := s.Billing.HandleWebhook(r.Context(), payload, r.Header.Get("Stripe-Signature")); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"received": true})
}
