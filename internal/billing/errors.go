package billing

import (
	"errors"
	"net/http"
)

// Error is a failure the API shows its client: Status is the HTTP status, Code and Message go in
// the body as {"error":{"code":...,"message":...}}. Err, when set, is the cause for logs; it never
// holds the Stripe secret key, and Message never holds anything from Stripe.
type Error struct {
	Status  int
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Error codes and the statuses they carry.
const (
	CodeInvalidRequest   = "invalid_request"        // 400: userId missing, mode not subscription/payment
	CodeUnknownPrice     = "unknown_price"          // 400: priceId not in VTS_STRIPE_PRICES
	CodeModeMismatch     = "mode_mismatch"          // 400: subscription mode for a pack or payment mode for a plan
	CodeInvalidSignature = "invalid_signature"      // 400: webhook signature missing, wrong or stale
	CodeInvalidPayload   = "invalid_payload"        // 400: signed webhook body that is not an event
	CodeNotConfigured    = "billing_not_configured" // 503: no Stripe key or webhook secret configured
	CodeProviderError    = "payment_provider_error" // 502: Stripe failed or could not be reached
	CodeEventNotReady    = "event_not_ready"        // 503: the event refers to what we have not seen yet; Stripe retries it
)

// AsError returns err's *Error, if it has one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

func badRequest(code, msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: code, Message: msg}
}
