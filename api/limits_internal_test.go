package api

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientKey(t *testing.T) {
	l := newLimiters(Limits{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	cases := []struct{ remote, xff, want string }{
		{"203.0.113.7:5000", "", "203.0.113.7"},
		{"203.0.113.7:5000", "1.2.3.4", "203.0.113.7"},                       // an untrusted peer cannot name another client
		{"10.0.0.2:5000", "198.51.100.9", "198.51.100.9"},                    // a trusted proxy can
		{"10.0.0.2:5000", "6.6.6.6, 198.51.100.9, 10.0.0.5", "198.51.100.9"}, // the nearest untrusted hop, not what the client wrote
		{"10.0.0.2:5000", "garbage", "10.0.0.2"},
		{"[2001:db8:1:2:3:4:5:6]:443", "", "2001:db8:1:2::/64"}, // one IPv6 subscriber, one bucket
		{"[::ffff:203.0.113.7]:1", "", "203.0.113.7"},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := l.clientKey(r); got != c.want {
			t.Errorf("clientKey(%s, XFF %q) = %q, want %q", c.remote, c.xff, got, c.want)
		}
	}
}
