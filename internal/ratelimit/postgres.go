package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Allower takes a token from key's bucket: the in-process Limiter, or Postgres, whose buckets
// every API replica shares.
type Allower interface {
	Allow(key string) (bool, time.Duration)
}

var _ Allower = (*Limiter)(nil)

// Postgres is a token-bucket limiter whose buckets live in one PostgreSQL table, so that N API
// replicas together allow the limit once, not N times. Each Allow is one statement that refills
// and takes atomically under the row's lock, on the database's clock.
//
// An in-process bucket per key stands in front of it: a request this replica alone has already
// seen too many of is refused without asking the database (the shared bucket would refuse it
// too), so that one client flooding its own key sends the database at most its burst and rate,
// and cannot exhaust the limiter's pool to make the others wait. When the database does not
// answer within Timeout, the in-process bucket decides alone: limits hold per replica rather
// than fail open (a limiter must neither take the API down with the database nor let a flood
// through because the database is busy); the error is logged.
type Postgres struct {
	pool        *pgxpool.Pool
	name        string
	rate, burst float64
	local       *Limiter
	// Timeout bounds one Allow's wait for the database (default 500 ms).
	Timeout time.Duration
	Log     *slog.Logger

	calls atomic.Uint64
}

// Schema creates the limiter table (unlogged: buckets are worth nothing after a crash, and
// skipping the WAL halves the cost of each take).
const Schema = `CREATE UNLOGGED TABLE IF NOT EXISTS rate_buckets (
	name    text NOT NULL,
	key     text NOT NULL,
	tokens  double precision NOT NULL,
	allowed boolean NOT NULL,
	updated timestamptz NOT NULL,
	PRIMARY KEY (name, key)
)`

// NewPostgres returns the limiter name (address, user: each its own buckets) allowing rate per
// second per key with bursts of burst, creating its table if needed.
func NewPostgres(ctx context.Context, pool *pgxpool.Pool, name string, rate float64, burst int, log *slog.Logger) (*Postgres, error) {
	if _, err := pool.Exec(ctx, Schema); err != nil {
		return nil, fmt.Errorf("creating the rate-limit table: %w", err)
	}
	if log == nil {
		log = slog.Default()
	}
	return &Postgres{pool: pool, name: name, rate: rate, burst: float64(max(burst, 1)), local: New(rate, burst, 0, nil),
		Timeout: 500 * time.Millisecond, Log: log}, nil
}

// take refills the bucket by the time elapsed on the database's clock, capped at the burst, and
// takes one token when there is one.
const take = `INSERT INTO rate_buckets AS b (name, key, tokens, allowed, updated) VALUES ($1, $2, $3 - 1, true, now())
ON CONFLICT (name, key) DO UPDATE SET
	tokens = CASE WHEN LEAST($3, b.tokens + EXTRACT(EPOCH FROM now() - b.updated) * $4) >= 1
		THEN LEAST($3, b.tokens + EXTRACT(EPOCH FROM now() - b.updated) * $4) - 1
		ELSE LEAST($3, b.tokens + EXTRACT(EPOCH FROM now() - b.updated) * $4) END,
	allowed = LEAST($3, b.tokens + EXTRACT(EPOCH FROM now() - b.updated) * $4) >= 1,
	updated = now()
RETURNING tokens, allowed`

// Allow takes a token from key's bucket. When none is left it returns false and how long until
// one will be.
func (p *Postgres) Allow(key string) (bool, time.Duration) {
	if ok, wait := p.local.Allow(key); !ok {
		return false, wait
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.Timeout)
	defer cancel()
	var tokens float64
	var allowed bool
	if err := p.pool.QueryRow(ctx, take, p.name, key, p.burst, p.rate).Scan(&tokens, &allowed); err != nil {
		p.Log.Warn("shared rate limit unavailable; this replica's own limit decided", "limiter", p.name, "error", err)
		return true, 0
	}
	if p.calls.Add(1)%4096 == 0 {
		go p.sweep()
	}
	if allowed {
		return true, 0
	}
	return false, time.Duration((1 - tokens) / p.rate * float64(time.Second))
}

// sweep forgets the buckets that have refilled: forgetting them changes nothing, and it bounds
// the table by the keys active within one refill time.
func (p *Postgres) sweep() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	full := time.Duration(p.burst / p.rate * float64(time.Second))
	if _, err := p.pool.Exec(ctx, `DELETE FROM rate_buckets WHERE name = $1 AND updated < now() - $2::interval`,
		p.name, fmt.Sprintf("%d milliseconds", full.Milliseconds()+1000)); err != nil {
		p.Log.Warn("sweeping rate-limit buckets", "limiter", p.name, "error", err)
	}
}

// Len is the number of buckets held for this limiter, for tests.
func (p *Postgres) Len(ctx context.Context) (int, error) {
	var n int
	err := p.pool.QueryRow(ctx, `SELECT count(*) FROM rate_buckets WHERE name = $1`, p.name).Scan(&n)
	return n, err
}
