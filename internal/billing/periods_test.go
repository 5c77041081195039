package billing_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

// The renewal's invoice.paid arrives while jobs of the old period run. A job that settles after it
// gives back nothing of the old period's allowance (it lapsed with its period); one that settles
// at the same moment as the webhook ends the same way whichever wins. The new period starts at
// the plan's allowance and stays there.
func TestRenewalWebhookMidJob(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, false)
	_, end1 := h.subscribePro("in_r1", "rae", "sub_r")
	end2 := end1.AddDate(0, 1, 0)
	if u := h.user("rae"); u.Plan != "pro" || u.AllowanceCredits != 1000 {
		t.Fatalf("after the first invoice: %+v", u)
	}
	settleRace, settleLater := pgtest.Reserve(t, h.st, "rae", "standard", 300), pgtest.Reserve(t, h.st, "rae", "standard", 400)
	if u := h.user("rae"); u.AllowanceCredits != 300 {
		t.Fatalf("after reserving: %+v", u)
	}

	// A month later the renewal is paid; its webhook (delivered twice at once) races the first
	// job's settlement (retried), 100 of 300 pages done.
	h.clock.Set(end1.Add(time.Minute))
	renewal := h.event("invoice.paid", end1.Add(time.Minute), invoiceObj("in_r2", "rae", "cus_rae", "sub_r", "price_pro", end1, end2))
	var wg sync.WaitGroup
	gate := make(chan struct{})
	var mu sync.Mutex
	var sets []*store.Settlement
	for range 2 {
		h.deliverAtGate(t, &wg, gate, "", renewal)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			set, err := h.st.FinishJob(ctx, job.Outcome{JobID: settleRace, Status: job.Completed, PagesDone: 100,
				Progress: 300, FinishedAt: h.clock.Now()})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			sets = append(sets, set)
			mu.Unlock()
		}()
	}
	close(gate)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	u := h.user("rae")
	if u.AllowanceCredits != 1000 || !u.PeriodStart.Equal(end1) {
		t.Fatalf("after the renewal raced a settlement: %+v", u)
	}
	for _, set := range sets {
		if set.Charged != 100 || set.Refunded+set.Lapsed != 200 {
			t.Fatalf("settlement %+v", set)
		}
	}

	// The second job ends after the renewal: 50 of 400 pages done, 350 lapse.
	set, err := h.st.FinishJob(ctx, job.Outcome{JobID: settleLater, Status: job.Completed, PagesDone: 50,
		Progress: 400, FinishedAt: h.clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if set.Charged != 50 || set.Refunded != 0 || set.Lapsed != 350 {
		t.Fatalf("late settlement = %+v, want 50 charged and 350 lapsed", set)
	}
	if u = h.user("rae"); u.AllowanceCredits != 1000 {
		t.Fatalf("an old period's refund grew the new one: allowance %d, want 1000", u.AllowanceCredits)
	}
	// Delivered again, the renewal changes nothing.
	h.must(renewal)
}
