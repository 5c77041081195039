// Package ratelimit is an in-process token-bucket limiter keyed by string (a user, a key, a client
// address), with bounded memory: when it holds too many keys it forgets idle ones first.
package ratelimit

import (
	"math"
	"sync"
	"time"
)

// Limiter holds one bucket per key. The zero value is not usable; call New.
type Limiter struct {
	rate    float64 // tokens per second
	burst   float64
	maxKeys int
	now     func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// New returns a limiter allowing rate requests per second per key with bursts of burst. maxKeys
// bounds its memory (default 100,000 keys, a few MB). now is the clock (default time.Now).
func New(rate float64, burst, maxKeys int, now func() time.Time) *Limiter {
	if maxKeys <= 0 {
		maxKeys = 100_000
	}
	if now == nil {
		now = time.Now
	}
	return &Limiter{rate: rate, burst: float64(max(burst, 1)), maxKeys: maxKeys, now: now, buckets: map[string]*bucket{}}
}

// Allow takes a token from key's bucket. When none is left it returns false and how long until
// one will be.
func (l *Limiter) Allow(key string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		if len(l.buckets) >= l.maxKeys {
			l.evict(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(l.burst, b.tokens+elapsed*l.rate)
		b.last = now
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	return false, wait
}

// evict makes room: first every bucket that has refilled (forgetting it changes nothing), then,
// if the table is still nearly full, arbitrary ones. Dropping to 90% keeps the sweep's cost
// amortized over many insertions.
func (l *Limiter) evict(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
	target := l.maxKeys * 9 / 10
	for k := range l.buckets {
		if len(l.buckets) <= target {
			break
		}
		// A forgotten busy client merely gets a fresh burst: a bound on memory is worth more
		// than exactness under a flood of distinct keys.
		delete(l.buckets, k)
	}
}

// Len is the number of keys held, for tests and metrics.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
