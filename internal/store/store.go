// Package store keeps users, credits and jobs in PostgreSQL through pgx. Every change to a credit
// balance happens in a transaction that also writes its ledger row, keyed so it happens once.
package store

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Store is the service's PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

// Errors callers branch on.
var (
	ErrNotFound            = errors.New("not found")
	ErrForbidden           = errors.New("not the owner")
	ErrInsufficientCredits = errors.New("insufficient credits")
	ErrConcurrencyLimit    = errors.New("concurrent job limit reached")
	ErrUnknownPlan         = errors.New("unknown plan")
	ErrWithdrawn           = errors.New("the upload was withdrawn before its reservation")
)

// Open connects to url and checks the connection.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parsing DATABASE_URL: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting to PostgreSQL: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("connecting to PostgreSQL at %s: %w", redactURL(url), err)
	}
	return &Store{pool: pool, now: time.Now}, nil
}

// Close releases the pool.
func (s *Store) Close() { s.pool.Close() }

// Ping checks the database answers; /readyz uses it.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// Pool exposes the pool to tests and packages that keep their own tables (billing, keys).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Migrate applies the embedded migrations not yet applied, under an advisory lock so that two
// processes starting at once do not race.
func (s *Store) Migrate(ctx context.Context) error {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return fmt.Errorf("listing migrations: %w", err)
	}
	sort.Strings(names)
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(7461001)`); err != nil {
			return fmt.Errorf("locking migrations: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return fmt.Errorf("creating schema_migrations: %w", err)
		}
		for _, name := range names {
			version := strings.TrimSuffix(strings.TrimPrefix(name, "migrations/"), ".sql")
			var done bool
			if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, version).Scan(&done); err != nil {
				return fmt.Errorf("checking migration %s: %w", version, err)
			}
			if done {
				continue
			}
			sql, err := migrationFS.ReadFile(name)
			if err != nil {
				return fmt.Errorf("reading migration %s: %w", version, err)
			}
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return fmt.Errorf("applying migration %s: %w", version, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, version); err != nil {
				return fmt.Errorf("recording migration %s: %w", version, err)
			}
		}
		return nil
	})
}

func isUniqueViolation(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505"
}

// redactURL drops the password from a connection URL so it can appear in an error.
func redactURL(u string) string {
	cfg, err := pgconn.ParseConfig(u)
	if err != nil {
		return "(unparseable URL)"
	}
	return fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
}

// WithClock returns a store on the same pool whose notion of now is clock: tests use it to cross a
// billing period without waiting a month.
func (s *Store) WithClock(clock func() time.Time) *Store {
	return &Store{pool: s.pool, now: clock}
}
