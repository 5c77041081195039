package billing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stripe/stripe-go/v76"
	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/vtsproject/vts/internal/plans"
	"github.com/vtsproject/vts/internal/store"
)

// HandleWebhook verifies a Stripe webhook delivery and applies its event exactly once: the event's
// ID is recorded in the same transaction as its effect, under the user's row lock, so a
// redelivered or concurrently delivered event changes nothing the second time.
//
// The answer tells Stripe what to do: nil (2xx) for an event applied now, applied before, or of a
// type we ignore; a 400 *Error for a bad signature or body, which changes nothing; a 503 *Error
// (event_not_ready) when the event refers to something not yet known, and any other error, so
// that Stripe delivers it again later.
func (s *Service) HandleWebhook(ctx context.Context, payload []byte, signatureHeader string) error {
	if s.webhookSecret == "" {
		// Never verify against an empty secret: anyone can compute that HMAC.
		return &Error{Kind: NotConfigured, Code: CodeNotConfigured, Message: "the Stripe webhook secret is not configured"}
	}
	// API versions: stripe-go v76 pins 2023-10-16 and by default refuses events rendered for any
	// other version, which would make every delivery fail the day the Stripe account's endpoint
	// moves to a newer version. We accept any version on purpose, and decode event objects into our
	// own structs (objects.go) that read only fields whose meaning has been stable across versions,
	// plus the new locations of the few that moved. The signature (HMAC-SHA256, compared in
	// constant time by stripe-go) and the default 300 s tolerance are still enforced.
	ev, err := webhook.ConstructEventWithOptions(payload, signatureHeader, s.webhookSecret,
		webhook.ConstructEventOptions{Tolerance: webhook.DefaultTolerance, IgnoreAPIVersionMismatch: true})
	if err != nil {
		switch {
		case errors.Is(err, webhook.ErrNotSigned), errors.Is(err, webhook.ErrInvalidHeader),
			errors.Is(err, webhook.ErrNoValidSignature):
			return badRequest(CodeInvalidSignature, "the Stripe-Signature header does not verify")
		case errors.Is(err, webhook.ErrTooOld):
			return badRequest(CodeInvalidSignature, "the Stripe-Signature timestamp is outside the tolerance")
		default:
			return badRequest(CodeInvalidPayload, "the webhook body is not a Stripe event")
		}
	}
	if ev.ID == "" || ev.Type == "" || ev.Data == nil || len(ev.Data.Raw) == 0 {
		return badRequest(CodeInvalidPayload, "the webhook body is not a Stripe event")
	}
	log := s.log.With("event", ev.ID, "type", string(ev.Type))
	if ev.APIVersion != "" && ev.APIVersion != stripe.APIVersion {
		log.Debug("event rendered for another Stripe API version", "api_version", ev.APIVersion)
	}
	h, ok := s.handlers()[string(ev.Type)]
	if !ok {
		log.Debug("ignoring Stripe event type")
		return nil
	}
	if err := h(ctx, &ev); err != nil {
		var be *Error
		if errors.As(err, &be) && (be.Kind == NotReady || be.Kind == NotConfigured) {
			log.Warn("Stripe event not applied yet; Stripe will retry", "err", err)
		} else {
			log.Error("applying Stripe event", "err", err)
		}
		return err
	}
	return nil
}

type handler func(ctx context.Context, ev *stripe.Event) error

func (s *Service) handlers() map[string]handler {
	return map[string]handler{
		"checkout.session.completed":               s.onCheckoutCompleted,
		"checkout.session.async_payment_succeeded": s.onCheckoutCompleted,
		"invoice.paid":                             s.onInvoicePaid,
		"invoice.payment_failed":                   s.onInvoicePaymentFailed,
		"customer.subscription.created":            s.onSubscriptionUpdated,
		"customer.subscription.updated":            s.onSubscriptionUpdated,
		"customer.subscription.deleted":            s.onSubscriptionDeleted,
		"charge.refunded":                          s.onChargeRefunded,
		"charge.dispute.created":                   s.onDisputeCreated,
		"charge.dispute.closed":                    s.onDisputeClosed,
	}
}

// apply runs fn under userID's lock, once per event: when the event was applied before, fn does
// not run. fn returns a short outcome for the event's row and the log.
func (s *Service) apply(ctx context.Context, ev *stripe.Event, userID, objectID string,
	fn func(tx pgx.Tx, u *store.User) (string, error)) error {
	var outcome string
	fresh := false
	err := s.store.LockUser(ctx, userID, func(tx pgx.Tx, u *store.User) error {
		var err error
		fresh, err = s.store.RecordStripeEvent(ctx, tx, store.StripeEvent{ID: ev.ID, Type: string(ev.Type),
			Created: unix(ev.Created), UserID: u.ID, ObjectID: objectID})
		if err != nil || !fresh {
			return err
		}
		if outcome, err = fn(tx, u); err != nil {
			return err
		}
		return s.store.SetStripeEventOutcome(ctx, tx, ev.ID, outcome)
	})
	if err != nil {
		if _, ok := AsError(err); ok {
			return err
		}
		return fmt.Errorf("applying %s %s for user %s: %w", ev.Type, ev.ID, userID, err)
	}
	if fresh {
		s.log.Info("Stripe event applied", "event", ev.ID, "type", string(ev.Type), "user", userID, "object", objectID, "outcome", outcome)
	} else {
		s.log.Debug("Stripe event already applied", "event", ev.ID)
	}
	return nil
}

// lockForEvent locks the subscription for a status event and says why the event must not change
// it, if it must not: the subscription has ended for good, or the event is older than the state
// the subscription already reflects (Stripe does not promise order). skip == "" means apply.
func (s *Service) lockForEvent(ctx context.Context, tx pgx.Tx, subID, userID string, ev *stripe.Event) (*store.StripeSubscription, string, error) {
	sub, err := s.store.LockStripeSubscription(ctx, tx, subID, userID)
	switch {
	case err != nil:
		return nil, "", err
	case sub.Ended:
		return sub, "subscription ended", nil
	case ev.Created < sub.LastEventCreated:
		return sub, "older than the subscription's state; ignored", nil
	}
	return sub, "", nil
}

func notReady(msg string) error {
	return &Error{Kind: NotReady, Code: CodeEventNotReady, Message: msg}
}

// resolveUser finds whose event this is: the userId our Checkout put in metadata, else the
// session's client_reference_id, else the user linked to the customer or the subscription.
func (s *Service) resolveUser(ctx context.Context, meta map[string]string, clientRef, customerID, subscriptionID string) (string, error) {
	if id := meta["userId"]; id != "" {
		return id, nil
	}
	if clientRef != "" {
		return clientRef, nil
	}
	if id, err := s.store.UserIDByStripeCustomer(ctx, customerID); err == nil {
		return id, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	if id, err := s.store.UserIDByStripeSubscription(ctx, subscriptionID); err == nil {
		return id, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	return "", notReady("the event names no known user yet")
}

func decode(ev *stripe.Event, v any) error {
	if err := json.Unmarshal(ev.Data.Raw, v); err != nil {
		return badRequest(CodeInvalidPayload, fmt.Sprintf("the %s object does not decode", ev.Type))
	}
	return nil
}

// onCheckoutCompleted grants a paid credit pack, or links a new subscription to its user. A pack
// paid by a delayed method completes unpaid and is granted by async_payment_succeeded, under the
// same key, so it is granted once whichever arrives.
func (s *Service) onCheckoutCompleted(ctx context.Context, ev *stripe.Event) error {
	var cs checkoutSession
	if err := decode(ev, &cs); err != nil {
		return err
	}
	userID, err := s.resolveUser(ctx, cs.Metadata, cs.ClientReferenceID, string(cs.Customer), string(cs.Subscription))
	if err != nil {
		return err
	}
	switch cs.Mode {
	case ModePayment:
		if cs.PaymentStatus != "paid" {
			return s.apply(ctx, ev, userID, cs.ID, func(tx pgx.Tx, u *store.User) (string, error) {
				return "payment " + cs.PaymentStatus + "; waiting for async_payment_succeeded", s.store.LinkStripeCustomer(ctx, tx, u, string(cs.Customer))
			})
		}
		price, ok := s.catalog.Lookup(cs.Metadata["priceId"])
		if !ok || price.Kind != KindCredits {
			// Money was taken and we cannot tell for what: fail loudly so that Stripe keeps the
			// event and retries it after the catalog is fixed.
			return fmt.Errorf("checkout session %s paid for price %q, which is not a credit pack in VTS_STRIPE_PRICES", cs.ID, cs.Metadata["priceId"])
		}
		return s.apply(ctx, ev, userID, cs.ID, func(tx pgx.Tx, u *store.User) (string, error) {
			if err := s.store.LinkStripeCustomer(ctx, tx, u, string(cs.Customer)); err != nil {
				return "", err
			}
			if err := s.store.RecordStripePayment(ctx, tx, store.StripePayment{CheckoutSessionID: cs.ID, UserID: u.ID,
				PaymentIntentID: string(cs.PaymentIntent), PriceID: price.ID, Credits: price.Credits, Amount: cs.AmountTotal}); err != nil {
				return "", err
			}
			done, err := s.store.Apply(ctx, tx, u, store.LedgerEntry{Key: "stripe_pack:" + cs.ID, Reason: "credit_pack",
				PurchasedDelta: price.Credits})
			if err != nil {
				return "", err
			}
			if !done {
				return "pack already granted", nil
			}
			return fmt.Sprintf("granted %d credits", price.Credits), nil
		})
	case ModeSubscription:
		return s.apply(ctx, ev, userID, cs.ID, func(tx pgx.Tx, u *store.User) (string, error) {
			if err := s.store.LinkStripeCustomer(ctx, tx, u, string(cs.Customer)); err != nil {
				return "", err
			}
			if cs.Subscription == "" {
				return "no subscription on the session", nil
			}
			sub, err := s.store.LockStripeSubscription(ctx, tx, string(cs.Subscription), u.ID)
			if err != nil {
				return "", err
			}
			if sub.CustomerID == "" {
				sub.CustomerID = string(cs.Customer)
				if err := s.store.SaveStripeSubscription(ctx, tx, sub); err != nil {
					return "", err
				}
			}
			if sub.Ended {
				return "subscription already ended", nil
			}
			status := sub.Status
			if status == "" {
				status = "active" // a completed subscription checkout has paid its first invoice
			}
			return "linked subscription " + sub.ID, s.store.SetSubscription(ctx, tx, u, sub.ID, status)
		})
	default:
		return s.apply(ctx, ev, userID, cs.ID, func(pgx.Tx, *store.User) (string, error) {
			return "mode " + cs.Mode + " ignored", nil
		})
	}
}

// onInvoicePaid grants the allowance of the period the invoice paid for, once per subscription
// period, and sets the plan unless a newer event about the subscription has already set it.
func (s *Service) onInvoicePaid(ctx context.Context, ev *stripe.Event) error {
	var in invoice
	if err := decode(ev, &in); err != nil {
		return err
	}
	subID := in.subscription()
	if subID == "" {
		return nil // not a subscription invoice: nothing of ours
	}
	userID, err := s.resolveUser(ctx, in.metadata(), "", string(in.Customer), subID)
	if err != nil {
		return err
	}
	chargeID, paymentIntentID := in.payment()
	// record remembers the invoice's payment and the allowance it granted (0 for none), for a
	// dispute of the payment.
	record := func(tx pgx.Tx, u *store.User, granted int64) error {
		return s.store.RecordStripeInvoice(ctx, tx, store.StripeInvoice{ID: in.ID, UserID: u.ID, SubscriptionID: subID,
			ChargeID: chargeID, PaymentIntentID: paymentIntentID, Amount: in.AmountPaid, Credits: granted,
			AllowanceEpoch: u.AllowanceEpoch})
	}
	line, ok := in.planLine()
	if !ok {
		return s.apply(ctx, ev, userID, in.ID, func(tx pgx.Tx, u *store.User) (string, error) {
			return "no full-period line (prorations only); plan changes come with subscription.updated", record(tx, u, 0)
		})
	}
	price, ok := s.catalog.Lookup(line.priceID())
	if !ok || price.Kind != KindPlan {
		return fmt.Errorf("invoice %s paid for price %q, which is not a plan in VTS_STRIPE_PRICES", in.ID, line.priceID())
	}
	start, end := unix(line.Period.Start), unix(line.Period.End)
	return s.apply(ctx, ev, userID, in.ID, func(tx pgx.Tx, u *store.User) (string, error) {
		if err := s.store.LinkStripeCustomer(ctx, tx, u, string(in.Customer)); err != nil {
			return "", err
		}
		sub, err := s.store.LockStripeSubscription(ctx, tx, subID, u.ID)
		if err != nil {
			return "", err
		}
		if sub.Ended {
			return "subscription ended; nothing granted", record(tx, u, 0)
		}
		var outcome string
		var granted int64
		switch {
		case !end.After(s.now()):
			outcome = "period already over; nothing granted"
		case sub.PaidPeriodStart != nil && start.Before(*sub.PaidPeriodStart):
			outcome = "older period than the one granted; nothing granted"
		default:
			key := fmt.Sprintf("stripe_allowance:%s:%d", sub.ID, start.Unix())
			done, err := s.store.ResetAllowanceKeyed(ctx, tx, u, price.Plan.PagesPerMonth, start, end, key,
				"subscription_period_"+price.Plan.ID)
			if err != nil {
				return "", err
			}
			if done {
				granted = int64(price.Plan.PagesPerMonth)
				sub.PaidPeriodStart, sub.PaidPeriodEnd, sub.GrantedCredits = &start, &end, int64(price.Plan.PagesPerMonth)
				outcome = fmt.Sprintf("allowance %d for %s..%s", price.Plan.PagesPerMonth, start.Format(time.RFC3339), end.Format(time.RFC3339))
			} else {
				outcome = "period already granted"
			}
		}
		if ev.Created >= sub.LastEventCreated {
			sub.LastEventCreated, sub.Status, sub.PriceID, sub.Plan = ev.Created, "active", price.ID, price.Plan.ID
			if sub.CustomerID == "" {
				sub.CustomerID = string(in.Customer)
			}
			if err := s.store.SetPlanOnly(ctx, tx, u, price.Plan.ID); err != nil {
				return "", err
			}
			if err := s.store.SetSubscription(ctx, tx, u, sub.ID, "active"); err != nil {
				return "", err
			}
			outcome += "; plan " + price.Plan.ID
		} else {
			outcome += "; newer subscription state kept"
		}
		if err := record(tx, u, granted); err != nil {
			return "", err
		}
		return outcome, s.store.SaveStripeSubscription(ctx, tx, sub)
	})
}

// onInvoicePaymentFailed marks the subscription past_due. Credits do not move: the period's
// allowance was paid for, and the next invoice.paid (after a successful retry) grants the next.
func (s *Service) onInvoicePaymentFailed(ctx context.Context, ev *stripe.Event) error {
	var in invoice
	if err := decode(ev, &in); err != nil {
		return err
	}
	subID := in.subscription()
	if subID == "" {
		return nil
	}
	userID, err := s.resolveUser(ctx, in.metadata(), "", string(in.Customer), subID)
	if err != nil {
		return err
	}
	return s.apply(ctx, ev, userID, in.ID, func(tx pgx.Tx, u *store.User) (string, error) {
		sub, skip, err := s.lockForEvent(ctx, tx, subID, u.ID, ev)
		if err != nil || skip != "" {
			return skip, err
		}
		sub.LastEventCreated, sub.Status = ev.Created, "past_due"
		if err := s.store.SaveStripeSubscription(ctx, tx, sub); err != nil {
			return "", err
		}
		if u.StripeSubscriptionID != "" && u.StripeSubscriptionID != sub.ID {
			return "past_due on a subscription that is not the user's current one", nil
		}
		return "past_due", s.store.SetSubscription(ctx, tx, u, sub.ID, "past_due")
	})
}

// planDecision is what a subscription's status means for its user's plan.
type planDecision int

const (
	// planPaid: the user has the subscription's plan.
	planPaid planDecision = iota
	// planSuspended: the user is on Free while the status lasts; the subscription may still
	// recover (Stripe then sends active and an invoice.paid), so it is not ended. The allowance
	// already granted stays until its period ends: it was paid for. No new one is granted.
	planSuspended
	// planEnded: the subscription is over for good (a terminal status): Free, with the Free
	// allowance of the calendar month, and no later event about it changes anything.
	planEnded
)

// subscriptionStatuses maps every status Stripe gives a subscription to what it means for the
// plan. It is the one place that decides; docs/ARCHITECTURE.md lists it.
var subscriptionStatuses = map[string]planDecision{
	"active":             planPaid,
	"trialing":           planPaid,      // a trial is the plan, with the allowance its $0 invoice grants
	"past_due":           planPaid,      // Stripe is retrying the payment: a grace period
	"incomplete":         planSuspended, // the first payment has not succeeded yet
	"unpaid":             planSuspended, // retries are exhausted; paying the open invoice reactivates it
	"paused":             planSuspended, // a trial ended without a payment method
	"incomplete_expired": planEnded,     // the first payment never came
	"canceled":           planEnded,
}

// decidePlan says what status means for the plan. A status this code does not know (one Stripe
// adds later) suspends the plan rather than granting it.
func decidePlan(status string) planDecision {
	if d, ok := subscriptionStatuses[status]; ok {
		return d
	}
	return planSuspended
}

// onSubscriptionUpdated follows the subscription's status and price. What the status means for the
// plan is decidePlan's. A newer paid plan takes effect at once; an upgrade within a period already
// paid for tops the allowance up to the new plan's (once per period and plan), a downgrade leaves
// this period's allowance and the next invoice grants the smaller one. A suspending status puts the
// user on Free until the subscription recovers; a terminal one ends it as customer.subscription.deleted
// does. Events older than the last one applied to the subscription are ignored, except a terminal
// status, which nothing can follow.
func (s *Service) onSubscriptionUpdated(ctx context.Context, ev *stripe.Event) error {
	var sb subscription
	if err := decode(ev, &sb); err != nil {
		return err
	}
	userID, err := s.resolveUser(ctx, sb.Metadata, "", string(sb.Customer), sb.ID)
	if err != nil {
		return err
	}
	decision := decidePlan(sb.Status)
	price, ok := s.catalog.Lookup(sb.priceID())
	if (!ok || price.Kind != KindPlan) && decision == planPaid {
		return fmt.Errorf("subscription %s is to price %q, which is not a plan in VTS_STRIPE_PRICES", sb.ID, sb.priceID())
	}
	if _, known := subscriptionStatuses[sb.Status]; !known {
		s.log.Warn("unknown Stripe subscription status; the plan is suspended", "subscription", sb.ID, "status", sb.Status)
	}
	return s.apply(ctx, ev, userID, sb.ID, func(tx pgx.Tx, u *store.User) (string, error) {
		if err := s.store.LinkStripeCustomer(ctx, tx, u, string(sb.Customer)); err != nil {
			return "", err
		}
		if decision == planEnded {
			sub, err := s.store.LockStripeSubscription(ctx, tx, sb.ID, u.ID)
			if err != nil {
				return "", err
			}
			return s.endSubscription(ctx, tx, u, sub, sb.Status, string(sb.Customer), ev)
		}
		sub, skip, err := s.lockForEvent(ctx, tx, sb.ID, u.ID, ev)
		if err != nil || skip != "" {
			return skip, err
		}
		sub.LastEventCreated, sub.Status = ev.Created, sb.Status
		if ok && price.Kind == KindPlan {
			sub.PriceID, sub.Plan = price.ID, price.Plan.ID
		}
		sub.CustomerID = string(sb.Customer)
		outcome := "status " + sb.Status
		if u.StripeSubscriptionID != "" && u.StripeSubscriptionID != sub.ID && decision != planPaid {
			return outcome + " on a subscription that is not the user's current one", s.store.SaveStripeSubscription(ctx, tx, sub)
		}
		switch decision {
		case planPaid:
			if u.Plan != price.Plan.ID {
				if err := s.store.SetPlanOnly(ctx, tx, u, price.Plan.ID); err != nil {
					return "", err
				}
				outcome += "; plan " + price.Plan.ID
			}
			if up := int64(price.Plan.PagesPerMonth) - sub.GrantedCredits; up > 0 && sub.PaidPeriodStart != nil &&
				s.now().Before(*sub.PaidPeriodEnd) && u.PeriodStart.Equal(*sub.PaidPeriodStart) {
				key := fmt.Sprintf("stripe_upgrade:%s:%d:%s", sub.ID, sub.PaidPeriodStart.Unix(), price.Plan.ID)
				done, err := s.store.Apply(ctx, tx, u, store.LedgerEntry{Key: key, Reason: "plan_upgrade_" + price.Plan.ID,
					AllowanceDelta: up})
				if err != nil {
					return "", err
				}
				if done {
					sub.GrantedCredits = int64(price.Plan.PagesPerMonth)
					outcome += fmt.Sprintf("; upgrade adds %d credits", up)
				}
			}
		case planSuspended:
			if u.Plan != plans.Free.ID {
				if err := s.store.SetPlanOnly(ctx, tx, u, plans.Free.ID); err != nil {
					return "", err
				}
				outcome += "; plan free while " + sb.Status
			}
		}
		if err := s.store.SetSubscription(ctx, tx, u, sub.ID, sb.Status); err != nil {
			return "", err
		}
		return outcome, s.store.SaveStripeSubscription(ctx, tx, sub)
	})
}

// onSubscriptionDeleted ends the subscription for good: Stripe sends it when the subscription has
// ended (at the period's end, or at once if cancelled so). The user goes back to Free with a fresh
// Free allowance for the calendar month, replacing what was left of the paid one. Any event about
// the subscription arriving later changes nothing.
func (s *Service) onSubscriptionDeleted(ctx context.Context, ev *stripe.Event) error {
	var sb subscription
	if err := decode(ev, &sb); err != nil {
		return err
	}
	userID, err := s.resolveUser(ctx, sb.Metadata, "", string(sb.Customer), sb.ID)
	if err != nil {
		return err
	}
	return s.apply(ctx, ev, userID, sb.ID, func(tx pgx.Tx, u *store.User) (string, error) {
		sub, err := s.store.LockStripeSubscription(ctx, tx, sb.ID, u.ID)
		if err != nil {
			return "", err
		}
		status := sb.Status
		if decidePlan(status) != planEnded {
			status = "canceled"
		}
		return s.endSubscription(ctx, tx, u, sub, status, string(sb.Customer), ev)
	})
}

// endSubscription ends sub for good with its terminal status: if it is the user's current
// subscription, the user goes back to Free with a fresh Free allowance for the calendar month
// (once per subscription), replacing what was left of the paid one.
func (s *Service) endSubscription(ctx context.Context, tx pgx.Tx, u *store.User, sub *store.StripeSubscription,
	status, customerID string, ev *stripe.Event) (string, error) {
	if sub.Ended {
		return "already ended", nil
	}
	sub.Ended, sub.Status = true, status
	sub.LastEventCreated = max(sub.LastEventCreated, ev.Created)
	if sub.CustomerID == "" {
		sub.CustomerID = customerID
	}
	if err := s.store.SaveStripeSubscription(ctx, tx, sub); err != nil {
		return "", err
	}
	if u.StripeSubscriptionID != "" && u.StripeSubscriptionID != sub.ID {
		return "ended a subscription that is not the user's current one", nil
	}
	if err := s.store.SetPlanOnly(ctx, tx, u, plans.Free.ID); err != nil {
		return "", err
	}
	if err := s.store.SetSubscription(ctx, tx, u, sub.ID, status); err != nil {
		return "", err
	}
	start, end := plans.PeriodOf(s.now())
	if _, err := s.store.ResetAllowanceKeyed(ctx, tx, u, plans.Free.PagesPerMonth, start, end,
		"stripe_subscription_ended:"+sub.ID, "subscription_ended"); err != nil {
		return "", err
	}
	return status + "; back to free", nil
}

// onChargeRefunded takes back a refunded credit pack in proportion to the amount refunded. The
// charge's amount_refunded is cumulative, so each refund event takes what the total calls for
// minus what earlier refunds of the charge took (from the ledger), keyed by charge and refunded
// amount: partial refunds apply incrementally, and an older event arriving late takes nothing.
// Credits already spent become debt (store.Apply), which blocks uploads until paid off.
// Refunds of subscription charges move no credits: the plan ends through the subscription.
func (s *Service) onChargeRefunded(ctx context.Context, ev *stripe.Event) error {
	var ch charge
	if err := decode(ev, &ch); err != nil {
		return err
	}
	var userID string
	var credits int64
	if p, err := s.store.StripePaymentByIntent(ctx, string(ch.PaymentIntent)); err == nil {
		userID, credits = p.UserID, p.Credits
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	} else if price, ok := s.catalog.Lookup(ch.Metadata["priceId"]); ok && price.Kind == KindCredits && ch.Metadata["userId"] != "" {
		userID, credits = ch.Metadata["userId"], price.Credits
	} else if ch.Invoice != "" {
		return nil // a subscription's charge
	} else if err := s.unknownPayment(ctx, ev, "refund", string(ch.PaymentIntent)); errors.Is(err, errForeignPayment) {
		return nil
	} else {
		return err
	}
	if ch.Amount <= 0 {
		return nil
	}
	refunded := min(ch.AmountRefunded, ch.Amount)
	target := (credits*refunded + ch.Amount - 1) / ch.Amount // ceil: a credit paid back is not kept
	return s.apply(ctx, ev, userID, ch.ID, func(tx pgx.Tx, u *store.User) (string, error) {
		prefix := "stripe_refund:" + ch.ID + ":"
		taken, err := s.store.PurchasedTaken(ctx, tx, prefix)
		if err != nil {
			return "", err
		}
		take := target - taken
		if take <= 0 {
			return fmt.Sprintf("refund of %d already applied", refunded), nil
		}
		if _, err := s.store.Apply(ctx, tx, u, store.LedgerEntry{Key: fmt.Sprintf("%s%d", prefix, refunded),
			Reason: "credit_pack_refund", PurchasedDelta: -take}); err != nil {
			return "", err
		}
		return fmt.Sprintf("took back %d credits (debt now %d)", take, u.DebtCredits), nil
	})
}
