package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vtsproject/vts/api"
	"github.com/vtsproject/vts/internal/identity"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/testkit/oidctest"
)

func bearerHeader(cred string, h http.Header) http.Header {
	if h == nil {
		h = http.Header{}
	}
	h.Set("Authorization", "Bearer "+cred)
	return h
}

func uploadAs(env *apitest.Env, cred, user string) *apitest.Response {
	env.T.Helper()
	body, ct := apitest.Form([][2]string{{"userId", user}}, apitest.File{Name: "p.png", Data: apitest.PNG(env.T, 12, 12, 1)})
	h := http.Header{"Content-Type": {ct}}
	if cred != "" {
		h = bearerHeader(cred, h)
	}
	return env.Do("POST", "/api/translate", body, h)
}

func jsonHeader(cred string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}}
	if cred != "" {
		h = bearerHeader(cred, h)
	}
	return h
}

func expect(t *testing.T, what string, r *apitest.Response, status int, code string) {
	t.Helper()
	if r.Status != status || (code != "" && r.ErrorCode() != code) {
		t.Fatalf("%s: got %d %s, want %d %s", what, r.Status, r.Body, status, code)
	}
	if status == http.StatusUnauthorized && r.Header.Get("WWW-Authenticate") == "" {
		t.Errorf("%s: 401 without WWW-Authenticate", what)
	}
}

// With an identity provider configured, every userId must be the token's subject; the job's
// capability endpoints stay open without a credential and check one that is presented.
func TestIDTokens(t *testing.T) {
	iss := oidctest.New(t)
	v, err := identity.New(identity.Options{Issuer: iss.URL, Audience: iss.Audience, Client: iss.Client(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	env := apitest.Start(t, apitest.Options{Configure: func(s *api.Server) { s.Tokens = v }})
	alice, bob := iss.Token(t, "alice"), iss.Token(t, "bob")

	expect(t, "upload without a token", uploadAs(env, "", "alice"), 401, "authentication_required")
	expect(t, "upload with a garbage token", uploadAs(env, "garbage", "alice"), 401, "invalid_token")
	expect(t, "upload as someone else", uploadAs(env, bob, "alice"), 403, "forbidden")
	expired := iss.Claims("alice")
	expired["exp"] = time.Now().Add(-time.Hour).Unix()
	expect(t, "upload with an expired token", uploadAs(env, iss.Sign(t, "ES256", iss.Kid("ES256"), expired), "alice"), 401, "invalid_token")
	body, ct := apitest.Form([][2]string{{"userId", "alice"}}, apitest.File{Name: "p.png", Data: apitest.PNG(t, 12, 12, 1)})
	r := env.Do("POST", "/api/translate", body, http.Header{"Content-Type": {ct}, "Authorization": {"Basic YWxpY2U6eA=="}})
	expect(t, "Basic credentials", r, 401, "invalid_authorization")
	if n := env.Blobs(""); n != 0 {
		t.Fatalf("%d blobs left by refused uploads", n)
	}

	r = uploadAs(env, alice, "alice")
	expect(t, "upload as herself", r, 202, "")
	var a accepted
	r.JSON(t, &a)

	for _, path := range []string{"/api/jobs/" + a.JobID, "/api/download/" + a.JobID} {
		if r := env.Do("GET", path, nil, nil); r.Status == 401 || r.Status == 403 {
			t.Errorf("GET %s without a credential: %d (the job ID is the capability)", path, r.Status)
		}
		if r := env.Do("GET", path, nil, bearerHeader(alice, nil)); r.Status == 401 || r.Status == 403 {
			t.Errorf("GET %s with the owner's token: %d %s", path, r.Status, r.Body)
		}
		expect(t, "GET "+path+" with another user's token", env.Do("GET", path, nil, bearerHeader(bob, nil)), 403, "forbidden")
	}
	expect(t, "events with another user's token", env.Do("GET", "/api/jobs/"+a.JobID+"/events", nil, bearerHeader(bob, nil)), 403, "forbidden")

	expect(t, "account without a token", env.Do("GET", "/api/account?userId=alice", nil, nil), 401, "authentication_required")
	expect(t, "account of another", env.Do("GET", "/api/account?userId=alice", nil, bearerHeader(bob, nil)), 403, "forbidden")
	expect(t, "delete by another", env.Do("DELETE", "/api/projects/"+a.JobID, strings.NewReader(`{"userId":"alice"}`), jsonHeader(bob)), 403, "forbidden")
	expect(t, "checkout as another", env.Do("POST", "/api/checkout", strings.NewReader(`{"userId":"alice","priceId":"price_x","mode":"payment"}`), jsonHeader(bob)), 403, "forbidden")
	expect(t, "keys of another", env.Do("GET", "/api/keys?userId=alice", nil, bearerHeader(bob, nil)), 403, "forbidden")
	expect(t, "own keys", env.Do("GET", "/api/keys?userId=alice", nil, bearerHeader(alice, nil)), 200, "")
	if al, _ := env.Balance("alice"); al != 9 {
		t.Errorf("alice's allowance %d, want 9 after one page", al)
	}
}

type keyAnswer struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Prefix     string     `json:"prefix"`
	Key        string     `json:"key"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"`
}

func TestAPIKeys(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	ctx := context.Background()
	create := func(user, name, cred string) *apitest.Response {
		return env.Do("POST", "/api/keys", strings.NewReader(fmt.Sprintf(`{"userId":%q,"name":%q}`, user, name)), jsonHeader(cred))
	}
	expect(t, "a key on the Free plan", create("pro-user", "ci", ""), 403, "plan_required")
	env.SetPlan("pro-user", "pro")
	env.SetPlan("other-pro", "pro")
	expect(t, "an empty name", create("pro-user", "  ", ""), 400, "invalid_name")
	expect(t, "no userId", create("", "ci", ""), 400, "missing_user_id")

	r := create("pro-user", "ci", "")
	expect(t, "a key on Pro", r, 201, "")
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("the key's answer may be cached: %v", r.Header)
	}
	var k keyAnswer
	r.JSON(t, &k)
	if !identity.WellFormedAPIKey(k.Key) || !strings.HasPrefix(k.Key, k.Prefix) || k.Name != "ci" || k.ID == "" {
		t.Fatalf("created %+v", k)
	}
	// Only the hash is stored.
	var stored []byte
	var leaked bool
	if err := env.Store.Pool().QueryRow(ctx, `SELECT hash, EXISTS (SELECT 1 FROM api_keys WHERE name = $2 OR prefix = $2)
		FROM api_keys WHERE id = $1`, k.ID, k.Key).Scan(&stored, &leaked); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(k.Key))
	if !bytes.Equal(stored, sum[:]) || leaked {
		t.Fatal("the database holds more than the key's SHA-256")
	}
	r2 := create("other-pro", "theirs", "")
	var other keyAnswer
	r2.JSON(t, &other)

	// The list shows no key and no hash.
	r = env.Do("GET", "/api/keys?userId=pro-user", nil, nil)
	expect(t, "list", r, 200, "")
	if bytes.Contains(r.Body, []byte(k.Key)) || bytes.Contains(r.Body, []byte(`"key"`)) || bytes.Contains(r.Body, []byte("hash")) {
		t.Fatalf("the list reveals a key: %s", r.Body)
	}
	var list struct{ Keys []keyAnswer }
	r.JSON(t, &list)
	if len(list.Keys) != 1 || list.Keys[0].ID != k.ID || list.Keys[0].Prefix != k.Prefix || list.Keys[0].LastUsedAt != nil {
		t.Fatalf("list = %+v", list)
	}

	// The key authenticates its owner, and only its owner.
	r = uploadAs(env, k.Key, "pro-user")
	expect(t, "upload with the key", r, 202, "")
	var a accepted
	r.JSON(t, &a)
	expect(t, "upload with the key as another user", uploadAs(env, k.Key, "other-pro"), 403, "forbidden")
	expect(t, "job read with the owner's key", env.Do("GET", "/api/jobs/"+a.JobID, nil, bearerHeader(k.Key, nil)), 200, "")
	expect(t, "job read with another's key", env.Do("GET", "/api/jobs/"+a.JobID, nil, bearerHeader(other.Key, nil)), 403, "forbidden")
	expect(t, "a key cannot create keys", create("pro-user", "more", k.Key), 403, "api_key_not_allowed")
	r = env.Do("GET", "/api/keys?userId=pro-user", nil, nil)
	r.JSON(t, &list)
	if list.Keys[0].LastUsedAt == nil {
		t.Error("lastUsedAt not recorded")
	}

	// Unknown, malformed and revoked keys.
	unknown, _, _ := identity.NewAPIKey()
	expect(t, "an unknown key", uploadAs(env, unknown, "pro-user"), 401, "invalid_api_key")
	expect(t, "a malformed key", uploadAs(env, identity.APIKeyPrefix+"short", "pro-user"), 401, "invalid_api_key")

	// A downgrade takes effect on the next request; an upgrade back restores the key.
	env.SetPlan("pro-user", "standard")
	expect(t, "the key after a downgrade", uploadAs(env, k.Key, "pro-user"), 403, "plan_required")
	expect(t, "reading a job after a downgrade", env.Do("GET", "/api/jobs/"+a.JobID, nil, bearerHeader(k.Key, nil)), 403, "plan_required")
	env.SetPlan("pro-user", "pro")
	expect(t, "the key back on Pro", env.Do("GET", "/api/jobs/"+a.JobID, nil, bearerHeader(k.Key, nil)), 200, "")

	// Revocation: only by the owner; then the key is dead at once.
	revoke := func(id, user string) *apitest.Response {
		return env.Do("DELETE", "/api/keys/"+id, strings.NewReader(fmt.Sprintf(`{"userId":%q}`, user)), jsonHeader(""))
	}
	expect(t, "revoke another's key", revoke(k.ID, "other-pro"), 404, "key_not_found")
	expect(t, "revoke", revoke(k.ID, "pro-user"), 204, "")
	expect(t, "revoke twice", revoke(k.ID, "pro-user"), 404, "key_not_found")
	expect(t, "revoke a non-UUID", revoke("x", "pro-user"), 404, "key_not_found")
	expect(t, "a revoked key", uploadAs(env, k.Key, "pro-user"), 401, "invalid_api_key")
	expect(t, "a revoked key on a job", env.Do("GET", "/api/jobs/"+a.JobID, nil, bearerHeader(k.Key, nil)), 401, "invalid_api_key")
	r = env.Do("GET", "/api/keys?userId=pro-user", nil, nil)
	r.JSON(t, &list)
	if len(list.Keys) != 0 {
		t.Fatalf("revoked key still listed: %+v", list)
	}
	expect(t, "the other user's key still works", uploadAs(env, other.Key, "other-pro"), 202, "")
}

func TestRateLimits(t *testing.T) {
	env := apitest.Start(t, apitest.Options{NoWorker: true, Configure: func(s *api.Server) {
		s.Limits = &api.Limits{AddressRate: 0.001, AddressBurst: 5, UserRate: 0.001, UserBurst: 2}
	}})
	// Per user: the third request of one user is refused, another user is not.
	for i := 0; i < 2; i++ {
		expect(t, "account within the user's burst", env.Do("GET", "/api/account?userId=busy", nil, nil), 200, "")
	}
	r := env.Do("GET", "/api/account?userId=busy", nil, nil)
	expect(t, "account beyond the user's burst", r, 429, "rate_limited")
	if r.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	expect(t, "another user", env.Do("GET", "/api/account?userId=calm", nil, nil), 200, "")
	// Per address: five requests in all from this address so far (4 above + this one are fine).
	expect(t, "the address's fifth request", env.Do("GET", "/api/openapi.yaml", nil, nil), 200, "")
	r = env.Do("GET", "/api/openapi.yaml", nil, nil)
	expect(t, "the address's sixth request", r, 429, "rate_limited")
	if n := r.Header.Get("Retry-After"); n == "" || n == "0" {
		t.Errorf("Retry-After = %q", n)
	}
	if r := env.Do("GET", "/healthz", nil, nil); r.Status != 200 {
		t.Errorf("health checks are rate limited: %d", r.Status)
	}
}
