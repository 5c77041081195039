// Package pgtest gives each test package a fresh, migrated PostgreSQL database on the local server
// (DATABASE_URL's server, or 127.0.0.1:5432 as user postgres), dropped when the tests end.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
)

// AdminURL is the server the test databases are created on.
func AdminURL() string {
	if u := os.Getenv("VTS_TEST_DATABASE_URL"); u != "" {
		return u
	}
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// NewDatabase creates an empty database and returns its URL; it is dropped at cleanup.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		tb.Fatalf("PostgreSQL is needed for this test (start it with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`): %v", err)
	}
	defer admin.Close(ctx)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "vts_test_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("creating test database: %v", err)
	}
	tb.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), AdminURL())
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u, err := url.Parse(AdminURL())
	if err != nil {
		tb.Fatalf("parsing database URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// NewStore returns a migrated store on a fresh database.
func NewStore(tb testing.TB) *store.Store {
	tb.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, NewDatabase(tb))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	if err := s.Migrate(ctx); err != nil {
		tb.Fatal(fmt.Errorf("migrating: %w", err))
	}
	return s
}

// SetPlan puts the user on the plan for a month from now.
func SetPlan(tb testing.TB, s *store.Store, userID, plan string) {
	tb.Helper()
	if _, err := s.SetPlan(context.Background(), userID, plan, time.Now(), time.Now().AddDate(0, 1, 0)); err != nil {
		tb.Fatalf("putting %s on %s: %v", userID, plan, err)
	}
}

// Reserve reserves a new job of pages pages in mode, at the original resolution, for userID and
// returns its ID; a refusal fails the test.
func Reserve(tb testing.TB, s *store.Store, userID string, mode job.Mode, pages int) string {
	tb.Helper()
	id, err := reserve(s, userID, mode, pages)
	if err != nil {
		tb.Fatalf("reserving %d %s pages for %s: %v", pages, mode, userID, err)
	}
	return id
}

// TryReserve is Reserve where a refusal for credits or for the concurrency limit is an outcome,
// as in a race: it returns whether the job was reserved. Any other error fails the test.
func TryReserve(tb testing.TB, s *store.Store, userID string, mode job.Mode, pages int) (string, bool) {
	tb.Helper()
	id, err := reserve(s, userID, mode, pages)
	switch {
	case err == nil:
		return id, true
	case errors.Is(err, store.ErrInsufficientCredits), errors.Is(err, store.ErrConcurrencyLimit):
	default:
		tb.Errorf("reserving %d %s pages for %s: %v", pages, mode, userID, err)
	}
	return "", false
}

func reserve(s *store.Store, userID string, mode job.Mode, pages int) (string, error) {
	id := uuid.NewString()
	_, err := s.ReserveJob(context.Background(), store.NewJob{ID: id, UserID: userID,
		Spec: job.Spec{Mode: mode, Resolution: job.Original}, Pages: pages})
	return id, err
}

// CheckedUser reads the user and fails the test unless its balances equal its ledger's sums.
func CheckedUser(tb testing.TB, s *store.Store, userID string) *store.User {
	tb.Helper()
	ctx := context.Background()
	u, err := s.GetUser(ctx, userID)
	if err != nil {
		tb.Fatalf("reading user %s: %v", userID, err)
	}
	a, p, d, err := s.LedgerSums(ctx, userID)
	if err != nil {
		tb.Fatalf("summing %s's ledger: %v", userID, err)
	}
	if a != u.AllowanceCredits || p != u.PurchasedCredits || d != u.DebtCredits {
		tb.Fatalf("%s: balances %d/%d/%d differ from the ledger's sums %d/%d/%d", userID, u.AllowanceCredits,
			u.PurchasedCredits, u.DebtCredits, a, p, d)
	}
	return u
}

// SeedJobs adds n finished jobs of userID (who must exist) with COPY, as a table of every job
// ever run holds them: settled and completed, all but the last kept expired (their files gone),
// the last kept still in retention. It returns the IDs of the kept ones.
func SeedJobs(tb testing.TB, s *store.Store, userID string, n, kept int) []string {
	tb.Helper()
	now := time.Now()
	var ids []string
	rows := make([][]any, 0, n)
	for i := range n {
		id := uuid.New()
		created := now.Add(-time.Duration(n-i) * time.Minute)
		settled := created.Add(time.Minute)
		expires, expired := settled.Add(24*time.Hour), &settled
		if i >= n-kept {
			expires, expired = now.Add(24*time.Hour), nil
			ids = append(ids, id.String())
		}
		rows = append(rows, []any{id, userID, "completed", "standard", "original", "auto", "es", 1, 1, "free",
			int64(86400), 1, 1, 0, 1, created, settled, settled, expires, expired})
	}
	_, err := s.Pool().CopyFrom(context.Background(), pgx.Identifier{"jobs"}, []string{"id", "user_id", "status",
		"mode", "resolution", "source_lang", "target_lang", "total", "progress", "plan", "retention_seconds",
		"credits_reserved", "allowance_reserved", "purchased_reserved", "credits_charged", "created_at", "settled_at",
		"completed_at", "expires_at", "expired_at"}, pgx.CopyFromRows(rows))
	if err != nil {
		tb.Fatalf("seeding %d jobs: %v", n, err)
	}
	if _, err := s.Pool().Exec(context.Background(), `ANALYZE jobs`); err != nil {
		tb.Fatalf("analyzing jobs: %v", err)
	}
	return ids
}
