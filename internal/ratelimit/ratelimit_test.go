package ratelimit

import (
	"fmt"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestBurstThenRate(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	l := New(2, 3, 0, c.now)
	for i := 0; i < 3; i++ {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatalf("request %d of the burst refused", i)
		}
	}
	ok, wait := l.Allow("a")
	if ok || wait != 500*time.Millisecond {
		t.Fatalf("after the burst: %v, wait %v", ok, wait)
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Fatal("another key shares the bucket")
	}
	c.t = c.t.Add(500 * time.Millisecond)
	if ok, _ := l.Allow("a"); !ok {
		t.Fatal("no token after the wait")
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("two tokens after half a second at 2/s")
	}
	c.t = c.t.Add(time.Hour)
	for i := 0; i < 3; i++ {
		if ok, _ := l.Allow("a"); !ok {
			t.Fatal("the bucket did not refill to its burst")
		}
	}
	if ok, _ := l.Allow("a"); ok {
		t.Fatal("the bucket refilled beyond its burst")
	}
}

func TestMemoryIsBounded(t *testing.T) {
	c := &clock{t: time.Unix(1000, 0)}
	l := New(1, 5, 100, c.now)
	for i := 0; i < 10_000; i++ {
		l.Allow(fmt.Sprint("k", i))
		if l.Len() > 100 {
			t.Fatalf("%d keys held, bound 100", l.Len())
		}
	}
	// Idle buckets go first: a key that is still empty survives a sweep of refilled ones.
	l = New(1, 5, 10, c.now)
	for i := 0; i < 5; i++ {
		l.Allow("busy")
	}
	for i := 0; i < 9; i++ {
		l.Allow(fmt.Sprint("idle", i))
	}
	c.t = c.t.Add(time.Second) // each idle key is full again (4+1); busy holds 1 token
	l.Allow("new")             // the table is full: a sweep
	if l.Len() != 2 {
		t.Fatalf("%d keys after the sweep, want busy and new", l.Len())
	}
	if ok, _ := l.Allow("busy"); !ok {
		t.Fatal("busy lost its refilled token")
	}
	if ok, _ := l.Allow("busy"); ok {
		t.Fatal("the busy key was forgotten (and got a fresh burst) while idle ones were kept")
	}
}
