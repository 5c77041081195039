package billing

import (
	"errors"
)

// Kind is what sort of failure an Error is. The API answers each kind with its own HTTP status.
type Kind int

// Kinds of billing failure.
const (
	// Invalid is a request or an event that is wrong as sent: a missing field, an unknown price,
	// a signature that does not verify. Sending it again changes nothing.
	Invalid Kind = iota + 1
	// NotConfigured means this server has no Stripe key or webhook secret.
	NotConfigured
	// ProviderFailed means Stripe failed or could not be reached.
	ProviderFailed
	// NotReady is an event that refers to what has not arrived yet; Stripe delivers it again.
	NotReady
)

// Error is a failure the API shows its client: Kind decides the HTTP status, Code and Message go in
// the body as {"error":{"code":...,"message":...}}. Err, when set, is the cause for logs; it never
// holds the Stripe secret key, and Message never holds anything from Stripe.
type Error struct {
	Kind    Kind
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

// Error codes and the kinds they come with.
const (
	CodeInvalidRequest   = "invalid_request"        // Invalid: userId missing, mode not subscription/payment
	CodeUnknownPrice     = "unknown_price"          // Invalid: priceId not in VTS_STRIPE_PRICES
	CodeModeMismatch     = "mode_mismatch"          // Invalid: subscription mode for a pack or payment mode for a plan
	CodeInvalidSignature = "invalid_signature"      // Invalid: webhook signature missing, wrong or stale
	CodeInvalidPayload   = "invalid_payload"        // Invalid: signed webhook body that is not an event
	CodeNotConfigured    = "billing_not_configured" // NotConfigured: no Stripe key or webhook secret configured
	CodeProviderError    = "payment_provider_error" // ProviderFailed: Stripe failed or could not be reached
	CodeEventNotReady    = "event_not_ready"        // NotReady: the event refers to what we have not seen yet; Stripe retries it
)

// AsError returns err's *Error, if it has one.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

func badRequest(code, msg string) *Error {
	return &Error{Kind: Invalid, Code: code, Message: msg}
}
