// Package pgtest gives each test package a fresh, migrated PostgreSQL database on the local server
// (DATABASE_URL's server, or 127.0.0.1:5432 as user postgres), dropped when the tests end.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

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
