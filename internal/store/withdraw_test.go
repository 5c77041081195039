package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

// An upload that gave up on its start withdraws while its reservation may be arriving (issue 18,
// item 7). Raced 40 times, each pair ends one way only: the reservation came first and the
// withdrawal returns that job (the client is given it), or the withdrawal came first and the
// reservation, then and later, is refused without taking a credit.
func TestWithdrawRacesReservation(t *testing.T) {
	s := pgtest.NewStore(t)
	ctx := context.Background()
	type outcome struct {
		reserved  *store.Reservation
		reserveEr error
		withdrawn *store.Job
		withEr    error
	}
	out := make([]outcome, 40)
	ids := make([]string, len(out))
	var wg sync.WaitGroup
	for i := range out {
		ids[i] = uuid.NewString()
		user := fmt.Sprintf("racer%d", i)
		if _, err := s.EnsureUser(ctx, user); err != nil {
			t.Fatal(err)
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			out[i].reserved, out[i].reserveEr = s.ReserveJob(ctx, store.NewJob{ID: ids[i], UserID: user,
				Spec: job.Spec{Mode: "standard", Resolution: "original"}, Pages: 3})
		}()
		go func() {
			defer wg.Done()
			out[i].withdrawn, out[i].withEr = s.WithdrawJob(ctx, user, ids[i])
		}()
	}
	wg.Wait()
	won := 0
	for i, o := range out {
		user := fmt.Sprintf("racer%d", i)
		if o.withEr != nil {
			t.Fatalf("withdraw %d: %v", i, o.withEr)
		}
		u, err := s.GetUser(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		if o.withdrawn != nil { // the reservation came first
			won++
			if o.reserveEr != nil || o.reserved.Job.ID != ids[i] || o.withdrawn.ID != ids[i] || u.Available() != 10-3 {
				t.Fatalf("pair %d: reserved %v, withdrawal returned %v, available %d", i, o.reserveEr, o.withdrawn.ID, u.Available())
			}
			continue
		}
		if !errors.Is(o.reserveEr, store.ErrWithdrawn) || u.Available() != 10 {
			t.Fatalf("pair %d: withdrawn first, but the reservation answered %v; available %d", i, o.reserveEr, u.Available())
		}
		if _, err := s.ReserveJob(ctx, store.NewJob{ID: ids[i], UserID: user,
			Spec: job.Spec{Mode: "standard", Resolution: "original"}, Pages: 3}); !errors.Is(err, store.ErrWithdrawn) {
			t.Fatalf("pair %d: a later reservation of a withdrawn upload answered %v", i, err)
		}
	}
	t.Logf("%d of %d reservations came first", won, len(out))
}
