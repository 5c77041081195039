package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/vtsproject/vts/internal/identity"
	"github.com/vtsproject/vts/internal/plans"
	"github.com/vtsproject/vts/internal/store"
)

// TokenVerifier verifies an identity provider's ID token (identity.Verifier).
type TokenVerifier interface {
	Verify(ctx context.Context, token string) (*identity.Claims, error)
}

// Auth is the service's Identity: API keys always, ID tokens when a provider is configured.
// Without a provider and without a credential, the body's userId is trusted, as the spec shows.
type Auth struct {
	Tokens TokenVerifier // nil: no identity provider
	Store  *store.Store
	Log    *slog.Logger
}

// Errors of authentication. None of them says more than the client already knows.
var (
	errAuthRequired = newError(http.StatusUnauthorized, "authentication_required",
		"send an ID token or an API key as Authorization: Bearer <credential>")
	errBadAuthorization = newError(http.StatusUnauthorized, "invalid_authorization",
		"the Authorization header must be one Bearer credential")
	errInvalidToken = newError(http.StatusUnauthorized, "invalid_token",
		"the ID token is invalid or expired; sign in again")
	errNoProvider = newError(http.StatusUnauthorized, "invalid_token",
		"this deployment has no identity provider and verifies no ID tokens; send an API key or no Authorization header")
	errInvalidKey   = newError(http.StatusUnauthorized, "invalid_api_key", "the API key is unknown or revoked")
	errPlanRequired = newError(http.StatusForbidden, "plan_required",
		fmt.Sprintf("API access requires the %s plan", plans.Pro.Name))
	errOtherUser    = newError(http.StatusForbidden, "forbidden", "the credential belongs to another user")
	errIdentityDown = &Error{Status: http.StatusServiceUnavailable, Code: "identity_unavailable",
		Message: "the identity provider cannot be reached to check the token; try again shortly", RetryAfter: 10}
)

// touchEvery is how stale a key's last_used_at may get before a use rewrites it.
const touchEvery = time.Minute

// bearer returns the request's bearer credential: "" when it sends none, an error when its
// Authorization header is not exactly one Bearer credential.
func bearer(r *http.Request) (string, error) {
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		return "", nil
	}
	scheme, cred, ok := strings.Cut(values[0], " ")
	cred = strings.TrimSpace(cred)
	if len(values) != 1 || !ok || !strings.EqualFold(scheme, "Bearer") || cred == "" || strings.ContainsAny(cred, " \t") {
		return "", errBadAuthorization
	}
	return cred, nil
}

// Authorize checks that the request's credential, if any, is userID's; one is required when an
// identity provider is configured.
func (a *Auth) Authorize(r *http.Request, userID string) error {
	key, claims, err := a.verify(r)
	switch {
	case err != nil:
		return err
	case key != nil:
		return a.authorizeKey(r.Context(), key, userID)
	case claims != nil && claims.Subject != userID:
		return errOtherUser
	}
	return nil
}

// Authenticate checks the request's credential on its own, before anything names the user: a
// malformed Authorization header, an unknown or revoked API key, an invalid ID token, or no
// credential where one is required is refused whoever the request claims to be, so an upload
// carrying one is refused before its body is read. Authorize still checks whose it is.
func (a *Auth) Authenticate(r *http.Request) error {
	_, _, err := a.verify(r)
	return err
}

// verify checks the request's credential: it returns the API key's owner or the ID token's
// claims, or neither where the request carries no credential and none is required.
func (a *Auth) verify(r *http.Request) (*store.KeyOwner, *identity.Claims, error) {
	cred, err := bearer(r)
	switch {
	case err != nil:
		return nil, nil, err
	case cred == "" && a.Tokens == nil:
		return nil, nil, nil
	case cred == "":
		return nil, nil, errAuthRequired
	case identity.LooksLikeAPIKey(cred):
		k, err := a.apiKey(r.Context(), cred)
		return k, nil, err
	case a.Tokens == nil:
		return nil, nil, errNoProvider
	}
	claims, err := a.Tokens.Verify(r.Context(), cred)
	if err != nil {
		if errors.Is(err, identity.ErrUnavailable) {
			a.log().WarnContext(r.Context(), "identity provider unavailable", "err", err)
			return nil, nil, errIdentityDown
		}
		a.log().DebugContext(r.Context(), "ID token refused", "err", err)
		return nil, nil, errInvalidToken
	}
	return nil, claims, nil
}

// apiKey finds a usable API key: known, not revoked, its owner on a plan with API access.
func (a *Auth) apiKey(ctx context.Context, key string) (*store.KeyOwner, error) {
	if !identity.WellFormedAPIKey(key) {
		return nil, errInvalidKey
	}
	hash := identity.HashAPIKey(key)
	k, err := a.Store.APIKeyByHash(ctx, hash)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errInvalidKey
	}
	if err != nil {
		return nil, err
	}
	// The lookup matched on the hash already; comparing again in constant time keeps the answer
	// independent of how the database compared.
	if !identity.SameHash(hash, k.Hash) {
		return nil, errInvalidKey
	}
	if p, ok := plans.Lookup(k.Plan); !ok || !p.APIAccess {
		return nil, errPlanRequired
	}
	return k, nil
}

// authorizeKey checks that the usable key k is userID's, and records its use.
func (a *Auth) authorizeKey(ctx context.Context, k *store.KeyOwner, userID string) error {
	if k.UserID != userID {
		return errOtherUser
	}
	if k.LastUsedAt == nil || time.Since(*k.LastUsedAt) >= touchEvery {
		if err := a.Store.TouchAPIKey(ctx, k.KeyID); err != nil {
			a.log().WarnContext(ctx, "recording API key use failed", "key", k.KeyID, "err", err)
		}
	}
	return nil
}

func (a *Auth) log() *slog.Logger {
	if a.Log == nil {
		return slog.Default()
	}
	return a.Log
}

// authorize runs the Identity check for userID and then the user's rate limit.
func (s *Server) authorize(r *http.Request, userID string) error {
	if err := s.Identity.Authorize(r, userID); err != nil {
		return err
	}
	return s.limitUser(userID)
}

// authorizeViewer guards the endpoints reachable by job ID alone (the ID is the capability): a
// request that presents no credential passes, one that presents a credential must be the owner's.
func (s *Server) authorizeViewer(r *http.Request, ownerID string) error {
	if len(r.Header.Values("Authorization")) == 0 {
		return nil
	}
	return s.authorize(r, ownerID)
}
