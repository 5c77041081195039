package ratelimit_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/vtsproject/vts/internal/ratelimit"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func pool(tb testing.TB, url string) *pgxpool.Pool {
	tb.Helper()
	p, err := pgxpool.New(context.Background(), url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	return p
}

// Two API replicas, each with its own pool on the same database, share one bucket per key: their
// requests together get the burst once, not once each.
func TestPostgresBucketsAreShared(t *testing.T) {
	url := pgtest.NewDatabase(t)
	ctx := context.Background()
	var replicas []*ratelimit.Postgres
	for i := 0; i < 2; i++ {
		l, err := ratelimit.NewPostgres(ctx, pool(t, url), "address", 0.001, 5, quiet())
		if err != nil {
			t.Fatal(err)
		}
		replicas = append(replicas, l)
	}
	allowed := 0
	var lastWait time.Duration
	for i := 0; i < 12; i++ {
		ok, wait := replicas[i%2].Allow("203.0.113.7")
		if ok {
			allowed++
		} else {
			lastWait = wait
		}
	}
	if allowed != 5 {
		t.Errorf("two replicas allowed %d requests of a burst of 5", allowed)
	}
	// At 0.001 tokens/s the next token is about 1000 s away.
	if lastWait < 990*time.Second || lastWait > 1000*time.Second {
		t.Errorf("wait = %v, want about 1000 s", lastWait)
	}
	// Another key, and the same key under another limiter, have buckets of their own.
	if ok, _ := replicas[0].Allow("198.51.100.1"); !ok {
		t.Error("another address was refused")
	}
	users, err := ratelimit.NewPostgres(ctx, pool(t, url), "user", 0.001, 1, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := users.Allow("203.0.113.7"); !ok {
		t.Error("the user limiter shares the address limiter's bucket")
	}
	if n, err := replicas[1].Len(ctx); err != nil || n != 2 {
		t.Errorf("address buckets = %d, %v; want 2", n, err)
	}
}

// Concurrent takes from many goroutines never hand out more than the burst.
func TestPostgresConcurrentTakes(t *testing.T) {
	url := pgtest.NewDatabase(t)
	l, err := ratelimit.NewPostgres(context.Background(), pool(t, url), "user", 0.001, 20, quiet())
	if err != nil {
		t.Fatal(err)
	}
	var allowed atomic.Int64
	done := make(chan struct{})
	for g := 0; g < 8; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 10; i++ {
				if ok, _ := l.Allow("u1"); ok {
					allowed.Add(1)
				}
			}
		}()
	}
	for g := 0; g < 8; g++ {
		<-done
	}
	if allowed.Load() != 20 {
		t.Errorf("80 concurrent requests got %d tokens of a burst of 20", allowed.Load())
	}
}

// A database that does not answer leaves each replica its own limit: requests within it pass
// (the limiter must not take the API down), the ones beyond it are refused (nor let a flood through).
func TestPostgresFallsBackToLocalLimits(t *testing.T) {
	url := pgtest.NewDatabase(t)
	p, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ratelimit.NewPostgres(context.Background(), p, "address", 0.001, 2, quiet())
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	for i := 0; i < 2; i++ {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatal("refused within the burst while the database is away")
		}
	}
	if ok, wait := l.Allow("a"); ok || wait <= 0 {
		t.Fatalf("beyond the burst while the database is away: allowed %v, wait %v", ok, wait)
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("another key was refused while the database is away")
	}
}

// One client floods its own key with more concurrent requests than the limiter's pool can serve
// within its timeout: it still gets its burst and no more, and another client's request made
// during the flood is answered by the shared bucket, not by a timeout.
func TestPostgresFloodOnOneKey(t *testing.T) {
	url := pgtest.NewDatabase(t)
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	pc.MaxConns = 2
	p, err := pgxpool.NewWithConfig(context.Background(), pc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	l, err := ratelimit.NewPostgres(context.Background(), p, "address", 0.001, 5, quiet())
	if err != nil {
		t.Fatal(err)
	}
	l.Timeout = 50 * time.Millisecond
	const flood = 2000
	var allowed atomic.Int64
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range flood {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if ok, _ := l.Allow("203.0.113.66"); ok {
				allowed.Add(1)
			}
		}()
	}
	close(start)
	bystander, _ := l.Allow("198.51.100.9")
	wg.Wait()
	if allowed.Load() != 5 {
		t.Errorf("a flood of %d requests on one key got %d through a burst of 5", flood, allowed.Load())
	}
	if !bystander {
		t.Error("another client was refused during the flood")
	}
	// Both keys' buckets are in the shared table: the flood's burst and the bystander went
	// through the database.
	if n, err := l.Len(context.Background()); err != nil || n != 2 {
		t.Errorf("shared buckets = %d, %v; want 2", n, err)
	}
}

// BenchmarkLimitedRequests measures requests per second through an HTTP handler guarded by a
// per-address limit (limits high enough that every request passes, 64 client addresses): with no
// limiter (the baseline), the in-process limiter, and the PostgreSQL one. docs/BENCHMARKS.md
// records the ratios.
func BenchmarkLimitedRequests(b *testing.B) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	guard := func(l ratelimit.Allower) http.Handler {
		if l == nil {
			return ok
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if allowed, _ := l.Allow(r.RemoteAddr); !allowed {
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			ok.ServeHTTP(w, r)
		})
	}
	url := pgtest.NewDatabase(b)
	pg, err := ratelimit.NewPostgres(context.Background(), pool(b, url), "address", 1e9, 1<<30, quiet())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		l    ratelimit.Allower
	}{{"none", nil}, {"memory", ratelimit.New(1e9, 1<<30, 0, nil)}, {"postgres", pg}} {
		h := guard(c.l)
		b.Run(c.name, func(b *testing.B) {
			var client atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				addr := fmt.Sprintf("192.0.2.%d:1234", client.Add(1)%64)
				for pb.Next() {
					req := httptest.NewRequest(http.MethodGet, "/api/jobs/x", nil)
					req.RemoteAddr = addr
					w := httptest.NewRecorder()
					h.ServeHTTP(w, req)
					if w.Code != http.StatusNoContent {
						b.Fatalf("status %d", w.Code)
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}
