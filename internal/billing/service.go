// Package billing sells plans and credit packs through Stripe Checkout and applies Stripe's
// webhook events to the store exactly once. It knows Stripe; the store knows credits; plans knows
// what a plan allows. Nothing here speaks HTTP: the API maps *Error to a response.
package billing

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stripe/stripe-go/v76"
	"github.com/stripe/stripe-go/v76/client"

	"github.com/vtsproject/vts/internal/config"
	"github.com/vtsproject/vts/internal/plans"
	"github.com/vtsproject/vts/internal/store"
)

// Options configure a Service. FromConfig fills them from the service's Config.
type Options struct {
	Store         *store.Store
	SecretKey     string // STRIPE_SECRET_KEY
	WebhookSecret string // STRIPE_WEBHOOK_SECRET
	APIURL        string // STRIPE_API_URL: stripe-mock or a proxy; empty for api.stripe.com
	Prices        string // VTS_STRIPE_PRICES
	SuccessURL    string // VTS_CHECKOUT_SUCCESS_URL
	CancelURL     string // VTS_CHECKOUT_CANCEL_URL
	HTTPClient    *http.Client
	Logger        *slog.Logger
	Now           func() time.Time // what "now" is for periods; tests move it
}

// Service is billing.
type Service struct {
	store         *store.Store
	api           *client.API
	catalog       *Catalog
	secretKey     string
	webhookSecret string
	successURL    string
	cancelURL     string
	log           *slog.Logger
	now           func() time.Time
	// customers serialises the first checkouts of one user in this process, so that they make
	// one Stripe customer without holding the user's row across the call (striped by user).
	customers [64]sync.Mutex
}

// FromConfig builds the Service from the service's one Config.
func FromConfig(st *store.Store, cfg config.Config, log *slog.Logger) (*Service, error) {
	success, cancel := cfg.CheckoutSuccessURL, cfg.CheckoutCancelURL
	base := strings.TrimRight(cfg.PublicURL, "/")
	if success == "" {
		success = base + "/?checkout=success&session_id={CHECKOUT_SESSION_ID}"
	}
	if cancel == "" {
		cancel = base + "/?checkout=cancelled"
	}
	return New(Options{Store: st, SecretKey: cfg.StripeSecretKey, WebhookSecret: cfg.StripeWebhookSecret,
		APIURL: cfg.StripeAPIURL, Prices: cfg.StripePrices, SuccessURL: success, CancelURL: cancel, Logger: log})
}

// New builds the Service. A missing secret key or webhook secret is not an error here, so that
// the service runs without payments; the calls that need them answer billing_not_configured.
func New(o Options) (*Service, error) {
	if o.Store == nil {
		return nil, errors.New("billing: no store")
	}
	cat, err := ParseCatalog(o.Prices)
	if err != nil {
		return nil, err
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	s := &Service{store: o.Store, catalog: cat, secretKey: o.SecretKey, webhookSecret: o.WebhookSecret,
		successURL: o.SuccessURL, cancelURL: o.CancelURL, log: o.Logger.With("component", "billing"), now: o.Now}
	if o.SecretKey != "" {
		if o.SuccessURL == "" || o.CancelURL == "" {
			return nil, errors.New("billing: VTS_CHECKOUT_SUCCESS_URL and VTS_CHECKOUT_CANCEL_URL are needed with STRIPE_SECRET_KEY")
		}
		bc := &stripe.BackendConfig{HTTPClient: o.HTTPClient, LeveledLogger: stripeLogger{s.log}}
		if o.APIURL != "" {
			bc.URL = stripe.String(o.APIURL)
		}
		s.api = client.New(o.SecretKey, stripe.NewBackendsWithConfig(bc))
	}
	return s, nil
}

// Catalog is the price catalog the service sells from.
func (s *Service) Catalog() *Catalog { return s.catalog }

// CheckoutRequest is the body of POST /api/checkout.
type CheckoutRequest struct {
	UserID  string `json:"userId"`
	PriceID string `json:"priceId"`
	Mode    string `json:"mode"`
}

// CreateCheckout opens a hosted Checkout Session for the user and returns its URL.
func (s *Service) CreateCheckout(ctx context.Context, req CheckoutRequest) (string, error) {
	if req.UserID == "" {
		return "", badRequest(CodeInvalidRequest, "userId is required")
	}
	if req.Mode != ModeSubscription && req.Mode != ModePayment {
		return "", badRequest(CodeInvalidRequest, `mode must be "subscription" (plans) or "payment" (credit packs)`)
	}
	price, ok := s.catalog.Lookup(req.PriceID)
	if !ok {
		return "", badRequest(CodeUnknownPrice, fmt.Sprintf("priceId %q is not offered", req.PriceID))
	}
	if price.Mode() != req.Mode {
		return "", badRequest(CodeModeMismatch, fmt.Sprintf("price %s is sold with mode %q, not %q", price.ID, price.Mode(), req.Mode))
	}
	if s.api == nil {
		return "", &Error{Kind: NotConfigured, Code: CodeNotConfigured, Message: "payments are not configured on this server"}
	}
	customerID, err := s.customerFor(ctx, req.UserID)
	if err != nil {
		return "", err
	}
	meta := map[string]string{"userId": req.UserID, "priceId": price.ID}
	params := &stripe.CheckoutSessionParams{
		Mode:              stripe.String(req.Mode),
		Customer:          stripe.String(customerID),
		ClientReferenceID: stripe.String(req.UserID),
		SuccessURL:        stripe.String(s.successURL),
		CancelURL:         stripe.String(s.cancelURL),
		LineItems:         []*stripe.CheckoutSessionLineItemParams{{Price: stripe.String(price.ID), Quantity: stripe.Int64(1)}},
		Metadata:          meta,
	}
	// The session's metadata is not copied to what it creates; the subscription's and the payment
	// intent's own metadata carry the user to later events (invoices, subscription changes).
	if req.Mode == ModeSubscription {
		params.SubscriptionData = &stripe.CheckoutSessionSubscriptionDataParams{Metadata: meta}
	} else {
		params.PaymentIntentData = &stripe.CheckoutSessionPaymentIntentDataParams{Metadata: meta}
	}
	params.Context = ctx
	sess, err := s.api.CheckoutSessions.New(params)
	if err != nil {
		return "", s.providerError("creating checkout session", err)
	}
	if sess.URL == "" {
		return "", s.providerError("creating checkout session", errors.New("session has no url"))
	}
	s.log.InfoContext(ctx, "checkout session created", "user", req.UserID, "price", price.ID, "mode", req.Mode, "session", sess.ID)
	return sess.URL, nil
}

// customerFor returns the user's Stripe customer, creating it the first time. First checkouts of
// one user at once wait for each other in this process and make one customer; the idempotency key
// derived from the user makes a retry after a lost response, or another process, find the same
// one. The user's row is locked only to link the customer, never across the Stripe call.
func (s *Service) customerFor(ctx context.Context, userID string) (string, error) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(userID))
	mu := &s.customers[h.Sum32()%uint32(len(s.customers))]
	mu.Lock()
	defer mu.Unlock()
	u, err := s.store.EnsureUser(ctx, userID)
	if err != nil {
		return "", fmt.Errorf("finding Stripe customer of %s: %w", userID, err)
	}
	if u.StripeCustomerID != "" {
		return u.StripeCustomerID, nil
	}
	// The Stripe call (up to 30 s) is made without the user's row lock, which every reservation,
	// refund and webhook of the user waits for. Another process doing the same at once sends the
	// same idempotency key, and Stripe answers both with one customer.
	params := &stripe.CustomerParams{Metadata: map[string]string{"userId": userID}}
	params.Context = ctx
	params.SetIdempotencyKey("vts-customer-" + userID)
	c, err := s.api.Customers.New(params)
	if err != nil {
		return "", s.providerError("creating customer", err)
	}
	id := c.ID
	err = s.store.LockUser(ctx, userID, func(tx pgx.Tx, u *store.User) error {
		if u.StripeCustomerID != "" {
			id = u.StripeCustomerID
			return nil
		}
		return s.store.LinkStripeCustomer(ctx, tx, u, c.ID)
	})
	if err != nil {
		return "", fmt.Errorf("linking Stripe customer of %s: %w", userID, err)
	}
	return id, nil
}

// providerError logs a Stripe failure (without the secret key) and returns the 502 the client sees.
func (s *Service) providerError(doing string, err error) error {
	msg := s.redact(err.Error())
	s.log.Error("Stripe request failed", "doing", doing, "err", msg)
	return &Error{Kind: ProviderFailed, Code: CodeProviderError, Message: "the payment provider could not " + doing,
		Err: errors.New(msg)}
}

func (s *Service) redact(msg string) string {
	if s.secretKey != "" {
		msg = strings.ReplaceAll(msg, s.secretKey, "[redacted]")
	}
	if s.webhookSecret != "" {
		msg = strings.ReplaceAll(msg, s.webhookSecret, "[redacted]")
	}
	return msg
}

// Account is a user's plan and balances, as GET /api/account shows them.
type Account struct {
	UserID           string    `json:"userId"`
	Plan             string    `json:"plan"`
	AllowanceCredits int64     `json:"allowanceCredits"`
	PurchasedCredits int64     `json:"purchasedCredits"`
	DebtCredits      int64     `json:"debtCredits,omitempty"`
	PeriodEnd        time.Time `json:"periodEnd"`
	PagesThisPeriod  int       `json:"pagesThisPeriod"`
}

// Account returns the user's account, provisioning an unknown user on the Free plan as every
// other entry point does.
func (s *Service) Account(ctx context.Context, userID string) (Account, error) {
	if userID == "" {
		return Account{}, badRequest(CodeInvalidRequest, "userId is required")
	}
	u, err := s.store.EnsureUser(ctx, userID)
	if err != nil {
		return Account{}, fmt.Errorf("reading account of %s: %w", userID, err)
	}
	return Account{UserID: u.ID, Plan: plans.MustLookup(u.Plan).ID, AllowanceCredits: u.AllowanceCredits,
		PurchasedCredits: u.PurchasedCredits, DebtCredits: u.DebtCredits, PeriodEnd: u.PeriodEnd.UTC(),
		PagesThisPeriod: u.PagesThisPeriod}, nil
}

// stripeLogger sends stripe-go's own logging to slog: its requests at debug, its errors as
// warnings (CreateCheckout logs the failure it returns).
type stripeLogger struct{ log *slog.Logger }

func (l stripeLogger) Debugf(format string, v ...interface{}) { l.log.Debug(fmt.Sprintf(format, v...)) }
func (l stripeLogger) Infof(format string, v ...interface{})  { l.log.Debug(fmt.Sprintf(format, v...)) }
func (l stripeLogger) Warnf(format string, v ...interface{})  { l.log.Warn(fmt.Sprintf(format, v...)) }
func (l stripeLogger) Errorf(format string, v ...interface{}) { l.log.Warn(fmt.Sprintf(format, v...)) }
