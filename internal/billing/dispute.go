package billing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stripe/stripe-go/v76"

	"github.com/vtsproject/vts/internal/store"
)

// Disputes (chargebacks and inquiries) of a credit pack or of a subscription invoice hold the
// credits the disputed payment granted, by the rule refunds follow: what the user still has of
// them is taken, what was already spent becomes debt (netted against purchased credits first, as
// debt always is), which stops uploads. An opened dispute holds; a lost one keeps the hold for
// good; a won one (or an inquiry closed without a chargeback) gives it back. Each dispute holds at
// most once and releases at most once, whatever order and however often its events arrive: its
// state (store.StripeDispute) moves only from held, and a close seen first decides alone.
//
// What a payment granted: a pack its credits; a subscription invoice the allowance it granted for
// its period (none for an invoice that granted none, such as a proration). A dispute of part of the
// amount holds that part, rounded up. The allowance part of a hold is taken only while the
// invoice's period is the current one, and is given back only within the period it was taken
// from: after a renewal it has lapsed with its period, as a job's refund would (docs/ARCHITECTURE.md).

// disputeReleased are the closing statuses that give the hold back.
var disputeReleased = map[string]bool{
	"won":             true,
	"warning_closed":  true, // an inquiry closed without becoming a chargeback
	"charge_refunded": true, // the charge was refunded instead; charge.refunded takes that back
}

func (s *Service) onDisputeCreated(ctx context.Context, ev *stripe.Event) error {
	return s.onDispute(ctx, ev, false)
}

func (s *Service) onDisputeClosed(ctx context.Context, ev *stripe.Event) error {
	return s.onDispute(ctx, ev, true)
}

// disputedPayment is what a disputed payment bought.
type disputedPayment struct {
	userID  string
	source  string
	credits int64 // of the disputed amount
	invoice bool
	epoch   int64 // for an invoice: the allowance epoch of its grant
}

// findDisputed traces the dispute's payment to the pack or the invoice it paid for.
// It answers errForeignPayment for a payment the service never made.
func (s *Service) findDisputed(ctx context.Context, ev *stripe.Event, dp dispute) (disputedPayment, error) {
	var out disputedPayment
	var credits, amount int64
	if p, err := s.store.StripePaymentByIntent(ctx, string(dp.PaymentIntent)); err == nil {
		out = disputedPayment{userID: p.UserID, source: "pack:" + p.CheckoutSessionID}
		credits, amount = p.Credits, p.Amount
	} else if !errors.Is(err, store.ErrNotFound) {
		return out, err
	} else if in, err := s.store.StripeInvoiceByPayment(ctx, string(dp.Charge), string(dp.PaymentIntent)); err == nil {
		out = disputedPayment{userID: in.UserID, source: "invoice:" + in.ID, invoice: true, epoch: in.AllowanceEpoch}
		credits, amount = in.Credits, in.Amount
	} else if !errors.Is(err, store.ErrNotFound) {
		return out, err
	} else {
		return out, s.unknownPayment(ctx, ev, "dispute", string(dp.PaymentIntent))
	}
	out.credits = credits
	if amount > 0 && dp.Amount > 0 && dp.Amount < amount {
		out.credits = (credits*dp.Amount + amount - 1) / amount // ceil: a credit paid back is not kept
	}
	return out, nil
}

func (s *Service) onDispute(ctx context.Context, ev *stripe.Event, closed bool) error {
	var dp dispute
	if err := decode(ev, &dp); err != nil {
		return err
	}
	if dp.ID == "" {
		return badRequest(CodeInvalidPayload, "the dispute has no id")
	}
	paid, err := s.findDisputed(ctx, ev, dp)
	if errors.Is(err, errForeignPayment) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.apply(ctx, ev, paid.userID, dp.ID, func(tx pgx.Tx, u *store.User) (string, error) {
		d, err := s.store.LockStripeDispute(ctx, tx, dp.ID)
		if errors.Is(err, store.ErrNotFound) {
			d = &store.StripeDispute{ID: dp.ID, UserID: u.ID, ChargeID: string(dp.Charge), Source: paid.source,
				Credits: paid.credits}
		} else if err != nil {
			return "", err
		}
		if d.State == store.DisputeReleased || d.State == store.DisputeLost {
			return "dispute already " + d.State + "; nothing changed", nil
		}
		opened := d.State == ""
		var outcome string
		switch {
		case !closed:
			if !opened {
				return "dispute already held", nil
			}
			if outcome, err = s.holdDispute(ctx, tx, u, d, paid); err != nil {
				return "", err
			}
		case dp.Status == "lost":
			if opened {
				if outcome, err = s.holdDispute(ctx, tx, u, d, paid); err != nil {
					return "", err
				}
				outcome += "; "
			}
			d.State = store.DisputeLost
			outcome += "lost: the hold is final"
		case disputeReleased[dp.Status]:
			if opened {
				outcome = "closed " + dp.Status + " before it was seen opened; nothing held"
			} else if outcome, err = s.releaseDispute(ctx, tx, u, d); err != nil {
				return "", err
			}
			d.State = store.DisputeReleased
		default:
			if opened {
				return "closed with status " + dp.Status + " before it was seen opened; nothing changed", nil
			}
			return "closed with status " + dp.Status + "; the hold stays", nil
		}
		d.StripeStatus = dp.Status
		return outcome, s.store.SaveStripeDispute(ctx, tx, d)
	})
}

// holdDispute takes the disputed credits: from the allowance of the invoice's period while it is
// the current one, the rest from purchased credits and, beyond them, as debt (store.Apply).
func (s *Service) holdDispute(ctx context.Context, tx pgx.Tx, u *store.User, d *store.StripeDispute, paid disputedPayment) (string, error) {
	var fromAllowance int64
	if paid.invoice && paid.epoch == u.AllowanceEpoch {
		fromAllowance = min(d.Credits, u.AllowanceCredits)
	}
	rest := d.Credits - fromAllowance
	debtBefore := u.DebtCredits
	d.State, d.HeldAllowance, d.HeldPurchased, d.AllowanceEpoch = store.DisputeHeld, fromAllowance, rest, u.AllowanceEpoch
	if d.Credits > 0 {
		done, err := s.store.Apply(ctx, tx, u, store.LedgerEntry{Key: "stripe_dispute_hold:" + d.ID, Reason: "dispute_hold",
			AllowanceDelta: -fromAllowance, PurchasedDelta: -rest})
		if err != nil {
			return "", err
		}
		if !done {
			return "", fmt.Errorf("dispute %s: the ledger holds it already but its record does not", d.ID)
		}
	}
	return fmt.Sprintf("held %d credits of %s: %d of allowance, %d of purchased credits and debt (debt +%d)", d.Credits,
		d.Source, fromAllowance, rest, u.DebtCredits-debtBefore), nil
}

// releaseDispute gives a hold back: the purchased part pays off debt first, as any credit does;
// the allowance part comes back only into the allowance epoch it was taken from.
func (s *Service) releaseDispute(ctx context.Context, tx pgx.Tx, u *store.User, d *store.StripeDispute) (string, error) {
	back := d.HeldAllowance
	if d.AllowanceEpoch != u.AllowanceEpoch {
		back = 0
	}
	if back > 0 || d.HeldPurchased > 0 {
		done, err := s.store.Apply(ctx, tx, u, store.LedgerEntry{Key: "stripe_dispute_release:" + d.ID, Reason: "dispute_won",
			AllowanceDelta: back, PurchasedDelta: d.HeldPurchased})
		if err != nil {
			return "", err
		}
		if !done {
			return "", fmt.Errorf("dispute %s: the ledger released it already but its record does not", d.ID)
		}
	}
	outcome := fmt.Sprintf("released %d credits", back+d.HeldPurchased)
	if lapsed := d.HeldAllowance - back; lapsed > 0 {
		outcome += fmt.Sprintf("; %d of allowance lapsed with its period", lapsed)
	}
	return outcome, nil
}

// unknownPaymentWait is how long an event about a payment with no record waits for the purchase's
// own event when Stripe cannot be asked whose payment it is: the purchase's event is sent when
// the payment is made, and a refund or dispute comes after it, so a payment still unknown an hour
// after its refund or dispute was made is taken as not ours.
const unknownPaymentWait = time.Hour

// errForeignPayment marks an event about a payment the service never made (another product on
// the same Stripe account, or a payment made by hand): acknowledged, nothing applied.
var errForeignPayment = errors.New("a payment this service never made")

// unknownPayment decides about a refund or dispute (what) of a payment with no record: when the
// payment may be ours and its purchase's event not applied yet, Stripe is asked to retry
// (notReady); when it is not ours, the event is acknowledged with a log line
// (errForeignPayment), since retrying it would answer 503 for ever. Stripe, when configured, says
// whose payment it is: ours carry the userId our Checkout put in their metadata, or a customer
// linked to one of our users; without it the event's age decides (unknownPaymentWait).
func (s *Service) unknownPayment(ctx context.Context, ev *stripe.Event, what, paymentIntent string) error {
	ours := s.now().Sub(unix(ev.Created)) < unknownPaymentWait
	if s.api != nil && paymentIntent != "" {
		p, err := s.api.PaymentIntents.Get(paymentIntent, &stripe.PaymentIntentParams{Params: stripe.Params{Context: ctx}})
		if err != nil {
			return fmt.Errorf("asking Stripe about the %s's payment %s: %w", what, paymentIntent, err)
		}
		ours = p.Metadata["userId"] != ""
		if !ours && p.Customer != nil && p.Customer.ID != "" {
			switch _, err := s.store.UserIDByStripeCustomer(ctx, p.Customer.ID); {
			case err == nil:
				ours = true
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
		}
	}
	if ours {
		// Most likely the purchase's checkout.session.completed or invoice.paid has not been
		// applied yet.
		return notReady("the " + what + "'s payment is not known yet")
	}
	s.log.Warn("acknowledged a "+what+" of a payment this service never made; nothing applied",
		"event", ev.ID, "type", string(ev.Type), "payment_intent", paymentIntent)
	return errForeignPayment
}
