package billing_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vtsproject/vts/internal/billing"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

func disputeObj(id, charge, paymentIntent string, amount int64, status string) map[string]any {
	o := map[string]any{"id": id, "object": "dispute", "amount": amount, "currency": "usd", "charge": charge,
		"status": status, "reason": "fraudulent", "metadata": map[string]string{}, "is_charge_refundable": false}
	if paymentIntent != "" {
		o["payment_intent"] = paymentIntent
	} else {
		o["payment_intent"] = nil
	}
	return o
}

// paidInvoiceObj is invoiceObj with the payment that paid it, as 2023-10-16 renders it.
func paidInvoiceObj(id, userID, customer, sub, priceID string, start, end time.Time, charge, paymentIntent string, amount int64) map[string]any {
	o := invoiceObj(id, userID, customer, sub, priceID, start, end)
	o["charge"], o["payment_intent"], o["amount_paid"] = charge, paymentIntent, amount
	return o
}

// spend reserves pages of the user's credits and charges them all.
func (h *harness) spend(userID string, pages int) {
	h.t.Helper()
	id := pgtest.Reserve(h.t, h.st, userID, "standard", pages)
	if _, err := h.st.FinishJob(context.Background(), job.Outcome{JobID: id, Status: job.Completed, PagesDone: pages, Progress: pages,
		FinishedAt: h.clock.Now()}); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) canUpload(userID string) bool {
	h.t.Helper()
	id := uuid.NewString()
	_, err := h.st.ReserveJob(context.Background(), store.NewJob{ID: id, UserID: userID, Spec: job.Spec{Mode: "fast", Resolution: "original"}, Pages: 1})
	if err == nil {
		if _, err := h.st.FinishJob(context.Background(), job.Outcome{JobID: id, Status: job.Failed, FinishedAt: h.clock.Now()}); err != nil {
			h.t.Fatal(err)
		}
		return true
	}
	if !errors.Is(err, store.ErrInsufficientCredits) {
		h.t.Fatal(err)
	}
	return false
}

func (h *harness) balances(userID string) string {
	h.t.Helper()
	u := h.user(userID)
	return fmt.Sprintf("a=%d p=%d d=%d", u.AllowanceCredits, u.PurchasedCredits, u.DebtCredits)
}

func (h *harness) wantBalances(userID, want, when string) {
	h.t.Helper()
	if got := h.balances(userID); got != want {
		h.t.Fatalf("%s: %s has %s, want %s", when, userID, got, want)
	}
}

// Disputes of credit packs. Opened, the pack's credits are held: what is left of them is taken,
// what was spent becomes debt (uploads stop). Won, they come back; lost, the hold stays. Each event
// is delivered twice, closes arrive before opens, and a dispute of a payment not yet known waits.
func TestPackDisputes(t *testing.T) {
	h := newHarness(t, false)
	now := h.clock.Now()
	at := func(m int) time.Time { return now.Add(time.Duration(m) * time.Minute) }

	// Opened, then won: 100 bought, 70 spent; the hold takes the 30 left and 70 as debt.
	h.must(h.event("checkout.session.completed", at(0), sessionObj("cs_d1", "payment", "dia", "price_pack100", "cus_dia", "", "pi_d1", 1000)))
	h.spend("dia", 80) // the 10 of allowance, then 70 purchased
	h.wantBalances("dia", "a=0 p=30 d=0", "after spending")
	opened := h.event("charge.dispute.created", at(1), disputeObj("dp_1", "ch_d1", "pi_d1", 1000, "needs_response"))
	h.must(opened)
	h.wantBalances("dia", "a=0 p=0 d=70", "dispute opened")
	if h.canUpload("dia") {
		t.Fatal("an upload was accepted while a disputed pack's credits are owed")
	}
	h.must(h.event("charge.dispute.closed", at(2), disputeObj("dp_1", "ch_d1", "pi_d1", 1000, "won")))
	h.wantBalances("dia", "a=0 p=30 d=0", "dispute won")
	// The opening, again and under a new event ID, after the close: nothing.
	h.must(opened)
	h.must(h.event("charge.dispute.created", at(1), disputeObj("dp_1", "ch_d1", "pi_d1", 1000, "needs_response")))
	h.wantBalances("dia", "a=0 p=30 d=0", "late opening of a won dispute")

	// Lost before it was seen opened: the 500-credit pack is taken back once.
	h.must(h.event("checkout.session.completed", at(3), sessionObj("cs_d2", "payment", "dia", "price_pack500", "cus_dia", "", "pi_d2", 4000)))
	h.wantBalances("dia", "a=0 p=530 d=0", "second pack")
	h.must(h.event("charge.dispute.closed", at(5), disputeObj("dp_2", "ch_d2", "pi_d2", 4000, "lost")))
	h.wantBalances("dia", "a=0 p=30 d=0", "dispute lost")
	h.must(h.event("charge.dispute.created", at(4), disputeObj("dp_2", "ch_d2", "pi_d2", 4000, "needs_response")))
	h.must(h.event("charge.dispute.closed", at(5), disputeObj("dp_2", "ch_d2", "pi_d2", 4000, "lost")))
	h.wantBalances("dia", "a=0 p=30 d=0", "late events of a lost dispute")

	// Won before it was seen opened: nothing moves, and the late opening holds nothing.
	h.must(h.event("checkout.session.completed", at(6), sessionObj("cs_d3", "payment", "dia", "price_pack100", "cus_dia", "", "pi_d3", 1000)))
	h.must(h.event("charge.dispute.closed", at(8), disputeObj("dp_3", "ch_d3", "pi_d3", 1000, "won")))
	h.must(h.event("charge.dispute.created", at(7), disputeObj("dp_3", "ch_d3", "pi_d3", 1000, "warning_needs_response")))
	h.wantBalances("dia", "a=0 p=130 d=0", "won before opened")

	// A dispute of a payment whose purchase has not arrived yet waits for it (Stripe retries);
	// a dispute of half the amount holds half the credits, rounded up.
	early := h.event("charge.dispute.created", at(9), disputeObj("dp_4", "ch_d4", "pi_d4", 499, "needs_response"))
	wantCode(t, h.deliver(early), billing.NotReady, billing.CodeEventNotReady)
	h.must(h.event("checkout.session.completed", at(9), sessionObj("cs_d4", "payment", "dia", "price_pack100", "cus_dia", "", "pi_d4", 1000)))
	h.wantBalances("dia", "a=0 p=230 d=0", "fourth pack")
	h.must(early)
	h.wantBalances("dia", "a=0 p=180 d=0", "half the amount disputed")
	h.must(h.event("charge.dispute.closed", at(10), disputeObj("dp_4", "ch_d4", "pi_d4", 499, "lost")))
	h.wantBalances("dia", "a=0 p=180 d=0", "half the amount lost")

	// An inquiry that closes without a chargeback releases what it held.
	h.must(h.event("charge.dispute.created", at(11), disputeObj("dp_5", "ch_d3", "pi_d3", 1000, "warning_needs_response")))
	h.wantBalances("dia", "a=0 p=80 d=0", "inquiry opened")
	h.must(h.event("charge.dispute.closed", at(12), disputeObj("dp_5", "ch_d3", "pi_d3", 1000, "warning_closed")))
	h.wantBalances("dia", "a=0 p=180 d=0", "inquiry closed")

	// Every credit movement of the disputes is explained by one hold or release row per dispute.
	rows, err := h.st.Ledger(context.Background(), "dia")
	if err != nil {
		t.Fatal(err)
	}
	holds := map[string]int{}
	for _, r := range rows {
		if strings.HasPrefix(r.Key, "stripe_dispute") {
			holds[r.Key]++
		}
	}
	for key, n := range holds {
		if n != 1 {
			t.Errorf("ledger key %s %d times", key, n)
		}
	}
	if len(holds) != 6 { // holds of dp_1, dp_2, dp_4, dp_5; releases of dp_1, dp_5
		t.Errorf("dispute ledger rows %v, want 6", holds)
	}
}

// Disputes of subscription invoices hold the allowance the invoice granted: what is left of it
// in its period, the rest as debt. Released within the period, the allowance comes back; released
// after the period ended, it lapses with it (as a job's refund would) and only the debt is undone.
func TestSubscriptionDisputes(t *testing.T) {
	h := newHarness(t, false)
	t0 := h.clock.Now()
	p1 := t0.Add(-time.Hour)
	p2, p3, p4 := p1.AddDate(0, 1, 0), p1.AddDate(0, 2, 0), p1.AddDate(0, 3, 0)
	inv := func(n int, start, end time.Time) []byte {
		id := fmt.Sprintf("in_s%d", n)
		return h.event("invoice.paid", start.Add(time.Minute), paidInvoiceObj(id, "sue", "cus_sue", "sub_sue", "price_pro", start, end,
			fmt.Sprintf("ch_s%d", n), fmt.Sprintf("pi_s%d", n), 19900))
	}
	dispute := func(typ string, n int, at time.Time, status string) []byte {
		return h.event(typ, at, disputeObj(fmt.Sprintf("dp_s%d", n), fmt.Sprintf("ch_s%d", n), fmt.Sprintf("pi_s%d", n), 19900, status))
	}

	// A dispute of an invoice not seen yet waits for it.
	early := dispute("charge.dispute.created", 1, t0, "needs_response")
	wantCode(t, h.deliver(early), billing.NotReady, billing.CodeEventNotReady)
	h.must(inv(1, p1, p2))
	h.spend("sue", 600)
	h.wantBalances("sue", "a=400 p=0 d=0", "period 1")
	h.must(early)
	h.wantBalances("sue", "a=0 p=0 d=600", "period 1 disputed")
	if h.canUpload("sue") {
		t.Fatal("an upload was accepted while a disputed period's credits are owed")
	}
	h.must(dispute("charge.dispute.closed", 1, t0.Add(time.Minute), "won"))
	h.wantBalances("sue", "a=400 p=0 d=0", "period 1 dispute won")

	// Period 2 is disputed, period 3 starts, then the dispute is won: the 800 left of period 2
	// lapsed with it; the 200 spent are no longer owed.
	h.clock.Set(p2.Add(time.Hour))
	h.must(inv(2, p2, p3))
	h.spend("sue", 200)
	h.must(dispute("charge.dispute.created", 2, p2.Add(2*time.Hour), "needs_response"))
	h.wantBalances("sue", "a=0 p=0 d=200", "period 2 disputed")
	h.clock.Set(p3.Add(time.Hour))
	h.must(inv(3, p3, p4))
	h.wantBalances("sue", "a=1000 p=0 d=200", "period 3 while period 2 is disputed")
	h.must(dispute("charge.dispute.closed", 2, p3.Add(2*time.Hour), "won"))
	h.wantBalances("sue", "a=1000 p=0 d=0", "period 2 dispute won in period 3")

	// Period 3 lost before seen opened: its whole allowance is taken, once.
	h.spend("sue", 100)
	h.must(dispute("charge.dispute.closed", 3, p3.Add(4*time.Hour), "lost"))
	h.wantBalances("sue", "a=0 p=0 d=100", "period 3 lost")
	h.must(dispute("charge.dispute.created", 3, p3.Add(3*time.Hour), "needs_response"))
	h.wantBalances("sue", "a=0 p=0 d=100", "period 3's late opening")
	// A credit pack pays the debt off first.
	h.must(h.event("checkout.session.completed", p3.Add(5*time.Hour), sessionObj("cs_sue", "payment", "sue", "price_pack100", "cus_sue", "", "pi_sue", 1000)))
	h.wantBalances("sue", "a=0 p=0 d=0", "pack after the lost dispute")
}

// Openings and closes of one dispute, each delivered twice, race uploads, settlements and a pack
// purchase of the same user. The dispute holds once and releases once (or, closed first, never
// holds), so once every job has settled with nothing translated the user has exactly what was
// bought and not spent, and the balances equal the ledger. Then the same with a lost dispute.
func TestDisputeRaces(t *testing.T) {
	h := newHarness(t, false)
	t0 := h.clock.Now()
	h.must(h.event("checkout.session.completed", t0, sessionObj("cs_r1", "payment", "ray", "price_pack500", "cus_ray", "", "pi_r1", 4000)))
	h.spend("ray", 110) // 10 allowance, 100 purchased: 400 left

	race := func(round string, events [][]byte) []string {
		return h.race(t, round+": ", events, nil, "ray", "standard", 150, 6)
	}

	jobs := race("won", [][]byte{
		h.event("charge.dispute.created", t0.Add(time.Minute), disputeObj("dp_r1", "ch_r1", "pi_r1", 4000, "needs_response")),
		h.event("charge.dispute.closed", t0.Add(2*time.Minute), disputeObj("dp_r1", "ch_r1", "pi_r1", 4000, "won")),
		h.event("checkout.session.completed", t0.Add(time.Minute), sessionObj("cs_r2", "payment", "ray", "price_pack100", "cus_ray", "", "pi_r2", 1000)),
	})
	h.wantBalances("ray", "a=0 p=500 d=0", fmt.Sprintf("won round (%d uploads reserved)", len(jobs)))

	jobs = race("lost", [][]byte{
		h.event("charge.dispute.created", t0.Add(3*time.Minute), disputeObj("dp_r2", "ch_r2", "pi_r2", 1000, "needs_response")),
		h.event("charge.dispute.closed", t0.Add(4*time.Minute), disputeObj("dp_r2", "ch_r2", "pi_r2", 1000, "lost")),
	})
	h.wantBalances("ray", "a=0 p=400 d=0", fmt.Sprintf("lost round (%d uploads reserved)", len(jobs)))
	if n := taken(t, h, "ray", "stripe_dispute_hold:dp_r2"); n != 100 {
		t.Fatalf("the lost dispute took %d credits, want 100", n)
	}
}

// A dispute of a subscription invoice, opened and won (each twice), races the renewal that ends
// the disputed period, uploads and settlements. Held before the renewal, the allowance part lapses
// with its period; held after it, all of it is debt; won first, nothing is held. Every order ends
// with the new period's allowance whole, no debt, and the balances equal to the ledger.
func TestSubscriptionDisputeRacesRenewal(t *testing.T) {
	for round := range 4 {
		h := newHarness(t, false)
		t0 := h.clock.Now()
		p1 := t0.Add(-time.Hour)
		p2, p3 := p1.AddDate(0, 1, 0), p1.AddDate(0, 2, 0)
		h.must(h.event("invoice.paid", t0, paidInvoiceObj("in_v1", "vic", "cus_vic", "sub_v", "price_pro", p1, p2, "ch_v1", "pi_v1", 19900)))
		var jobs []string
		for range 3 {
			jobs = append(jobs, pgtest.Reserve(t, h.st, "vic", "standard", 250))
		}
		h.clock.Set(p2.Add(time.Minute))
		events := [][]byte{
			h.event("charge.dispute.created", p2, disputeObj("dp_v1", "ch_v1", "", 19900, "needs_response")),
			h.event("charge.dispute.closed", p2.Add(time.Minute), disputeObj("dp_v1", "ch_v1", "", 19900, "won")),
			h.event("invoice.paid", p2, paidInvoiceObj("in_v2", "vic", "cus_vic", "sub_v", "price_pro", p2, p3, "ch_v2", "pi_v2", 19900)),
		}
		h.race(t, fmt.Sprintf("round %d: ", round), events, jobs, "vic", "standard", 100, 3)
		h.wantBalances("vic", "a=1000 p=0 d=0", fmt.Sprintf("round %d, after everything settled", round))
	}
}

// Disputes and refunds of payments the service never made (another product on the same Stripe
// account) are acknowledged and change nothing, rather than asked again for ever: at once when
// Stripe says the payment carries none of our users, an hour after they were made when Stripe
// cannot be asked. A payment that may still be ours waits for its purchase, as before.
func TestForeignPaymentsAreAcknowledged(t *testing.T) {
	h := newHarness(t, false)
	now := h.clock.Now()
	h.must(h.event("checkout.session.completed", now, sessionObj("cs_f1", "payment", "fay", "price_pack100", "cus_fay", "", "pi_f1", 1000)))
	h.wantBalances("fay", "a=10 p=100 d=0", "after purchase")
	old := now.Add(-2 * time.Hour)
	for _, ev := range [][]byte{
		h.event("charge.dispute.created", old, disputeObj("dp_f1", "ch_other1", "pi_other1", 1000, "needs_response")),
		h.event("charge.dispute.closed", old, disputeObj("dp_f1", "ch_other1", "pi_other1", 1000, "lost")),
		h.event("charge.refunded", old, chargeObj("ch_other2", "pi_other2", 1000, 1000, nil)),
	} {
		if err := h.deliver(ev); err != nil {
			t.Fatalf("an old event about a payment never made: %v", err)
		}
	}
	wantCode(t, h.deliver(h.event("charge.dispute.created", now, disputeObj("dp_f2", "ch_other3", "pi_other3", 1000, "needs_response"))),
		billing.NotReady, billing.CodeEventNotReady)
	h.wantBalances("fay", "a=10 p=100 d=0", "after foreign events")

	// With Stripe to ask (stripe-mock's payment intent names no user of ours), a fresh event is
	// acknowledged at once.
	hs := newHarness(t, true)
	for _, ev := range [][]byte{
		hs.event("charge.dispute.created", now, disputeObj("dp_f3", "ch_other4", "pi_other4", 1000, "needs_response")),
		hs.event("charge.refunded", now, chargeObj("ch_other5", "pi_other5", 1000, 1000, nil)),
	} {
		if err := hs.deliver(ev); err != nil {
			t.Fatalf("an event about a payment Stripe says is not ours: %v", err)
		}
	}
	if asked := len(hs.rec.all("/v1/payment_intents/pi_other4")) + len(hs.rec.all("/v1/payment_intents/pi_other5")); asked != 2 {
		t.Errorf("Stripe was asked about the payments %d times, want 2", asked)
	}
}
