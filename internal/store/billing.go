package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The queries billing needs. Those that take a tx run inside LockUser, so that a webhook event,
// its effect on the user's balances and the row recording it commit together.

// StripeEvent is a webhook event being applied.
type StripeEvent struct {
	ID       string
	Type     string
	Created  time.Time
	UserID   string
	ObjectID string
}

// RecordStripeEvent claims ev for this transaction. It returns false when the event was applied
// before (or is being applied by a transaction that then commits), in which case the caller must
// change nothing.
func (s *Store) RecordStripeEvent(ctx context.Context, tx pgx.Tx, ev StripeEvent) (bool, error) {
	var userID any
	if ev.UserID != "" {
		userID = ev.UserID
	}
	tag, err := tx.Exec(ctx, `INSERT INTO stripe_events (id, type, created, user_id, object_id)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`, ev.ID, ev.Type, ev.Created, userID, ev.ObjectID)
	if err != nil {
		return false, fmt.Errorf("recording Stripe event %s: %w", ev.ID, err)
	}
	return tag.RowsAffected() == 1, nil
}

// SetStripeEventOutcome notes what an applied event did, for operators reading the history.
func (s *Store) SetStripeEventOutcome(ctx context.Context, tx pgx.Tx, id, outcome string) error {
	if _, err := tx.Exec(ctx, `UPDATE stripe_events SET outcome = $2 WHERE id = $1`, id, outcome); err != nil {
		return fmt.Errorf("recording outcome of Stripe event %s: %w", id, err)
	}
	return nil
}

// StripeEventApplied reports whether the event was applied.
func (s *Store) StripeEventApplied(ctx context.Context, id string) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM stripe_events WHERE id = $1)`, id).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("checking Stripe event %s: %w", id, err)
	}
	return ok, nil
}

// UserIDByStripeCustomer finds the user a Stripe customer belongs to.
func (s *Store) UserIDByStripeCustomer(ctx context.Context, customerID string) (string, error) {
	return s.userIDBy(ctx, `SELECT id FROM users WHERE stripe_customer_id = $1`, customerID)
}

// UserIDByStripeSubscription finds the user a Stripe subscription belongs to.
func (s *Store) UserIDByStripeSubscription(ctx context.Context, subscriptionID string) (string, error) {
	return s.userIDBy(ctx, `SELECT user_id FROM stripe_subscriptions WHERE id = $1
		UNION ALL SELECT id FROM users WHERE stripe_subscription_id = $1 LIMIT 1`, subscriptionID)
}

func (s *Store) userIDBy(ctx context.Context, query, arg string) (string, error) {
	if arg == "" {
		return "", ErrNotFound
	}
	var id string
	err := s.pool.QueryRow(ctx, query, arg).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("finding user of %s: %w", arg, err)
	}
	return id, nil
}

// LinkStripeCustomer records u's Stripe customer unless u already has one: a user keeps the first
// customer, so that all its payments stay under one customer in Stripe.
func (s *Store) LinkStripeCustomer(ctx context.Context, tx pgx.Tx, u *User, customerID string) error {
	if customerID == "" || u.StripeCustomerID != "" {
		return nil
	}
	if _, err := tx.Exec(ctx, `UPDATE users SET stripe_customer_id = $2, updated_at = now() WHERE id = $1`,
		u.ID, customerID); err != nil {
		return fmt.Errorf("linking Stripe customer: %w", err)
	}
	u.StripeCustomerID = customerID
	return nil
}

// SetSubscription records u's current subscription and its status.
func (s *Store) SetSubscription(ctx context.Context, tx pgx.Tx, u *User, subscriptionID, status string) error {
	if _, err := tx.Exec(ctx, `UPDATE users SET stripe_subscription_id = NULLIF($2, ''), subscription_status = NULLIF($3, ''),
		updated_at = now() WHERE id = $1`, u.ID, subscriptionID, status); err != nil {
		return fmt.Errorf("recording subscription: %w", err)
	}
	u.StripeSubscriptionID, u.SubscriptionStatus = subscriptionID, status
	return nil
}

// SetPlanOnly moves u to plan without touching its allowance: billing grants allowance only
// against a paid period, separately.
func (s *Store) SetPlanOnly(ctx context.Context, tx pgx.Tx, u *User, planID string) error {
	if _, err := tx.Exec(ctx, `UPDATE users SET plan = $2, updated_at = now() WHERE id = $1`, u.ID, planID); err != nil {
		return fmt.Errorf("setting plan: %w", err)
	}
	u.Plan = planID
	return nil
}

// StripeSubscription is what billing knows of one subscription.
type StripeSubscription struct {
	ID               string
	UserID           string
	CustomerID       string
	Status           string
	PriceID          string
	Plan             string
	LastEventCreated int64 // unix seconds of the newest event that set the state
	Ended            bool
	PaidPeriodStart  *time.Time
	PaidPeriodEnd    *time.Time
	GrantedCredits   int64
}

// LockStripeSubscription returns the subscription's row locked for tx, creating it for userID if
// it is new. Callers hold the user's lock first, so the lock order is always user, subscription.
func (s *Store) LockStripeSubscription(ctx context.Context, tx pgx.Tx, id, userID string) (*StripeSubscription, error) {
	if _, err := tx.Exec(ctx, `INSERT INTO stripe_subscriptions (id, user_id) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING`,
		id, userID); err != nil {
		return nil, fmt.Errorf("creating subscription %s: %w", id, err)
	}
	var sub StripeSubscription
	err := tx.QueryRow(ctx, `SELECT id, user_id, customer_id, status, price_id, plan, last_event_created, ended,
		paid_period_start, paid_period_end, granted_credits FROM stripe_subscriptions WHERE id = $1 FOR UPDATE`, id).Scan(
		&sub.ID, &sub.UserID, &sub.CustomerID, &sub.Status, &sub.PriceID, &sub.Plan, &sub.LastEventCreated, &sub.Ended,
		&sub.PaidPeriodStart, &sub.PaidPeriodEnd, &sub.GrantedCredits)
	if err != nil {
		return nil, fmt.Errorf("locking subscription %s: %w", id, err)
	}
	return &sub, nil
}

// SaveStripeSubscription writes sub back.
func (s *Store) SaveStripeSubscription(ctx context.Context, tx pgx.Tx, sub *StripeSubscription) error {
	_, err := tx.Exec(ctx, `UPDATE stripe_subscriptions SET customer_id = $2, status = $3, price_id = $4, plan = $5,
		last_event_created = $6, ended = $7, paid_period_start = $8, paid_period_end = $9, granted_credits = $10,
		updated_at = now() WHERE id = $1`, sub.ID, sub.CustomerID, sub.Status, sub.PriceID, sub.Plan, sub.LastEventCreated,
		sub.Ended, sub.PaidPeriodStart, sub.PaidPeriodEnd, sub.GrantedCredits)
	if err != nil {
		return fmt.Errorf("saving subscription %s: %w", sub.ID, err)
	}
	return nil
}

// GetStripeSubscription reads a subscription outside any transaction.
func (s *Store) GetStripeSubscription(ctx context.Context, id string) (*StripeSubscription, error) {
	var sub StripeSubscription
	err := s.pool.QueryRow(ctx, `SELECT id, user_id, customer_id, status, price_id, plan, last_event_created, ended,
		paid_period_start, paid_period_end, granted_credits FROM stripe_subscriptions WHERE id = $1`, id).Scan(
		&sub.ID, &sub.UserID, &sub.CustomerID, &sub.Status, &sub.PriceID, &sub.Plan, &sub.LastEventCreated, &sub.Ended,
		&sub.PaidPeriodStart, &sub.PaidPeriodEnd, &sub.GrantedCredits)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading subscription %s: %w", id, err)
	}
	return &sub, nil
}

// StripePayment is a credit pack bought through Checkout.
type StripePayment struct {
	CheckoutSessionID string
	UserID            string
	PaymentIntentID   string
	PriceID           string
	Credits           int64
	Amount            int64
}

// RecordStripePayment remembers a pack purchase, once per checkout session.
func (s *Store) RecordStripePayment(ctx context.Context, tx pgx.Tx, p StripePayment) error {
	_, err := tx.Exec(ctx, `INSERT INTO stripe_payments (checkout_session_id, user_id, payment_intent_id, price_id,
		credits, amount) VALUES ($1, $2, NULLIF($3, ''), $4, $5, $6)
		ON CONFLICT (checkout_session_id) DO UPDATE SET payment_intent_id = COALESCE(stripe_payments.payment_intent_id,
		EXCLUDED.payment_intent_id)`, p.CheckoutSessionID, p.UserID, p.PaymentIntentID, p.PriceID, p.Credits, p.Amount)
	if err != nil {
		return fmt.Errorf("recording payment of session %s: %w", p.CheckoutSessionID, err)
	}
	return nil
}

// StripePaymentByIntent finds the pack purchase paid by a payment intent.
func (s *Store) StripePaymentByIntent(ctx context.Context, paymentIntentID string) (*StripePayment, error) {
	if paymentIntentID == "" {
		return nil, ErrNotFound
	}
	var p StripePayment
	err := s.pool.QueryRow(ctx, `SELECT checkout_session_id, user_id, COALESCE(payment_intent_id, ''), price_id, credits,
		amount FROM stripe_payments WHERE payment_intent_id = $1`, paymentIntentID).Scan(&p.CheckoutSessionID, &p.UserID,
		&p.PaymentIntentID, &p.PriceID, &p.Credits, &p.Amount)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading payment %s: %w", paymentIntentID, err)
	}
	return &p, nil
}

// PurchasedTaken sums what the ledger rows whose keys start with prefix took from purchased
// credits, counting what became debt: the part of a refund already applied.
func (s *Store) PurchasedTaken(ctx context.Context, tx pgx.Tx, prefix string) (int64, error) {
	var taken int64
	err := tx.QueryRow(ctx, `SELECT COALESCE(SUM(debt_delta - purchased_delta), 0) FROM credit_ledger
		WHERE idempotency_key LIKE $1 ESCAPE '\'`, likePrefix(prefix)).Scan(&taken)
	if err != nil {
		return 0, fmt.Errorf("summing ledger rows %s*: %w", prefix, err)
	}
	return taken, nil
}

func likePrefix(p string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(p) + "%"
}

// StripeInvoice is a paid subscription invoice: the payment that paid it and the allowance it
// granted, so that a dispute of the payment knows what to hold.
type StripeInvoice struct {
	ID              string
	UserID          string
	SubscriptionID  string
	ChargeID        string
	PaymentIntentID string
	Amount          int64 // amount paid, in the currency's smallest unit
	Credits         int64 // the allowance the invoice granted; 0 when it granted none
	AllowanceEpoch  int64 // the user's allowance epoch that allowance belongs to
}

// RecordStripeInvoice remembers a paid invoice. A second record of the same invoice only fills in
// payment IDs the first lacked: what the invoice granted is decided by the first.
func (s *Store) RecordStripeInvoice(ctx context.Context, tx pgx.Tx, in StripeInvoice) error {
	_, err := tx.Exec(ctx, `INSERT INTO stripe_invoices (id, user_id, subscription_id, charge_id, payment_intent_id,
		amount, credits, allowance_epoch) VALUES ($1, $2, $3, NULLIF($4, ''), NULLIF($5, ''), $6, $7, $8)
		ON CONFLICT (id) DO UPDATE SET charge_id = COALESCE(stripe_invoices.charge_id, EXCLUDED.charge_id),
		payment_intent_id = COALESCE(stripe_invoices.payment_intent_id, EXCLUDED.payment_intent_id)`,
		in.ID, in.UserID, in.SubscriptionID, in.ChargeID, in.PaymentIntentID, in.Amount, in.Credits, in.AllowanceEpoch)
	if err != nil {
		return fmt.Errorf("recording invoice %s: %w", in.ID, err)
	}
	return nil
}

// StripeInvoiceByPayment finds the paid invoice of a charge or a payment intent.
func (s *Store) StripeInvoiceByPayment(ctx context.Context, chargeID, paymentIntentID string) (*StripeInvoice, error) {
	if chargeID == "" && paymentIntentID == "" {
		return nil, ErrNotFound
	}
	var in StripeInvoice
	err := s.pool.QueryRow(ctx, `SELECT id, user_id, subscription_id, COALESCE(charge_id, ''), COALESCE(payment_intent_id, ''),
		amount, credits, allowance_epoch FROM stripe_invoices
		WHERE (charge_id = NULLIF($1, '')) OR (payment_intent_id = NULLIF($2, '')) ORDER BY created_at LIMIT 1`,
		chargeID, paymentIntentID).Scan(&in.ID, &in.UserID, &in.SubscriptionID, &in.ChargeID, &in.PaymentIntentID,
		&in.Amount, &in.Credits, &in.AllowanceEpoch)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("finding invoice of %s %s: %w", chargeID, paymentIntentID, err)
	}
	return &in, nil
}

// Dispute states.
const (
	DisputeHeld     = "held"     // opened: its credits are held
	DisputeReleased = "released" // won (or closed before it was seen opened): nothing held
	DisputeLost     = "lost"     // the hold is final
)

// StripeDispute is a dispute of one of our payments and what it holds.
type StripeDispute struct {
	ID             string
	UserID         string
	ChargeID       string
	Source         string // what the payment bought: pack:<checkout session> or invoice:<invoice>
	Credits        int64  // the credits the disputed amount paid for
	State          string
	StripeStatus   string
	HeldAllowance  int64 // taken from the allowance of AllowanceEpoch
	HeldPurchased  int64 // taken from purchased credits, or added as debt
	AllowanceEpoch int64
}

// LockStripeDispute reads a dispute locked for tx, or ErrNotFound. Callers hold the user's lock.
func (s *Store) LockStripeDispute(ctx context.Context, tx pgx.Tx, id string) (*StripeDispute, error) {
	var d StripeDispute
	err := tx.QueryRow(ctx, `SELECT id, user_id, charge_id, source, credits, state, stripe_status, held_allowance,
		held_purchased, allowance_epoch FROM stripe_disputes WHERE id = $1 FOR UPDATE`, id).Scan(&d.ID, &d.UserID,
		&d.ChargeID, &d.Source, &d.Credits, &d.State, &d.StripeStatus, &d.HeldAllowance, &d.HeldPurchased, &d.AllowanceEpoch)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("locking dispute %s: %w", id, err)
	}
	return &d, nil
}

// SaveStripeDispute writes d, creating it the first time.
func (s *Store) SaveStripeDispute(ctx context.Context, tx pgx.Tx, d *StripeDispute) error {
	_, err := tx.Exec(ctx, `INSERT INTO stripe_disputes (id, user_id, charge_id, source, credits, state, stripe_status,
		held_allowance, held_purchased, allowance_epoch) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, stripe_status = EXCLUDED.stripe_status,
		held_allowance = EXCLUDED.held_allowance, held_purchased = EXCLUDED.held_purchased,
		allowance_epoch = EXCLUDED.allowance_epoch, updated_at = now()`, d.ID, d.UserID, d.ChargeID, d.Source, d.Credits,
		d.State, d.StripeStatus, d.HeldAllowance, d.HeldPurchased, d.AllowanceEpoch)
	if err != nil {
		return fmt.Errorf("saving dispute %s: %w", d.ID, err)
	}
	return nil
}
