package billing_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/vtsproject/vts/internal/billing"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/plans"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

func TestWebhookRejectsBadAndStaleSignatures(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, false)
	payload := h.event("checkout.session.completed", h.clock.Now(),
		sessionObj("cs_1", "payment", "ann", "price_pack100", "cus_ann", "", "pi_1", 1000))
	before := h.snapshot()

	wrong := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: "whsec_other"})
	stale := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: testWebhookSecret,
		Timestamp: time.Now().Add(-10 * time.Minute)})
	good := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: testWebhookSecret})
	for name, header := range map[string]string{"wrong secret": wrong.Header, "stale": stale.Header, "missing": "",
		"garbage": "t=abc,v1=zz"} {
		err := h.svc.HandleWebhook(ctx, payload, header)
		wantCode(t, err, billing.Invalid, billing.CodeInvalidSignature)
		_ = name
	}
	// A good signature over a different body fails too.
	err := h.svc.HandleWebhook(ctx, append([]byte(" "), payload...), good.Header)
	wantCode(t, err, billing.Invalid, billing.CodeInvalidSignature)
	if after := h.snapshot(); after != before {
		t.Fatalf("a refused webhook changed state: %s", after)
	}
	var n int
	if err := h.st.Pool().QueryRow(ctx, `SELECT count(*) FROM stripe_events`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("stripe_events = %d, %v", n, err)
	}

	// Signed but not an event.
	junk := []byte(`{"hello":"world"}`)
	sp := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: junk, Secret: testWebhookSecret})
	wantCode(t, h.svc.HandleWebhook(ctx, junk, sp.Header), billing.Invalid, billing.CodeInvalidPayload)

	// Unknown types are acknowledged and ignored.
	if err := h.deliver(h.event("customer.created", h.clock.Now(), map[string]any{"id": "cus_x", "object": "customer"})); err != nil {
		t.Fatal(err)
	}
	if after := h.snapshot(); after != before {
		t.Fatalf("an ignored event changed state: %s", after)
	}

	// No webhook secret configured: nothing verifies, nothing is applied.
	svc, err := billing.New(billing.Options{Store: h.st, Prices: testPrices})
	if err != nil {
		t.Fatal(err)
	}
	empty := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: ""})
	wantCode(t, svc.HandleWebhook(ctx, payload, empty.Header), billing.NotConfigured, billing.CodeNotConfigured)
}

// A credit pack: granted once however often its events come, refunded in parts, the part already
// spent turning into debt; a refund arriving before its purchase waits for it.
func TestPackPurchaseAndRefunds(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, false)
	now := h.clock.Now()

	// The refund's event comes first: its payment is unknown, so Stripe is asked to retry.
	refundHalf := h.event("charge.refunded", now.Add(time.Hour), chargeObj("ch_1", "pi_1", 1000, 500, nil))
	wantCode(t, h.deliver(refundHalf), billing.NotReady, billing.CodeEventNotReady)

	h.must(h.event("checkout.session.completed", now, sessionObj("cs_1", "payment", "ann", "price_pack100", "cus_ann", "", "pi_1", 1000)))
	u := h.user("ann")
	if u.PurchasedCredits != 100 || u.AllowanceCredits != 10 || u.StripeCustomerID != "cus_ann" {
		t.Fatalf("after purchase: %+v", u)
	}
	// The same session completed again under another event ID grants nothing more.
	h.must(h.event("checkout.session.async_payment_succeeded", now, sessionObj("cs_1", "payment", "ann", "price_pack100", "cus_ann", "", "pi_1", 1000)))
	if u = h.user("ann"); u.PurchasedCredits != 100 {
		t.Fatalf("pack granted twice: %+v", u)
	}

	// Spend 70 purchased credits (and the 10 of allowance).
	pgtest.Reserve(t, h.st, "ann", "standard", 80)
	if u = h.user("ann"); u.PurchasedCredits != 30 {
		t.Fatalf("after spending: %+v", u)
	}

	// Stripe's retry of the half refund: 50 credits back, 30 from the balance and 20 as debt.
	h.must(refundHalf)
	if u = h.user("ann"); u.PurchasedCredits != 0 || u.DebtCredits != 20 {
		t.Fatalf("after half refund: %+v", u)
	}
	// Debt blocks uploads.
	if _, err := h.st.ReserveJob(ctx, store.NewJob{ID: uuid.NewString(), UserID: "ann", Spec: job.Spec{Mode: "fast", Resolution: "original"}, Pages: 1}); err == nil {
		t.Fatal("upload accepted with debt")
	}

	// The rest refunded; then an older partial refund event arrives late and takes nothing.
	h.must(h.event("charge.refunded", now.Add(3*time.Hour), chargeObj("ch_1", "pi_1", 1000, 1000, nil)))
	h.must(h.event("charge.refunded", now.Add(2*time.Hour), chargeObj("ch_1", "pi_1", 1000, 750, nil)))
	if u = h.user("ann"); u.PurchasedCredits != 0 || u.DebtCredits != 70 {
		t.Fatalf("after full refund: %+v", u)
	}

	// A new pack pays the debt off first.
	h.must(h.event("checkout.session.completed", now.Add(4*time.Hour), sessionObj("cs_2", "payment", "ann", "price_pack100", "cus_ann", "", "pi_2", 1000)))
	if u = h.user("ann"); u.PurchasedCredits != 30 || u.DebtCredits != 0 {
		t.Fatalf("after second pack: %+v", u)
	}
	// A 1-cent refund of it rounds up to one credit; a charge carrying our metadata is found
	// without its checkout session.
	h.must(h.event("charge.refunded", now.Add(5*time.Hour), chargeObj("ch_2", "pi_2", 1000, 1, nil)))
	h.must(h.event("charge.refunded", now.Add(5*time.Hour), chargeObj("ch_3", "pi_unknown", 2000, 1000,
		map[string]string{"userId": "ann", "priceId": "price_pack100"})))
	if u = h.user("ann"); u.PurchasedCredits != 0 || u.DebtCredits != 21 {
		t.Fatalf("after small refunds: %+v", u)
	}
	// A refunded subscription charge moves no credits.
	sub := chargeObj("ch_4", "pi_sub", 1000, 1000, nil)
	sub["invoice"] = "in_x"
	before := h.snapshot()
	h.must(h.event("charge.refunded", now, sub))
	if h.snapshot() != before {
		t.Fatal("a subscription charge's refund moved credits")
	}
	// An unpaid (delayed method) session grants nothing until async_payment_succeeded.
	unpaid := sessionObj("cs_3", "payment", "bo", "price_pack500", "cus_bo", "", "pi_3", 4000)
	unpaid["payment_status"] = "unpaid"
	h.must(h.event("checkout.session.completed", now, unpaid))
	if u = h.user("bo"); u.PurchasedCredits != 0 {
		t.Fatalf("unpaid session granted: %+v", u)
	}
	h.must(h.event("checkout.session.async_payment_succeeded", now, sessionObj("cs_3", "payment", "bo", "price_pack500", "cus_bo", "", "pi_3", 4000)))
	if u = h.user("bo"); u.PurchasedCredits != 500 {
		t.Fatalf("async payment not granted: %+v", u)
	}
}

// A subscription's life with its events out of order.
func TestSubscriptionLifecycleOutOfOrder(t *testing.T) {
	h := newHarness(t, false)
	t0 := h.clock.Now()
	start, end := t0.Add(-time.Hour), t0.Add(-time.Hour).AddDate(0, 1, 0)

	// subscription.updated (active, Standard) before the checkout completes: plan set, allowance
	// untouched (no period has been paid yet).
	h.must(h.event("customer.subscription.updated", t0, subscriptionObj("sub_1", "cat", "cus_cat", "active", "price_standard")))
	u := h.user("cat")
	if u.Plan != "standard" || u.AllowanceCredits != 10 || u.SubscriptionStatus != "active" || u.StripeCustomerID != "cus_cat" {
		t.Fatalf("after early update: %+v", u)
	}
	h.must(h.event("checkout.session.completed", t0, sessionObj("cs_s", "subscription", "cat", "price_standard", "cus_cat", "sub_1", "", 2900)))
	if u = h.user("cat"); u.StripeSubscriptionID != "sub_1" {
		t.Fatalf("not linked: %+v", u)
	}
	// invoice.paid, found by the customer alone (no metadata): the period's allowance.
	first := h.event("invoice.paid", t0.Add(time.Second), invoiceObj("in_1", "", "cus_cat", "sub_1", "price_standard", start, end))
	h.must(first)
	u = h.user("cat")
	if u.Plan != "standard" || u.AllowanceCredits != 500 || !u.PeriodStart.Equal(start) || !u.PeriodEnd.Equal(end) {
		t.Fatalf("after invoice.paid: %+v", u)
	}
	// The same invoice under another event ID changes nothing.
	h.must(h.event("invoice.paid", t0.Add(time.Second), invoiceObj("in_1", "", "cus_cat", "sub_1", "price_standard", start, end)))

	// Spend some, then upgrade to Pro within the period: topped up by the difference, once.
	pgtest.Reserve(t, h.st, "cat", "standard", 100)
	h.must(h.event("customer.subscription.updated", t0.Add(time.Minute), subscriptionObj("sub_1", "cat", "cus_cat", "active", "price_pro")))
	if u = h.user("cat"); u.Plan != "pro" || u.AllowanceCredits != 900 {
		t.Fatalf("after upgrade: %+v", u)
	}
	// An older update (Starter) arriving late does not regress the plan.
	h.must(h.event("customer.subscription.updated", t0.Add(30*time.Second), subscriptionObj("sub_1", "cat", "cus_cat", "active", "price_starter")))
	if u = h.user("cat"); u.Plan != "pro" || u.AllowanceCredits != 900 {
		t.Fatalf("older update applied: %+v", u)
	}
	// Down to Standard and up to Pro again: no second top-up in the same period.
	h.must(h.event("customer.subscription.updated", t0.Add(2*time.Minute), subscriptionObj("sub_1", "cat", "cus_cat", "active", "price_standard")))
	h.must(h.event("customer.subscription.updated", t0.Add(3*time.Minute), subscriptionObj("sub_1", "cat", "cus_cat", "active", "price_pro")))
	if u = h.user("cat"); u.Plan != "pro" || u.AllowanceCredits != 900 {
		t.Fatalf("after down and up: %+v", u)
	}

	// Renewal a month later: payment fails first (past_due, no credit change), then succeeds.
	h.clock.Set(end.Add(time.Hour))
	start2, end2 := end, end.AddDate(0, 1, 0)
	failed := h.event("invoice.payment_failed", end.Add(time.Minute), invoiceObj("in_2", "cat", "cus_cat", "sub_1", "price_pro", start2, end2))
	h.must(failed)
	if u = h.user("cat"); u.SubscriptionStatus != "past_due" || u.AllowanceCredits != 900 || u.Plan != "pro" {
		t.Fatalf("after payment failure: %+v", u)
	}
	h.must(h.event("invoice.paid", end.Add(time.Hour), invoiceObj("in_2", "cat", "cus_cat", "sub_1", "price_pro", start2, end2)))
	if u = h.user("cat"); u.SubscriptionStatus != "active" || u.AllowanceCredits != 1000 || !u.PeriodStart.Equal(start2) {
		t.Fatalf("after renewal: %+v", u)
	}
	// The first period's invoice.paid and the failure delivered again late: nothing regresses.
	before := h.snapshot()
	if err := h.deliver(first); err != nil {
		t.Fatal(err)
	}
	h.must(h.event("invoice.payment_failed", end.Add(time.Minute), invoiceObj("in_2", "cat", "cus_cat", "sub_1", "price_pro", start2, end2)))
	h.must(h.event("invoice.paid", t0.Add(time.Second), invoiceObj("in_1b", "cat", "cus_cat", "sub_1", "price_standard", start, end)))
	if after := h.snapshot(); after != before {
		t.Fatalf("late events regressed state:\n before %s\n after  %s", before, after)
	}

	// The subscription ends: Free, with a fresh Free allowance for the calendar month.
	h.clock.Set(end2.Add(time.Minute))
	h.must(h.event("customer.subscription.deleted", end2, subscriptionObj("sub_1", "cat", "cus_cat", "canceled", "price_pro")))
	u = h.user("cat")
	ms, me := plans.PeriodOf(h.clock.Now())
	if u.Plan != "free" || u.AllowanceCredits != 10 || !u.PeriodStart.Equal(ms) || !u.PeriodEnd.Equal(me) || u.SubscriptionStatus != "canceled" {
		t.Fatalf("after deletion: %+v", u)
	}
	// Anything about the ended subscription afterwards changes nothing.
	before = h.snapshot()
	h.must(h.event("customer.subscription.updated", end2.Add(time.Second), subscriptionObj("sub_1", "cat", "cus_cat", "active", "price_pro")))
	h.must(h.event("invoice.paid", end2.Add(time.Second), invoiceObj("in_3", "cat", "cus_cat", "sub_1", "price_pro", end2, end2.AddDate(0, 1, 0))))
	h.must(h.event("customer.subscription.deleted", end2.Add(time.Second), subscriptionObj("sub_1", "cat", "cus_cat", "canceled", "price_pro")))
	if after := h.snapshot(); after != before {
		t.Fatalf("events after the end changed state:\n before %s\n after  %s", before, after)
	}
}

// Deleted before anything else arrives: the late creation events do not resurrect the plan.
func TestSubscriptionDeletedFirst(t *testing.T) {
	h := newHarness(t, false)
	t0 := h.clock.Now()
	h.must(h.event("customer.subscription.deleted", t0, subscriptionObj("sub_9", "dee", "cus_dee", "canceled", "price_pro")))
	h.must(h.event("customer.subscription.updated", t0.Add(-time.Minute), subscriptionObj("sub_9", "dee", "cus_dee", "active", "price_pro")))
	h.must(h.event("invoice.paid", t0.Add(-time.Minute), invoiceObj("in_9", "dee", "cus_dee", "sub_9", "price_pro", t0.Add(-time.Hour), t0.AddDate(0, 1, 0))))
	if u := h.user("dee"); u.Plan != "free" || u.AllowanceCredits != 10 {
		t.Fatalf("ended subscription resurrected: %+v", u)
	}
}

// An endpoint on a newer API version: accepted, and the fields Stripe moved are read.
func TestNewerAPIVersionAccepted(t *testing.T) {
	h := newHarness(t, false)
	t0 := h.clock.Now()
	start, end := t0.Add(-time.Minute), t0.AddDate(0, 1, 0)
	inv := map[string]any{"id": "in_b", "object": "invoice", "customer": "cus_eve",
		"parent": map[string]any{"type": "subscription_details", "subscription_details": map[string]any{
			"subscription": "sub_b", "metadata": map[string]string{"userId": "eve"}}},
		"lines": map[string]any{"data": []any{map[string]any{"id": "il_b", "object": "line_item",
			"parent":  map[string]any{"type": "subscription_item_details", "subscription_item_details": map[string]any{"subscription": "sub_b", "proration": false}},
			"pricing": map[string]any{"type": "price_details", "price_details": map[string]any{"price": "price_starter", "product": "prod_x"}},
			"period":  map[string]any{"start": start.Unix(), "end": end.Unix()}}}}}
	h.must(h.eventVersion("invoice.paid", t0, inv, "2025-03-31.basil"))
	if u := h.user("eve"); u.Plan != "starter" || u.AllowanceCredits != 75 {
		t.Fatalf("newer-version invoice: %+v", u)
	}
}

func TestAccount(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, false)
	a, err := h.svc.Account(ctx, "fin")
	if err != nil {
		t.Fatal(err)
	}
	if a.UserID != "fin" || a.Plan != "free" || a.AllowanceCredits != 10 || a.PurchasedCredits != 0 || a.PeriodEnd.IsZero() {
		t.Fatalf("account = %+v", a)
	}
	_, err = h.svc.Account(ctx, "")
	wantCode(t, err, billing.Invalid, billing.CodeInvalidRequest)
}
