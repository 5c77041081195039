package billing_test

import (
	"context"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/plans"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

// Every status Stripe gives a subscription, and the plan it leaves its user on: as the status of
// a new subscription, and as the next status of a paid-up Pro subscription. A status that ends
// the subscription is final: a later "active" does not bring the plan back, while one that only
// suspends it (incomplete, unpaid, paused) gives the plan back when the subscription recovers.
func TestSubscriptionStatusDecidesPlan(t *testing.T) {
	cases := []struct {
		status string
		plan   string // the plan while the status holds
		ended  bool   // the subscription is over for good
	}{
		{"active", "pro", false},
		{"trialing", "pro", false},
		{"past_due", "pro", false},
		{"incomplete", "free", false},
		{"incomplete_expired", "free", true},
		{"unpaid", "free", false},
		{"canceled", "free", true},
		{"paused", "free", false},
	}
	h := newHarness(t, false)
	t0 := h.clock.Now()
	start, end := t0.Add(-time.Hour), t0.Add(-time.Hour).AddDate(0, 1, 0)
	monthStart, _ := plans.PeriodOf(t0)
	for _, c := range cases {
		t.Run(c.status, func(t *testing.T) {
			parent := h.t
			h.t = t
			defer func() { h.t = parent }()
			// A new subscription whose first status is c.status.
			user, sub, cus := "new_"+c.status, "sub_new_"+c.status, "cus_new_"+c.status
			h.must(h.event("customer.subscription.created", t0, subscriptionObj(sub, user, cus, c.status, "price_pro")))
			u := h.user(user)
			if u.Plan != c.plan || u.SubscriptionStatus != c.status || u.AllowanceCredits != 10 {
				t.Fatalf("new subscription %s: plan %s, status %q, allowance %d; want plan %s", c.status, u.Plan,
					u.SubscriptionStatus, u.AllowanceCredits, c.plan)
			}

			// A paid-up Pro subscription that moves to c.status.
			user, sub, cus = "paid_"+c.status, "sub_paid_"+c.status, "cus_paid_"+c.status
			h.must(h.event("customer.subscription.created", t0, subscriptionObj(sub, user, cus, "active", "price_pro")))
			h.must(h.event("invoice.paid", t0, invoiceObj("in_"+sub, user, cus, sub, "price_pro", start, end)))
			if u = h.user(user); u.Plan != "pro" || u.AllowanceCredits != 1000 {
				t.Fatalf("paid-up: %+v", u)
			}
			h.must(h.event("customer.subscription.updated", t0.Add(2*time.Minute), subscriptionObj(sub, user, cus, c.status, "price_pro")))
			// An older "active" delivered late changes nothing.
			h.must(h.event("customer.subscription.updated", t0.Add(time.Minute), subscriptionObj(sub, user, cus, "active", "price_pro")))
			u = h.user(user)
			if u.Plan != c.plan || u.SubscriptionStatus != c.status {
				t.Fatalf("pro subscription now %s: plan %s, status %q; want plan %s", c.status, u.Plan, u.SubscriptionStatus, c.plan)
			}
			st, err := h.st.GetStripeSubscription(context.Background(), sub)
			if err != nil || st.Ended != c.ended || st.Status != c.status {
				t.Fatalf("subscription record %+v, %v; want ended=%v", st, err, c.ended)
			}
			switch {
			case c.ended: // back to Free with the Free allowance of the calendar month
				if u.AllowanceCredits != 10 || !u.PeriodStart.Equal(monthStart) {
					t.Fatalf("ended: %+v", u)
				}
			case c.plan == "free": // the period's paid allowance is kept; no new one comes
				if u.AllowanceCredits != 1000 || !u.PeriodStart.Equal(start) {
					t.Fatalf("suspended: %+v", u)
				}
			}

			// Later the subscription says active again.
			h.must(h.event("customer.subscription.updated", t0.Add(3*time.Minute), subscriptionObj(sub, user, cus, "active", "price_pro")))
			u = h.user(user)
			want := "pro"
			if c.ended {
				want = "free"
			}
			if u.Plan != want {
				t.Fatalf("after a later active: plan %s, want %s", u.Plan, want)
			}
		})
	}
}

// Status events of one subscription (suspension, cancellation, deletion, a renewal) race uploads
// and settlements of its user: the subscription ends once, with one Free grant, and once every
// job has settled with nothing translated the user holds exactly the Free month's allowance, with
// the balances equal to the ledger.
func TestSubscriptionEndRacesUploads(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, false)
	t0 := h.clock.Now()
	_, end := h.subscribePro("in_s1", "sal", "sub_s")
	var jobs []string
	for range 4 {
		jobs = append(jobs, pgtest.Reserve(t, h.st, "sal", "standard", 200))
	}
	events := [][]byte{
		h.event("customer.subscription.updated", t0.Add(time.Minute), subscriptionObj("sub_s", "sal", "cus_sal", "unpaid", "price_pro")),
		h.event("customer.subscription.updated", t0.Add(2*time.Minute), subscriptionObj("sub_s", "sal", "cus_sal", "canceled", "price_pro")),
		h.event("customer.subscription.deleted", t0.Add(2*time.Minute), subscriptionObj("sub_s", "sal", "cus_sal", "canceled", "price_pro")),
		h.event("invoice.paid", t0.Add(time.Minute), invoiceObj("in_s2", "sal", "cus_sal", "sub_s", "price_pro", end, end.AddDate(0, 1, 0))),
	}
	jobs = h.race(t, "", events, jobs, "sal", "fast", 4, 4)
	u := h.user("sal")
	if u.Plan != "free" || u.AllowanceCredits != 10 || u.SubscriptionStatus != "canceled" {
		t.Fatalf("after the race: %+v", u)
	}
	rows, err := h.st.Ledger(ctx, "sal")
	if err != nil {
		t.Fatal(err)
	}
	ends := 0
	for _, r := range rows {
		if r.Key == "stripe_subscription_ended:sub_s" {
			ends++
		}
	}
	if ends != 1 {
		t.Fatalf("%d end-of-subscription grants", ends)
	}
	t.Logf("%d jobs settled", len(jobs))
}
