package identity_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/identity"
	"github.com/vtsproject/vts/internal/testkit/oidctest"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func newVerifier(t *testing.T, iss *oidctest.Issuer, c *clock, jwksURL string) *identity.Verifier {
	t.Helper()
	v, err := identity.New(identity.Options{Issuer: iss.URL, Audience: iss.Audience, JWKSURL: jwksURL, Client: iss.Client(), Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestVerifyAcceptsRS256AndES256(t *testing.T) {
	iss := oidctest.New(t)
	c := &clock{t: time.Now()}
	for _, jwks := range []string{"", iss.URL + "/jwks"} { // by discovery, and by a configured JWKS URL
		v := newVerifier(t, iss, c, jwks)
		for _, alg := range []string{"RS256", "ES256"} {
			tok := iss.Sign(t, alg, iss.Kid(alg), iss.Claims("user-1"))
			claims, err := v.Verify(context.Background(), tok)
			if err != nil {
				t.Fatalf("%s via %q: %v", alg, jwks, err)
			}
			if claims.Subject != "user-1" {
				t.Fatalf("subject = %q", claims.Subject)
			}
		}
	}
	// An audience array containing ours is fine too.
	v := newVerifier(t, iss, c, "")
	cl := iss.Claims("u")
	cl["aud"] = []string{"other", iss.Audience}
	if _, err := v.Verify(context.Background(), iss.Sign(t, "ES256", iss.Kid("ES256"), cl)); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyRefuses(t *testing.T) {
	iss := oidctest.New(t)
	c := &clock{t: time.Now()}
	v := newVerifier(t, iss, c, "")
	rsaKid, ecKid := iss.Kid("RS256"), iss.Kid("ES256")
	stranger, _ := rsa.GenerateKey(rand.Reader, 2048)
	strangerEC, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	with := func(edit func(map[string]any)) map[string]any {
		cl := iss.Claims("user-1")
		edit(cl)
		return cl
	}
	valid := iss.Token(t, "user-1")
	parts := strings.Split(valid, ".")
	now := time.Now().Unix()
	cases := map[string]string{
		"wrong signature":      oidctest.SignWith(t, stranger, "RS256", map[string]any{"alg": "RS256", "kid": rsaKid}, iss.Claims("user-1")),
		"wrong EC signature":   oidctest.SignWith(t, strangerEC, "ES256", map[string]any{"alg": "ES256", "kid": ecKid}, iss.Claims("user-1")),
		"RSA key, ES256 alg":   oidctest.SignWith(t, strangerEC, "ES256", map[string]any{"alg": "ES256", "kid": rsaKid}, iss.Claims("user-1")),
		"wrong audience":       iss.Sign(t, "RS256", rsaKid, with(func(c map[string]any) { c["aud"] = "someone-else" })),
		"no audience":          iss.Sign(t, "RS256", rsaKid, with(func(c map[string]any) { delete(c, "aud") })),
		"wrong issuer":         iss.Sign(t, "RS256", rsaKid, with(func(c map[string]any) { c["iss"] = "https://evil.example" })),
		"expired":              iss.Sign(t, "RS256", rsaKid, with(func(c map[string]any) { c["exp"] = now - 120 })),
		"no expiry":            iss.Sign(t, "RS256", rsaKid, with(func(c map[string]any) { delete(c, "exp") })),
		"not yet valid":        iss.Sign(t, "RS256", rsaKid, with(func(c map[string]any) { c["nbf"] = now + 600 })),
		"issued in the future": iss.Sign(t, "RS256", rsaKid, with(func(c map[string]any) { c["iat"] = now + 600 })),
		"no subject":           iss.Sign(t, "RS256", rsaKid, with(func(c map[string]any) { delete(c, "sub") })),
		"string expiry":        iss.Sign(t, "RS256", rsaKid, with(func(c map[string]any) { c["exp"] = "tomorrow" })),
		"unknown kid":          oidctest.SignWith(t, stranger, "RS256", map[string]any{"alg": "RS256", "kid": "nope"}, iss.Claims("user-1")),
		"alg none":             seg(map[string]any{"alg": "none", "kid": rsaKid}) + "." + parts[1] + ".",
		"alg HS256":            seg(map[string]any{"alg": "HS256", "kid": rsaKid}) + "." + parts[1] + "." + parts[2],
		"crit header":          oidctest.SignWith(t, stranger, "RS256", map[string]any{"alg": "RS256", "kid": rsaKid, "crit": []string{"x"}}, iss.Claims("user-1")),
		"tampered payload":     parts[0] + "." + seg(with(func(c map[string]any) { c["sub"] = "admin" })) + "." + parts[2],
		"two segments":         parts[0] + "." + parts[1],
		"garbage":              "not-a-token",
		"huge":                 strings.Repeat("a", 20000),
	}
	for name, tok := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := v.Verify(context.Background(), tok)
			if !errors.Is(err, identity.ErrInvalidToken) {
				t.Fatalf("err = %v, want ErrInvalidToken", err)
			}
			if strings.Contains(err.Error(), tok) && len(tok) > 20 {
				t.Fatalf("the error repeats the token")
			}
		})
	}
	// Small clock skew is tolerated.
	if _, err := v.Verify(context.Background(), iss.Sign(t, "RS256", rsaKid, with(func(c map[string]any) { c["exp"] = now - 20 }))); err != nil {
		t.Errorf("20 s after exp: %v", err)
	}
}

func seg(v any) string {
	b, _ := json.Marshal(v)
	return base64.RawURLEncoding.EncodeToString(b)
}

// A new signing key is picked up on its first token; unknown kids refetch the keys at most once
// per MinRefresh; a removed key stops verifying after a refresh.
func TestKeyRotation(t *testing.T) {
	iss := oidctest.New(t)
	c := &clock{t: time.Now()}
	v := newVerifier(t, iss, c, "")
	old := iss.Kid("RS256")
	if _, err := v.Verify(context.Background(), iss.Token(t, "u")); err != nil {
		t.Fatal(err)
	}
	if n := iss.JWKSFetches(); n != 1 {
		t.Fatalf("%d fetches for the first token", n)
	}
	c.add(2 * time.Minute)
	fresh := iss.AddKey(t, "RS256")
	tok := iss.Sign(t, "RS256", fresh, iss.Claims("u"))
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("token of a rotated-in key: %v", err)
	}
	if n := iss.JWKSFetches(); n != 2 {
		t.Fatalf("%d fetches after the rotation, want 2", n)
	}
	// A flood of made-up kids right after: no more fetches.
	stranger, _ := rsa.GenerateKey(rand.Reader, 2048)
	for i := 0; i < 20; i++ {
		forged := oidctest.SignWith(t, stranger, "RS256", map[string]any{"alg": "RS256", "kid": "made-up"}, iss.Claims("u"))
		if _, err := v.Verify(context.Background(), forged); !errors.Is(err, identity.ErrInvalidToken) {
			t.Fatalf("forged: %v", err)
		}
	}
	if n := iss.JWKSFetches(); n != 2 {
		t.Fatalf("%d fetches after unknown kids within MinRefresh, want 2", n)
	}
	// The old key is withdrawn: once the cache ages out, its tokens stop verifying.
	oldTok := iss.Sign(t, "RS256", old, iss.Claims("u"))
	iss.RemoveKey(old)
	c.add(2 * time.Hour)
	if _, err := v.Verify(context.Background(), oldTok); !errors.Is(err, identity.ErrInvalidToken) {
		t.Fatalf("token of a withdrawn key: %v", err)
	}
}

func TestProviderDown(t *testing.T) {
	down := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
	}))
	defer down.Close()
	iss := oidctest.New(t)
	v, err := identity.New(identity.Options{Issuer: iss.URL, Audience: iss.Audience, JWKSURL: down.URL + "/jwks", Client: down.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(context.Background(), iss.Token(t, "u")); !errors.Is(err, identity.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
}

func TestDiscoveryMustNameItsIssuer(t *testing.T) {
	liar := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": "https://elsewhere.example", "jwks_uri": "https://elsewhere.example/jwks"})
	}))
	defer liar.Close()
	v, err := identity.New(identity.Options{Issuer: liar.URL, Audience: "a", Client: liar.Client()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(context.Background(), oidctest.New(t).Token(t, "u")); !errors.Is(err, identity.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
}

func TestOptions(t *testing.T) {
	if _, err := identity.New(identity.Options{Issuer: "http://idp.example.com", Audience: "a"}); err == nil {
		t.Error("a plain-http issuer on the network was accepted")
	}
	if _, err := identity.New(identity.Options{Issuer: "https://idp.example.com"}); err == nil {
		t.Error("no audience was accepted")
	}
	if _, err := identity.New(identity.Options{Issuer: "http://127.0.0.1:8080/realms/dev", Audience: "a"}); err != nil {
		t.Errorf("a local development issuer: %v", err)
	}
	// Firebase: the audience defaults to the project, the keys to Google's JWKS.
	if _, err := identity.New(identity.Options{Issuer: identity.FirebaseIssuerPrefix + "my-project"}); err != nil {
		t.Errorf("Firebase issuer: %v", err)
	}
}

func TestAPIKeys(t *testing.T) {
	key, shown, hash := identity.NewAPIKey()
	if !identity.WellFormedAPIKey(key) || !strings.HasPrefix(key, shown) || len(shown) >= len(key)-30 {
		t.Fatalf("key %q shown %q", key, shown)
	}
	if !identity.SameHash(hash, identity.HashAPIKey(key)) || identity.SameHash(hash, identity.HashAPIKey(key+"x")) {
		t.Fatal("hash")
	}
	other, _, _ := identity.NewAPIKey()
	if other == key {
		t.Fatal("two keys alike")
	}
	for _, bad := range []string{"", identity.APIKeyPrefix, key + "A", key[:len(key)-1] + "*", strings.ToUpper(key)} {
		if identity.WellFormedAPIKey(bad) {
			t.Errorf("%q judged well formed", bad)
		}
	}
}
