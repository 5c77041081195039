// Package oidctest is a local OpenID Connect issuer for tests: it serves discovery and a JWKS
// over TLS and signs ID tokens with keys it generates, which tests can rotate.
package oidctest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Issuer is a running test issuer.
type Issuer struct {
	URL      string
	Audience string
	server   *httptest.Server

	mu      sync.Mutex
	keys    map[string]crypto.Signer // kid → private key, as published
	serial  int
	fetches atomic.Int64
}

// New starts an issuer with one RSA and one P-256 key; it stops at cleanup.
func New(t testing.TB) *Issuer {
	t.Helper()
	iss := &Issuer{Audience: "vts-test-client", keys: map[string]crypto.Signer{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]string{"issuer": iss.URL, "jwks_uri": iss.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		iss.fetches.Add(1)
		writeJSON(w, iss.jwks())
	})
	iss.server = httptest.NewTLSServer(mux)
	t.Cleanup(iss.server.Close)
	iss.URL = iss.server.URL
	iss.AddKey(t, "RS256")
	iss.AddKey(t, "ES256")
	return iss
}

// Client trusts the issuer's certificate.
func (i *Issuer) Client() *http.Client { return i.server.Client() }

// JWKSFetches counts requests for the key set.
func (i *Issuer) JWKSFetches() int { return int(i.fetches.Load()) }

// AddKey publishes a new key for alg and returns its kid.
func (i *Issuer) AddKey(t testing.TB, alg string) string {
	t.Helper()
	var k crypto.Signer
	var err error
	switch alg {
	case "RS256":
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	case "ES256":
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		t.Fatalf("oidctest: unsupported alg %s", alg)
	}
	if err != nil {
		t.Fatal(err)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	i.serial++
	kid := fmt.Sprintf("%s-%d", alg, i.serial)
	i.keys[kid] = k
	return kid
}

// RemoveKey stops publishing kid (its tokens stop verifying once the verifier refreshes).
func (i *Issuer) RemoveKey(kid string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	delete(i.keys, kid)
}

// Kid returns a published key ID for alg.
func (i *Issuer) Kid(alg string) string {
	i.mu.Lock()
	defer i.mu.Unlock()
	best := ""
	for kid := range i.keys {
		if len(kid) > len(alg) && kid[:len(alg)] == alg && kid > best {
			best = kid
		}
	}
	return best
}

// Claims returns valid claims for sub: this issuer, its audience, issued now, valid an hour.
func (i *Issuer) Claims(sub string) map[string]any {
	now := time.Now().Unix()
	return map[string]any{"iss": i.URL, "aud": i.Audience, "sub": sub, "iat": now, "exp": now + 3600}
}

// Token signs claims with the newest RS256 key.
func (i *Issuer) Token(t testing.TB, sub string) string {
	return i.Sign(t, "RS256", i.Kid("RS256"), i.Claims(sub))
}

// Sign signs claims with key kid as alg; kid may name a removed key only if it was never
// published, in which case Sign fails the test.
func (i *Issuer) Sign(t testing.TB, alg, kid string, claims map[string]any) string {
	t.Helper()
	i.mu.Lock()
	k, ok := i.keys[kid]
	i.mu.Unlock()
	if !ok {
		t.Fatalf("oidctest: no key %q", kid)
	}
	return SignWith(t, k, alg, map[string]any{"alg": alg, "kid": kid, "typ": "JWT"}, claims)
}

// SignWith signs claims with any key and header, for forged tokens.
func SignWith(t testing.TB, k crypto.Signer, alg string, header, claims map[string]any) string {
	t.Helper()
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	input := b64(h) + "." + b64(c)
	digest := sha256.Sum256([]byte(input))
	var sig []byte
	var err error
	switch key := k.(type) {
	case *rsa.PrivateKey:
		sig, err = rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, digest[:])
	case *ecdsa.PrivateKey:
		var r, s *big.Int
		r, s, err = ecdsa.Sign(rand.Reader, key, digest[:])
		if err == nil {
			sig = make([]byte, 64)
			r.FillBytes(sig[:32])
			s.FillBytes(sig[32:])
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	_ = alg
	return input + "." + b64(sig)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func (i *Issuer) jwks() map[string]any {
	i.mu.Lock()
	defer i.mu.Unlock()
	keys := []map[string]string{}
	for kid, k := range i.keys {
		switch key := k.(type) {
		case *rsa.PrivateKey:
			keys = append(keys, map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
				"n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes())})
		case *ecdsa.PrivateKey:
			pub, _ := key.PublicKey.Bytes() // 0x04 || X || Y
			keys = append(keys, map[string]string{"kty": "EC", "kid": kid, "use": "sig", "alg": "ES256", "crv": "P-256",
				"x": b64(pub[1:33]), "y": b64(pub[33:65])})
		}
	}
	return map[string]any{"keys": keys}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
