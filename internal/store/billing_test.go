package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

func TestStripeEventsOnceAndLookups(t *testing.T) {
	ctx := context.Background()
	s := pgtest.NewStore(t)
	ev := store.StripeEvent{ID: "evt_1", Type: "invoice.paid", Created: time.Now(), ObjectID: "in_1"}
	for i, want := range []bool{true, false} {
		err := s.LockUser(ctx, "ida", func(tx pgx.Tx, u *store.User) error {
			ev.UserID = u.ID
			fresh, err := s.RecordStripeEvent(ctx, tx, ev)
			if err != nil {
				return err
			}
			if fresh != want {
				t.Errorf("delivery %d: fresh = %v, want %v", i+1, fresh, want)
			}
			if err := s.LinkStripeCustomer(ctx, tx, u, "cus_ida"); err != nil {
				return err
			}
			// A user keeps its first customer.
			if err := s.LinkStripeCustomer(ctx, tx, u, "cus_other"); err != nil {
				return err
			}
			// Refund rows of ch_a_1 must not count toward ch_a1's (LIKE's _ is escaped).
			if _, err := s.Apply(ctx, tx, u, store.LedgerEntry{Key: "stripe_refund:ch_a_1:100", Reason: "t", PurchasedDelta: -3}); err != nil {
				return err
			}
			taken, err := s.PurchasedTaken(ctx, tx, "stripe_refund:ch_a1:")
			if err != nil || taken != 0 {
				t.Errorf("taken by ch_a1 = %d, %v", taken, err)
			}
			taken, err = s.PurchasedTaken(ctx, tx, "stripe_refund:ch_a_1:")
			if err != nil || taken != 3 {
				t.Errorf("taken by ch_a_1 = %d, %v (all of it debt)", taken, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := s.StripeEventApplied(ctx, "evt_1"); err != nil || !ok {
		t.Fatalf("applied = %v, %v", ok, err)
	}
	if id, err := s.UserIDByStripeCustomer(ctx, "cus_ida"); err != nil || id != "ida" {
		t.Fatalf("by customer = %q, %v", id, err)
	}
	if _, err := s.UserIDByStripeCustomer(ctx, "cus_other"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second customer linked: %v", err)
	}
	if _, err := s.UserIDByStripeSubscription(ctx, "sub_none"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown subscription: %v", err)
	}
	pgtest.CheckedUser(t, s, "ida")
}
