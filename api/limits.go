package api

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/vtsproject/vts/internal/ratelimit"
)

// Limits are the request-rate limits: per client address on every /api request, and per user
// (whichever credential or userId names them, so every key of a user shares it) once the request
// is authorized. A rate of zero turns a limit off.
type Limits struct {
	AddressRate  float64 // requests per second per client address (an IPv6 client by its /64)
	AddressBurst int
	UserRate     float64 // requests per second per user
	UserBurst    int
	// StreamsPerAddress bounds the progress streams (SSE) one client address holds open at once;
	// zero turns the bound off.
	StreamsPerAddress int
	// TrustedProxies are the reverse proxies whose X-Forwarded-For is believed; without them the
	// client is the TCP peer, which a client cannot forge.
	TrustedProxies []netip.Prefix
	// MaxKeys bounds the memory of each limiter (default 100,000 addresses or users).
	MaxKeys int
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Shared, when set, builds the limiters instead of the in-process ones (name is "address" or
	// "user"): buckets shared by every API replica, so that N replicas allow each limit once.
	Shared func(name string, rate float64, burst int) ratelimit.Allower
}

// DefaultLimits are generous enough for a busy office behind one NAT address and for a script
// uploading as fast as the plan's concurrency allows, and low enough to blunt a flood.
func DefaultLimits() Limits {
	return Limits{AddressRate: 50, AddressBurst: 500, UserRate: 20, UserBurst: 200, StreamsPerAddress: 64}
}

type limiters struct {
	cfg            Limits
	address, users ratelimit.Allower

	mu      sync.Mutex
	streams map[string]int // open progress streams per client address
}

// openStream takes one of r's client address's stream slots: the function it answers gives it
// back; a client at its bound is refused with 429.
func (l *limiters) openStream(r *http.Request) (func(), error) {
	if l.cfg.StreamsPerAddress <= 0 {
		return func() {}, nil
	}
	key := l.clientKey(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.streams[key] >= l.cfg.StreamsPerAddress {
		return nil, &Error{Status: http.StatusTooManyRequests, Code: "too_many_streams", RetryAfter: 5,
			Message: fmt.Sprintf("this address already holds %d open progress streams; close one, or poll GET /api/jobs/{jobId}", l.cfg.StreamsPerAddress),
			Details: map[string]any{"limit": l.cfg.StreamsPerAddress}}
	}
	l.streams[key]++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.streams[key]--; l.streams[key] <= 0 {
			delete(l.streams, key)
		}
	}, nil
}

func newLimiters(l Limits) *limiters {
	build := l.Shared
	if build == nil {
		build = func(_ string, rate float64, burst int) ratelimit.Allower {
			return ratelimit.New(rate, burst, l.MaxKeys, l.Now)
		}
	}
	out := &limiters{cfg: l, streams: map[string]int{}}
	if l.AddressRate > 0 {
		out.address = build("address", l.AddressRate, l.AddressBurst)
	}
	if l.UserRate > 0 {
		out.users = build("user", l.UserRate, l.UserBurst)
	}
	return out
}

func rateLimited(wait time.Duration) *Error {
	return &Error{Status: http.StatusTooManyRequests, Code: "rate_limited", RetryAfter: max(1, int(math.Ceil(wait.Seconds()))),
		Message: "too many requests; slow down and retry after the time in Retry-After"}
}

// limitAddress is the middleware of the per-address limit.
func (s *Server) limitAddress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.limits.address != nil {
			if ok, wait := s.limits.address.Allow(s.limits.clientKey(r)); !ok {
				writeError(w, r, s.Log, rateLimited(wait))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) limitUser(userID string) error {
	if s.limits == nil || s.limits.users == nil {
		return nil
	}
	if ok, wait := s.limits.users.Allow(userID); !ok {
		return rateLimited(wait)
	}
	return nil
}

// clientKey names the client of r for the address limit: the TCP peer, or, when the peer is a
// trusted proxy, the nearest untrusted address of X-Forwarded-For (those further left could be
// written by the client itself).
func (l *limiters) clientKey(r *http.Request) string {
	addr := parseAddr(r.RemoteAddr)
	if l.trusted(addr) {
		hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
		for i := len(hops) - 1; i >= 0; i-- {
			hop := parseAddr(strings.TrimSpace(hops[i]))
			if !hop.IsValid() {
				break
			}
			addr = hop
			if !l.trusted(hop) {
				break
			}
		}
	}
	if !addr.IsValid() {
		return r.RemoteAddr
	}
	if addr.Is6() {
		// One IPv6 subscriber holds a whole /64: counting its addresses apart would let it
		// multiply its limit at will.
		p, _ := addr.Prefix(64)
		return p.String()
	}
	return addr.String()
}

func (l *limiters) trusted(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	for _, p := range l.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func parseAddr(s string) netip.Addr {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap().WithZone("")
}
