// Package identity verifies who a request acts for: ID tokens of an OpenID Connect provider
// (Firebase or any OIDC issuer, verified against its published JWKS) and the service's own API
// keys. It knows nothing of HTTP handlers; api/ maps its errors to answers.
package identity

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

var (
	// ErrInvalidToken means the token is malformed, badly signed, expired, or not meant for us.
	// The wrapped detail is safe to log but is not shown to clients.
	ErrInvalidToken = errors.New("invalid ID token")
	// ErrUnavailable means the provider's keys could not be fetched, so no token can be checked.
	ErrUnavailable = errors.New("identity provider unavailable")
)

// FirebaseIssuerPrefix starts the issuer of every Firebase project's ID tokens.
const FirebaseIssuerPrefix = "https://securetoken.google.com/"

// firebaseJWKS is where Google publishes the keys of Firebase ID tokens.
const firebaseJWKS = "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"

// maxTokenBytes bounds a token before any decoding; real ID tokens are 1-2 KB.
const maxTokenBytes = 16 << 10

// Options configure a Verifier.
type Options struct {
	Issuer   string // exact iss of accepted tokens
	Audience string // an entry of aud; for Firebase, the project ID (the default)
	JWKSURL  string // skips discovery at {Issuer}/.well-known/openid-configuration
	Client   *http.Client
	Log      *slog.Logger
	// Leeway tolerates clock skew on exp, nbf and iat (default 1 minute).
	Leeway time.Duration
	// MinRefresh is the least time between two fetches of the keys: a flood of tokens with
	// made-up key IDs must not become a flood of requests to the provider (default 1 minute).
	MinRefresh time.Duration
	// MaxAge is how long fetched keys are used before they are fetched again (default 1 hour).
	MaxAge time.Duration
	// Now is the clock (default time.Now); tests move it.
	Now func() time.Time
}

// Claims are the checked claims of a verified token.
type Claims struct {
	Subject   string
	Issuer    string
	Audience  []string
	ExpiresAt time.Time
	Email     string
}

// Verifier checks ID tokens signed with RS256 or ES256 by one issuer.
type Verifier struct {
	opts Options

	mu        sync.Mutex // guards the fields below
	jwksURL   string
	keys      map[string]crypto.PublicKey
	fetchedAt time.Time // last successful fetch
	triedAt   time.Time // last attempt, successful or not

	fetch sync.Mutex // one fetch at a time; latecomers find its keys
}

// New checks opts and returns a Verifier. It fetches nothing yet: the service starts even while
// the provider is unreachable, and answers 503 to token holders until it is back.
func New(opts Options) (*Verifier, error) {
	opts.Issuer = strings.TrimSpace(opts.Issuer)
	if opts.Issuer == "" {
		return nil, errors.New("identity: an issuer is required")
	}
	if err := checkURL(opts.Issuer); err != nil {
		return nil, fmt.Errorf("identity: issuer: %w", err)
	}
	if project, ok := strings.CutPrefix(opts.Issuer, FirebaseIssuerPrefix); ok {
		if opts.Audience == "" {
			opts.Audience = project
		}
		if opts.JWKSURL == "" {
			opts.JWKSURL = firebaseJWKS
		}
	}
	if opts.Audience == "" {
		return nil, errors.New("identity: an audience (the client ID tokens are issued to) is required")
	}
	if opts.JWKSURL != "" {
		if err := checkURL(opts.JWKSURL); err != nil {
			return nil, fmt.Errorf("identity: JWKS URL: %w", err)
		}
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Timeout: 10 * time.Second}
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Leeway == 0 {
		opts.Leeway = time.Minute
	}
	if opts.MinRefresh == 0 {
		opts.MinRefresh = time.Minute
	}
	if opts.MaxAge == 0 {
		opts.MaxAge = time.Hour
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Verifier{opts: opts, jwksURL: opts.JWKSURL}, nil
}

// Issuer is the configured issuer, for the startup log.
func (v *Verifier) Issuer() string { return v.opts.Issuer }

// checkURL accepts https, and plain http only to this machine (a local provider in development),
// since keys fetched over a network in the clear could be replaced by anyone on the path.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	switch {
	case u.Scheme == "https" && u.Host != "":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%q must be an https URL", raw)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

type header struct {
	Alg  string          `json:"alg"`
	Kid  string          `json:"kid"`
	Crit json.RawMessage `json:"crit"`
}

type payload struct {
	Iss   string          `json:"iss"`
	Sub   string          `json:"sub"`
	Aud   json.RawMessage `json:"aud"`
	Exp   *json.Number    `json:"exp"`
	Nbf   *json.Number    `json:"nbf"`
	Iat   *json.Number    `json:"iat"`
	Email string          `json:"email"`
}

// Verify checks a compact JWS ID token: its signature by a key of the issuer's JWKS (RS256 or
// ES256 only, whatever the header asks), then iss, aud, exp, nbf and iat.
func (v *Verifier) Verify(ctx context.Context, token string) (*Claims, error) {
	if len(token) > maxTokenBytes {
		return nil, fmt.Errorf("%w: too long", ErrInvalidToken)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%w: not a compact JWS", ErrInvalidToken)
	}
	var h header
	if err := decodeSegment(parts[0], &h); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrInvalidToken, err)
	}
	if len(h.Crit) > 0 {
		return nil, fmt.Errorf("%w: unsupported critical header", ErrInvalidToken)
	}
	if h.Alg != "RS256" && h.Alg != "ES256" {
		// Never "none", never HMAC: a public key must not become a shared secret.
		return nil, fmt.Errorf("%w: algorithm %q is not accepted", ErrInvalidToken, h.Alg)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, fmt.Errorf("%w: signature encoding", ErrInvalidToken)
	}
	keys, err := v.keysFor(ctx, h.Kid)
	if err != nil {
		return nil, err
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	verified := false
	for _, k := range keys {
		if verifySignature(h.Alg, k, digest[:], sig) {
			verified = true
			break
		}
	}
	if !verified {
		return nil, fmt.Errorf("%w: bad signature", ErrInvalidToken)
	}
	var p payload
	if err := decodeSegment(parts[1], &p); err != nil {
		return nil, fmt.Errorf("%w: payload: %v", ErrInvalidToken, err)
	}
	return v.checkClaims(&p)
}

func (v *Verifier) checkClaims(p *payload) (*Claims, error) {
	now := v.opts.Now()
	leeway := v.opts.Leeway
	if p.Iss != v.opts.Issuer {
		return nil, fmt.Errorf("%w: issuer %q", ErrInvalidToken, p.Iss)
	}
	aud, err := audiences(p.Aud)
	if err != nil {
		return nil, fmt.Errorf("%w: aud: %v", ErrInvalidToken, err)
	}
	found := false
	for _, a := range aud {
		found = found || a == v.opts.Audience
	}
	if !found {
		return nil, fmt.Errorf("%w: audience %q", ErrInvalidToken, aud)
	}
	exp, err := numericDate(p.Exp)
	if err != nil || exp.IsZero() {
		return nil, fmt.Errorf("%w: exp missing or malformed", ErrInvalidToken)
	}
	if !now.Before(exp.Add(leeway)) {
		return nil, fmt.Errorf("%w: expired at %s", ErrInvalidToken, exp.UTC().Format(time.RFC3339))
	}
	nbf, err := numericDate(p.Nbf)
	if err != nil {
		return nil, fmt.Errorf("%w: nbf malformed", ErrInvalidToken)
	}
	if !nbf.IsZero() && now.Add(leeway).Before(nbf) {
		return nil, fmt.Errorf("%w: not valid before %s", ErrInvalidToken, nbf.UTC().Format(time.RFC3339))
	}
	iat, err := numericDate(p.Iat)
	if err != nil {
		return nil, fmt.Errorf("%w: iat malformed", ErrInvalidToken)
	}
	if !iat.IsZero() && now.Add(leeway).Before(iat) {
		return nil, fmt.Errorf("%w: issued in the future", ErrInvalidToken)
	}
	if p.Sub == "" || len(p.Sub) > 255 {
		return nil, fmt.Errorf("%w: sub missing or too long", ErrInvalidToken)
	}
	return &Claims{Subject: p.Sub, Issuer: p.Iss, Audience: aud, ExpiresAt: exp, Email: p.Email}, nil
}

func decodeSegment(seg string, v any) error {
	b, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return errors.New("not base64url")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return errors.New("not a JSON object")
	}
	return nil
}

func audiences(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 {
		return nil, errors.New("missing")
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("neither a string nor an array of strings")
	}
	return many, nil
}

// numericDate reads a JWT NumericDate (seconds, possibly fractional); zero when absent.
func numericDate(n *json.Number) (time.Time, error) {
	if n == nil {
		return time.Time{}, nil
	}
	f, err := n.Float64()
	if err != nil || f < 0 || f > 1e11 {
		return time.Time{}, errors.New("malformed")
	}
	return time.Unix(int64(f), 0), nil
}

func verifySignature(alg string, key crypto.PublicKey, digest, sig []byte) bool {
	switch k := key.(type) {
	case *rsa.PublicKey:
		return alg == "RS256" && rsa.VerifyPKCS1v15(k, crypto.SHA256, digest, sig) == nil
	case *ecdsa.PublicKey:
		if alg != "ES256" || k.Curve != elliptic.P256() || len(sig) != 64 {
			return false
		}
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		return ecdsa.Verify(k, digest, r, s)
	}
	return false
}

// keysFor returns the candidate keys for kid: the one key with that ID, or every key when the
// token names none. An unknown kid triggers a refresh, at most once per MinRefresh, so that a
// provider's key rotation is picked up without a restart.
func (v *Verifier) keysFor(ctx context.Context, kid string) ([]crypto.PublicKey, error) {
	now := v.opts.Now()
	v.mu.Lock()
	keys, fetchedAt, triedAt := v.keys, v.fetchedAt, v.triedAt
	v.mu.Unlock()
	stale := keys == nil || now.Sub(fetchedAt) >= v.opts.MaxAge
	missing := pick(keys, kid) == nil
	wait := v.opts.MinRefresh
	if keys == nil {
		wait = min(wait, 5*time.Second) // nothing cached yet: retry a failed first fetch sooner
	}
	if (stale || missing) && (triedAt.IsZero() || now.Sub(triedAt) >= wait) {
		if err := v.refresh(ctx, triedAt); err != nil {
			if keys == nil {
				return nil, err
			}
			// Keep verifying with the keys we have while the provider is away.
			v.opts.Log.Warn("refreshing identity provider keys failed; using the cached ones", "err", err)
		}
		v.mu.Lock()
		keys = v.keys
		v.mu.Unlock()
	}
	if keys == nil {
		return nil, fmt.Errorf("%w: its keys could not be fetched yet", ErrUnavailable)
	}
	found := pick(keys, kid)
	if found == nil {
		return nil, fmt.Errorf("%w: unknown key %q", ErrInvalidToken, kid)
	}
	return found, nil
}

func pick(keys map[string]crypto.PublicKey, kid string) []crypto.PublicKey {
	if kid != "" {
		if k, ok := keys[kid]; ok {
			return []crypto.PublicKey{k}
		}
		return nil
	}
	var all []crypto.PublicKey
	for _, k := range keys {
		all = append(all, k)
	}
	return all
}

// refresh fetches the keys unless another caller did since seenTried.
func (v *Verifier) refresh(ctx context.Context, seenTried time.Time) error {
	v.fetch.Lock()
	defer v.fetch.Unlock()
	v.mu.Lock()
	if !v.triedAt.Equal(seenTried) && v.keys != nil {
		v.mu.Unlock()
		return nil // someone fetched while we waited
	}
	v.triedAt = v.opts.Now()
	jwksURL := v.jwksURL
	v.mu.Unlock()

	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if jwksURL == "" {
		var err error
		if jwksURL, err = v.discover(ctx); err != nil {
			return err
		}
	}
	keys, err := v.fetchJWKS(ctx, jwksURL)
	if err != nil {
		return err
	}
	v.mu.Lock()
	v.jwksURL, v.keys, v.fetchedAt = jwksURL, keys, v.opts.Now()
	v.mu.Unlock()
	v.opts.Log.Info("identity provider keys fetched", "keys", len(keys), "url", jwksURL)
	return nil
}

func (v *Verifier) discover(ctx context.Context) (string, error) {
	var doc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := v.getJSON(ctx, strings.TrimSuffix(v.opts.Issuer, "/")+"/.well-known/openid-configuration", &doc); err != nil {
		return "", err
	}
	// OpenID Connect Discovery 1.0 §4.3: the document must name the issuer it was fetched for.
	if doc.Issuer != v.opts.Issuer {
		return "", fmt.Errorf("%w: discovery names issuer %q", ErrUnavailable, doc.Issuer)
	}
	if err := checkURL(doc.JWKSURI); err != nil {
		return "", fmt.Errorf("%w: jwks_uri: %v", ErrUnavailable, err)
	}
	return doc.JWKSURI, nil
}

type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

func (v *Verifier) fetchJWKS(ctx context.Context, jwksURL string) (map[string]crypto.PublicKey, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := v.getJSON(ctx, jwksURL, &set); err != nil {
		return nil, err
	}
	keys := map[string]crypto.PublicKey{}
	for i, k := range set.Keys {
		pub, err := k.publicKey()
		if err != nil {
			// One key we cannot use must not stop the others from verifying.
			v.opts.Log.Debug("skipping JWKS key", "kid", k.Kid, "err", err)
			continue
		}
		id := k.Kid
		if id == "" {
			id = fmt.Sprintf("#%d", i)
		}
		keys[id] = pub
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: the JWKS at %s has no usable RS256 or ES256 key", ErrUnavailable, jwksURL)
	}
	return keys, nil
}

func (k jwk) publicKey() (crypto.PublicKey, error) {
	if k.Use != "" && k.Use != "sig" {
		return nil, fmt.Errorf("use %q", k.Use)
	}
	switch k.Kty {
	case "RSA":
		if k.Alg != "" && k.Alg != "RS256" {
			return nil, fmt.Errorf("alg %q", k.Alg)
		}
		n, err1 := base64.RawURLEncoding.DecodeString(k.N)
		e, err2 := base64.RawURLEncoding.DecodeString(k.E)
		if err1 != nil || err2 != nil || len(e) == 0 || len(e) > 4 {
			return nil, errors.New("malformed RSA key")
		}
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		if pub.N.BitLen() < 2048 || pub.E < 3 || pub.E%2 == 0 {
			return nil, errors.New("weak RSA key")
		}
		return pub, nil
	case "EC":
		if k.Crv != "P-256" || (k.Alg != "" && k.Alg != "ES256") {
			return nil, fmt.Errorf("curve %q alg %q", k.Crv, k.Alg)
		}
		x, err1 := base64.RawURLEncoding.DecodeString(k.X)
		y, err2 := base64.RawURLEncoding.DecodeString(k.Y)
		if err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
			return nil, errors.New("malformed EC key")
		}
		// Parsing checks that the point is on the curve.
		return ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	}
	return nil, fmt.Errorf("key type %q", k.Kty)
}

func (v *Verifier) getJSON(ctx context.Context, u string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := v.opts.Client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: GET %s: %s", ErrUnavailable, u, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(out); err != nil {
		return fmt.Errorf("%w: GET %s: %v", ErrUnavailable, u, err)
	}
	return nil
}
