package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

// proWithCredits puts the user on Pro for a period that began an hour ago, with purchased
// credits granted, and returns when that period ends (the renewal) and when the next one does.
func proWithCredits(t *testing.T, s *store.Store, userID string, credits int64) (renewal, next time.Time) {
	t.Helper()
	ctx := context.Background()
	start := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	renewal, next = start.AddDate(0, 1, 0), start.AddDate(0, 2, 0)
	if _, err := s.SetPlan(ctx, userID, "pro", start, renewal); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GrantCredits(ctx, userID, credits, "operator_grant", "grant:"+userID); err != nil {
		t.Fatal(err)
	}
	return renewal, next
}

// A job that reserved last period's allowance and ends after the renewal: its unspent allowance
// lapses with the period it came from instead of growing the new one, and its unprocessed pages
// are not taken off the new period's count. Purchased credits always come back.
func TestAllowanceRefundAfterRenewalLapses(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t)
	p2, p3 := proWithCredits(t, s, "ora", 50)
	old := pgtest.Reserve(t, s, "ora", "standard", 300)
	// Spend the rest of the allowance and 20 purchased credits in a second job of the old period.
	mixed := pgtest.Reserve(t, s, "ora", "standard", 720)
	if u := pgtest.CheckedUser(t, s, "ora"); u.AllowanceCredits != 0 || u.PurchasedCredits != 30 {
		t.Fatalf("before renewal: %+v", u)
	}

	// The renewal, while both jobs run.
	if _, err := s.SetPlan(ctx, "ora", "pro", p2, p3); err != nil {
		t.Fatal(err)
	}
	fresh := pgtest.Reserve(t, s, "ora", "standard", 5)
	if u := pgtest.CheckedUser(t, s, "ora"); u.AllowanceCredits != 995 || u.PagesThisPeriod != 5 {
		t.Fatalf("after renewal: %+v", u)
	}

	// 100 of 300 pages done: 100 charged, 200 of last period's allowance lapse.
	set, err := s.FinishJob(ctx, job.Outcome{JobID: old, Status: job.Completed, PagesDone: 100, Progress: 300, FinishedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if set.Charged != 100 || set.Refunded != 0 || set.Lapsed != 200 {
		t.Fatalf("settlement = %+v, want 100 charged, 0 refunded, 200 lapsed", set)
	}
	u := pgtest.CheckedUser(t, s, "ora")
	if u.AllowanceCredits != 995 || u.PagesThisPeriod != 5 {
		t.Fatalf("the old job's refund reached the new period: %+v", u)
	}
	// Nothing done of the mixed job: its 20 purchased credits come back, its 700 of allowance lapse.
	set, err = s.FinishJob(ctx, job.Outcome{JobID: mixed, Status: job.Failed, PagesDone: 0, FinishedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if set.Charged != 0 || set.Refunded != 20 || set.Lapsed != 700 {
		t.Fatalf("mixed settlement = %+v", set)
	}
	if u = pgtest.CheckedUser(t, s, "ora"); u.AllowanceCredits != 995 || u.PurchasedCredits != 50 {
		t.Fatalf("after the mixed job: %+v", u)
	}
	j, err := s.GetJob(ctx, mixed)
	if err != nil || j.AllowanceLapsed != 700 || j.CreditsRefunded != 20 {
		t.Fatalf("mixed job record: %v %+v", err, j)
	}
	// A job of the current period refunds into it.
	set, err = s.FinishJob(ctx, job.Outcome{JobID: fresh, Status: job.Failed, PagesDone: 0, FinishedAt: time.Now()})
	if err != nil || set.Refunded != 5 || set.Lapsed != 0 {
		t.Fatalf("fresh settlement = %+v, %v", set, err)
	}
	if u = pgtest.CheckedUser(t, s, "ora"); u.AllowanceCredits != 1000 || u.PagesThisPeriod != 0 {
		t.Fatalf("after the fresh job: %+v", u)
	}
}

// The Free period rolls over lazily: a job of last month settling first thing this month must not
// lift this month's Free allowance above 10.
func TestFreeRolloverThenOldRefund(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t)
	id := pgtest.Reserve(t, s, "pia", "standard", 8)
	next := s.WithClock(func() time.Time { return time.Now().AddDate(0, 1, 0) })
	set, err := next.FinishJob(ctx, job.Outcome{JobID: id, Status: job.Failed, FinishedAt: time.Now().AddDate(0, 1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if u := pgtest.CheckedUser(t, s, "pia"); u.AllowanceCredits != 10 || set.Lapsed != 8 {
		t.Fatalf("after a last-month refund: allowance %d, settlement %+v", u.AllowanceCredits, set)
	}
}

// Settlements of last period's jobs (each retried), the renewal (retried) and new uploads, all at
// once; then the jobs still running settle. However they interleave, every job's unspent
// allowance goes back to its own period or lapses with it: with nothing translated, the new
// period ends at exactly its plan's allowance, the purchased credits are whole again, every
// job is settled once, and the balances equal the ledger.
func TestRenewalRacesSettlements(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t)
	p2, p3 := proWithCredits(t, s, "quin", 400)
	// Eight jobs of the old period, 150 credits each: 1000 of allowance and 200 purchased.
	var old []string
	for range 8 {
		old = append(old, pgtest.Reserve(t, s, "quin", "standard", 150))
	}
	if u := pgtest.CheckedUser(t, s, "quin"); u.AllowanceCredits != 0 || u.PurchasedCredits != 200 {
		t.Fatalf("before the race: %+v", u)
	}

	gate := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var fresh []string
	settled := map[string]int{} // job → settlements that were not Already
	finish := func(id string) {
		set, err := s.FinishJob(ctx, job.Outcome{JobID: id, Status: job.Failed, FinishedAt: time.Now()})
		if err != nil {
			t.Error(err)
			return
		}
		if !set.Already {
			mu.Lock()
			settled[id]++
			mu.Unlock()
		}
	}
	for i := range 3 {
		wg.Add(1)
		go func() { // the renewal, delivered three times
			defer wg.Done()
			<-gate
			if _, err := s.SetPlan(ctx, "quin", "pro", p2, p3); err != nil {
				t.Errorf("renewal %d: %v", i, err)
			}
		}()
	}
	for _, id := range old[:4] { // half the old jobs end during the race, each settled twice
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				finish(id)
			}()
		}
	}
	for range 6 { // new uploads, before or after the renewal
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			if id, ok := pgtest.TryReserve(t, s, "quin", "standard", 40); ok {
				mu.Lock()
				fresh = append(fresh, id)
				mu.Unlock()
			}
		}()
	}
	close(gate)
	wg.Wait()
	pgtest.CheckedUser(t, s, "quin")

	// The rest end after the renewal, whatever the race did.
	for _, id := range append(old[4:], fresh...) {
		wg.Add(2)
		go func() { defer wg.Done(); finish(id) }()
		go func() { defer wg.Done(); finish(id) }()
	}
	wg.Wait()
	for _, id := range append(old, fresh...) {
		if settled[id] != 1 {
			t.Errorf("job %s settled %d times", id, settled[id])
		}
	}
	u := pgtest.CheckedUser(t, s, "quin")
	if u.AllowanceCredits != 1000 || u.PurchasedCredits != 400 || u.DebtCredits != 0 || !u.PeriodStart.Equal(p2) {
		t.Fatalf("after everything settled: allowance %d (want 1000), purchased %d (want 400), debt %d, period %v",
			u.AllowanceCredits, u.PurchasedCredits, u.DebtCredits, u.PeriodStart)
	}
	if u.PagesThisPeriod != 0 {
		t.Errorf("pages this period = %d, want 0", u.PagesThisPeriod)
	}
	t.Logf("%d new uploads reserved during the race", len(fresh))
}
