package billing_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vtsproject/vts/internal/billing"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
)

// Uploads racing a refund and a renewal of the same user never overdraw: every upload either
// reserves or is refused for credits, every event applies, and the balances equal the ledger.
func TestUploadsRaceRefundAndRenewal(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, false)
	t0 := h.clock.Now()
	start, _ := h.subscribePro("in_0", "gil", "sub_g")
	h.must(h.event("checkout.session.completed", t0, sessionObj("cs_g", "payment", "gil", "price_pack500", "cus_gil", "", "pi_g", 5000)))

	var refused, reserved int
	for round := 1; round <= 6; round++ {
		// A fresh pack pays off the debt of the previous round; then spend down to a few credits
		// so that whether each upload fits depends on the order of the racing writes.
		h.must(h.event("checkout.session.completed", t0, sessionObj(fmt.Sprintf("cs_g%d", round), "payment", "gil",
			"price_pack500", "cus_gil", "", fmt.Sprintf("pi_g%d", round), 5000)))
		u := h.user("gil")
		if left := u.Available() - 5; left > 0 && u.DebtCredits == 0 {
			h.spend("gil", int(left))
		}
		refund := h.event("charge.refunded", t0.Add(time.Duration(round)*time.Minute),
			chargeObj("ch_g", "pi_g", 5000, int64(round)*500, nil))
		ps := start.AddDate(0, round, 0)
		renewal := h.event("invoice.paid", t0.Add(time.Duration(round)*time.Minute),
			invoiceObj(fmt.Sprintf("in_%d", round), "gil", "cus_gil", "sub_g", "price_pro", ps, ps.AddDate(0, 1, 0)))

		gate := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		var jobs []string
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				id := uuid.NewString()
				_, err := h.st.ReserveJob(ctx, store.NewJob{ID: id, UserID: "gil", Spec: job.Spec{Mode: "standard", Resolution: "original"}, Pages: 30})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					reserved++
					jobs = append(jobs, id)
				case errors.Is(err, store.ErrInsufficientCredits):
					refused++
				default:
					t.Errorf("round %d: upload: %v", round, err)
				}
			}()
		}
		for _, p := range [][]byte{refund, renewal} {
			h.deliverAtGate(t, &wg, gate, fmt.Sprintf("round %d: ", round), p)
		}
		close(gate)
		wg.Wait()
		u = h.user("gil") // balances equal the ledger's sums
		if u.AllowanceCredits < 0 || u.PurchasedCredits < 0 || u.DebtCredits < 0 {
			t.Fatalf("round %d: negative balance %+v", round, u)
		}
		for _, id := range jobs {
			if _, err := h.st.FinishJob(ctx, job.Outcome{JobID: id, Status: job.Completed, PagesDone: 30, FinishedAt: h.clock.Now()}); err != nil {
				t.Fatal(err)
			}
		}
	}
	u := h.user("gil")
	// Six rounds of 500-cent increments refunded 3000 of 5000 cents: 300 of 500 credits taken.
	taken := taken(t, h, "gil", "stripe_refund:ch_g:")
	if taken != 300 {
		t.Fatalf("refunds took %d credits, want 300 (user %+v)", taken, u)
	}
	t.Logf("uploads: %d reserved, %d refused for credits; final %+v", reserved, refused, u)
}

func taken(t *testing.T, h *harness, userID, prefix string) int64 {
	t.Helper()
	rows, err := h.st.Ledger(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, r := range rows {
		if strings.HasPrefix(r.Key, prefix) {
			n += r.DebtDelta - r.PurchasedDelta
		}
	}
	return n
}

// A user buys a plan and a credit pack through Checkout and the webhooks that follow, then
// uploads beyond what Free allows; every credit is in the ledger, and replaying every webhook
// changes nothing.
func TestEndToEndPlanAndPack(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, true)
	t0 := h.clock.Now()

	// Free: one 40-page job is refused.
	if _, err := h.st.ReserveJob(ctx, store.NewJob{ID: uuid.NewString(), UserID: "hal", Spec: job.Spec{Mode: "standard", Resolution: "original"}, Pages: 40}); !errors.Is(err, store.ErrInsufficientCredits) {
		t.Fatalf("Free user reserved 40 credits: %v", err)
	}

	if _, err := h.svc.CreateCheckout(ctx, billing.CheckoutRequest{UserID: "hal", PriceID: "price_pro", Mode: "subscription"}); err != nil {
		t.Fatal(err)
	}
	customer := h.user("hal").StripeCustomerID
	sessions := h.rec.all("/v1/checkout/sessions")
	if customer == "" || len(sessions) != 1 || sessions[0].Form.Get("customer") != customer {
		t.Fatalf("customer %q, sessions %+v", customer, sessions)
	}
	start, end := t0.Add(-time.Minute), t0.Add(-time.Minute).AddDate(0, 1, 0)
	h.must(h.event("checkout.session.completed", t0, sessionObj("cs_plan", "subscription", "hal", "price_pro", customer, "sub_hal", "", 19900)))
	h.must(h.event("invoice.paid", t0.Add(time.Second), invoiceObj("in_hal", "hal", customer, "sub_hal", "price_pro", start, end)))

	if _, err := h.svc.CreateCheckout(ctx, billing.CheckoutRequest{UserID: "hal", PriceID: "price_pack500", Mode: "payment"}); err != nil {
		t.Fatal(err)
	}
	if n := len(h.rec.all("/v1/customers")); n != 1 {
		t.Fatalf("%d customers created", n)
	}
	h.must(h.event("checkout.session.completed", t0.Add(2*time.Second), sessionObj("cs_pack", "payment", "hal", "price_pack500", customer, "", "pi_hal", 4900)))

	acct, err := h.svc.Account(ctx, "hal")
	if err != nil {
		t.Fatal(err)
	}
	if acct.Plan != "pro" || acct.AllowanceCredits != 1000 || acct.PurchasedCredits != 500 || !acct.PeriodEnd.Equal(end) {
		t.Fatalf("account = %+v", acct)
	}

	// Two concurrent jobs (Free allows one), 1100 credits (Free has 10): allowance then pack.
	j1, err := h.st.ReserveJob(ctx, store.NewJob{ID: uuid.NewString(), UserID: "hal", Spec: job.Spec{Mode: "advanced", Resolution: "original"}, Pages: 150})
	if err != nil {
		t.Fatal(err)
	}
	j2, err := h.st.ReserveJob(ctx, store.NewJob{ID: uuid.NewString(), UserID: "hal", Spec: job.Spec{Mode: "standard", Resolution: "4K"}, Pages: 200})
	if err != nil {
		t.Fatal(err)
	}
	if j1.Job.Plan != "pro" || j2.Job.AllowanceReserved != 700 || j2.Job.PurchasedReserved != 100 {
		t.Fatalf("reservations %+v / %+v", j1.Job, j2.Job)
	}
	u := h.user("hal")
	if u.AllowanceCredits != 0 || u.PurchasedCredits != 400 {
		t.Fatalf("after uploads: %+v", u)
	}

	// Every ledger row is explained: the Free grant, the paid period, the pack, the two jobs.
	rows, err := h.st.Ledger(ctx, "hal")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		"allowance:hal:": true,
		fmt.Sprintf("stripe_allowance:sub_hal:%d", start.Unix()): true,
		"stripe_pack:cs_pack":  true,
		"reserve:" + j1.Job.ID: true,
		"reserve:" + j2.Job.ID: true,
	}
	for _, r := range rows {
		key := r.Key
		if strings.HasPrefix(key, "allowance:hal:") {
			key = "allowance:hal:"
		}
		if !want[key] {
			t.Errorf("unexplained ledger row %+v", r)
		}
		delete(want, key)
	}
	if len(want) != 0 {
		t.Errorf("missing ledger rows %v", want)
	}
	for _, obj := range []string{"cs_plan", "in_hal", "cs_pack"} {
		var outcome string
		if err := h.st.Pool().QueryRow(ctx, `SELECT outcome FROM stripe_events WHERE object_id = $1 AND user_id = 'hal'`, obj).Scan(&outcome); err != nil {
			t.Fatalf("no applied event for %s: %v", obj, err)
		}
	}

	// Replay the whole history, in order and backwards.
	before := h.snapshot()
	history := append([][]byte(nil), h.sent...)
	for i := range history {
		if err := h.deliver(history[i]); err != nil {
			t.Fatal(err)
		}
		if err := h.deliver(history[len(history)-1-i]); err != nil {
			t.Fatal(err)
		}
	}
	if after := h.snapshot(); after != before {
		t.Fatalf("replaying the webhooks changed state:\n before %s\n after  %s", before, after)
	}
}
