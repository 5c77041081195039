package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/plans"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

func TestMigrateTwice(t *testing.T) {
	s := pgtest.NewStore(t)
	if err := s.Migrate(context.Background()); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
}

func TestNewUserGetsFreeAllowance(t *testing.T) {
	s := pgtest.NewStore(t)
	u, err := s.EnsureUser(context.Background(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	if u.Plan != "free" || u.AllowanceCredits != 10 || u.PurchasedCredits != 0 {
		t.Fatalf("new user = %+v", u)
	}
	pgtest.CheckedUser(t, s, "alice")
}

func TestReserveSpendsAllowanceFirstAndRefundsPurchasedFirst(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t)
	if _, err := s.GrantCredits(ctx, "bob", 5, "operator_grant", "grant:bob:1"); err != nil {
		t.Fatal(err)
	}
	id := uuid.NewString()
	res, err := s.ReserveJob(ctx, store.NewJob{ID: id, UserID: "bob",
		Spec: job.Spec{Mode: "advanced", Resolution: "original", SourceLang: "auto", TargetLang: "en"}, Pages: 6})
	if err != nil {
		t.Fatal(err)
	}
	if res.Job.CreditsReserved != 12 || res.Job.AllowanceReserved != 10 || res.Job.PurchasedReserved != 2 {
		t.Fatalf("reservation = %+v", res.Job)
	}
	u := pgtest.CheckedUser(t, s, "bob")
	if u.AllowanceCredits != 0 || u.PurchasedCredits != 3 {
		t.Fatalf("after reserve: %+v", u)
	}
	// Idempotent on the job ID.
	again, err := s.ReserveJob(ctx, store.NewJob{ID: id, UserID: "bob", Spec: job.Spec{Mode: "advanced", Resolution: "original"}, Pages: 6})
	if err != nil || again.Job.CreditsReserved != 12 {
		t.Fatalf("second reserve: %v %+v", err, again)
	}
	pgtest.CheckedUser(t, s, "bob")

	// 5 of 6 pages translated: charged ceil(5×2) = 10, refund 2, which were purchased credits.
	set, err := s.FinishJob(ctx, job.Outcome{JobID: id, Status: job.Completed, PagesDone: 5, Progress: 6, FinishedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if set.Charged != 10 || set.Refunded != 2 {
		t.Fatalf("settlement = %+v", set)
	}
	u = pgtest.CheckedUser(t, s, "bob")
	if u.AllowanceCredits != 0 || u.PurchasedCredits != 5 {
		t.Fatalf("after settle: %+v", u)
	}
	set2, err := s.FinishJob(ctx, job.Outcome{JobID: id, Status: job.Failed, PagesDone: 0, FinishedAt: time.Now()})
	if err != nil || !set2.Already || set2.Refunded != 2 {
		t.Fatalf("second settle: %v %+v", err, set2)
	}
	u = pgtest.CheckedUser(t, s, "bob")
	if u.PurchasedCredits != 5 {
		t.Fatalf("settled twice: %+v", u)
	}
	j, _ := s.GetJob(ctx, id)
	if j.Status != job.Completed || j.ExpiresAt == nil {
		t.Fatalf("job after settle: %+v", j)
	}
}

func TestInsufficientCredits(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t)
	if _, err := s.EnsureUser(ctx, "carol"); err != nil {
		t.Fatal(err)
	}
	_, err := s.ReserveJob(ctx, store.NewJob{ID: uuid.NewString(), UserID: "carol", Spec: job.Spec{Mode: "standard", Resolution: "2K"}, Pages: 6})
	if !errors.Is(err, store.ErrInsufficientCredits) {
		t.Fatalf("err = %v, want insufficient credits", err)
	}
	u := pgtest.CheckedUser(t, s, "carol")
	if u.AllowanceCredits != 10 {
		t.Fatalf("credits moved on a refused reservation: %+v", u)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t)
	pgtest.Reserve(t, s, "dan", "fast", 1)
	_, err := s.ReserveJob(ctx, store.NewJob{ID: uuid.NewString(), UserID: "dan", Spec: job.Spec{Mode: "fast", Resolution: "original"}, Pages: 1})
	if !errors.Is(err, store.ErrConcurrencyLimit) {
		t.Fatalf("err = %v, want concurrency limit (Free allows 1)", err)
	}
}

// Fifty uploads of one user at once: the balance never goes below zero, no more jobs run than the
// plan allows, and the balance equals the ledger.
func TestReserveRace(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t)
	pgtest.SetPlan(t, s, "erin", "pro")
	// Spend most of the allowance so that credits, not only concurrency, run out.
	big := uuid.NewString()
	if _, err := s.ReserveJob(ctx, store.NewJob{ID: big, UserID: "erin", Spec: job.Spec{Mode: "standard", Resolution: "4K"}, Pages: 249}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FinishJob(ctx, job.Outcome{JobID: big, Status: job.Completed, PagesDone: 249, FinishedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	// 4 credits left; each upload wants 1.
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.ReserveJob(ctx, store.NewJob{ID: uuid.NewString(), UserID: "erin", Spec: job.Spec{Mode: "standard", Resolution: "original"}, Pages: 1})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				outcomes["ok"]++
			case errors.Is(err, store.ErrInsufficientCredits):
				outcomes["402"]++
			case errors.Is(err, store.ErrConcurrencyLimit):
				outcomes["429"]++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}()
	}
	wg.Wait()
	if outcomes["ok"] != 4 || outcomes["402"] != 46 {
		t.Fatalf("outcomes = %v, want 4 reserved and 46 refused", outcomes)
	}
	u := pgtest.CheckedUser(t, s, "erin")
	if u.AllowanceCredits != 0 || u.PurchasedCredits != 0 {
		t.Fatalf("balance = %+v", u)
	}
	_ = plans.Pro
}

func TestDeleteJob(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t)
	id := pgtest.Reserve(t, s, "fay", "fast", 1)
	if _, err := s.DeleteJob(ctx, id, "mallory"); !errors.Is(err, store.ErrForbidden) {
		t.Fatalf("delete by stranger: %v", err)
	}
	if _, err := s.DeleteJob(ctx, id, "fay"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteJob(ctx, id, "fay"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := s.DeleteJob(ctx, uuid.NewString(), "fay"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown delete: %v", err)
	}
}

func TestFreePeriodRollsOver(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t)
	pgtest.Reserve(t, s, "gus", "standard", 3)
	nextMonth := s.WithClock(func() time.Time { return time.Now().AddDate(0, 1, 0) })
	u, err := nextMonth.EnsureUser(ctx, "gus")
	if err != nil {
		t.Fatal(err)
	}
	if u.AllowanceCredits != 10 || u.PagesThisPeriod != 0 || !u.PeriodEnd.After(time.Now().AddDate(0, 1, 0)) {
		t.Fatalf("after rollover: %+v", u)
	}
	// A second touch in the same new month grants nothing more.
	if u, err = nextMonth.EnsureUser(ctx, "gus"); err != nil || u.AllowanceCredits != 10 {
		t.Fatalf("second touch: %v %+v", err, u)
	}
	pgtest.CheckedUser(t, s, "gus")
}

// Settlement raced against itself (an activity retried while its first attempt still runs),
// against a delete, against new reservations and against a grant with a repeated key: the job
// is settled once, the grant applied once, nothing goes below zero, balances equal the ledger.
func TestSettlementRaces(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t)
	pgtest.SetPlan(t, s, "hal", "pro")
	jobID := pgtest.Reserve(t, s, "hal", "advanced", 10)
	var wg sync.WaitGroup
	var mu sync.Mutex
	settlements := map[bool]int{} // Already → count
	for i := 0; i < 10; i++ {
		wg.Add(3)
		go func() { // the same settlement, ten times at once: 7 of 10 pages done
			defer wg.Done()
			set, err := s.FinishJob(ctx, job.Outcome{JobID: jobID, Status: job.Completed, PagesDone: 7, Progress: 10, FinishedAt: time.Now()})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			settlements[set.Already]++
			mu.Unlock()
			if set.Charged != 14 || set.Refunded != 6 {
				t.Errorf("settlement = %+v", set)
			}
		}()
		go func() { // other uploads of the same user meanwhile
			defer wg.Done()
			pgtest.TryReserve(t, s, "hal", "standard", 1)
		}()
		go func() { // an operator's grant, retried with the same key
			defer wg.Done()
			if _, err := s.GrantCredits(ctx, "hal", 50, "operator_grant", "ticket-1"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if settlements[false] != 1 || settlements[true] != 9 {
		t.Fatalf("settlements = %v, want exactly one that settled", settlements)
	}
	u := pgtest.CheckedUser(t, s, "hal")
	if u.PurchasedCredits != 50 {
		t.Fatalf("purchased = %d: the grant applied %d times", u.PurchasedCredits, u.PurchasedCredits/50)
	}
	j, _ := s.GetJob(ctx, jobID)
	if j.CreditsCharged != 14 || j.CreditsRefunded != 6 {
		t.Fatalf("job = charged %d refunded %d", j.CreditsCharged, j.CreditsRefunded)
	}
	// A delete racing the settlement of another job: settled once, marked deleted, told so. It is
	// another user's, since the reservations above may have filled hal's concurrent-job slots.
	other := pgtest.Reserve(t, s, "ida", "fast", 2)
	var deleted bool
	wg.Add(2)
	go func() {
		defer wg.Done()
		if _, err := s.DeleteJob(ctx, other, "ida"); err != nil {
			t.Error(err)
		}
	}()
	go func() {
		defer wg.Done()
		set, err := s.FinishJob(ctx, job.Outcome{JobID: other, Status: job.Completed, PagesDone: 2, Progress: 2, FinishedAt: time.Now()})
		if err != nil {
			t.Error(err)
			return
		}
		deleted = set.Deleted
	}()
	wg.Wait()
	j, _ = s.GetJob(ctx, other)
	if j.DeletedAt == nil || j.SettledAt == nil || j.CreditsCharged != 1 {
		t.Fatalf("after delete and settle: %+v", j)
	}
	if !deleted {
		// The settlement ran first; the delete found a settled job and removes the files itself.
		t.Log("settlement won the race")
	}
	pgtest.CheckedUser(t, s, "ida")
}
