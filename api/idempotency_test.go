package api_test

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

func uploadWithKey(env *apitest.Env, t *testing.T, user, key string, seed byte) *apitest.Response {
	body, ct := apitest.Form([][2]string{{"userId", user}}, apitest.File{Name: "p.png", Data: apitest.PNG(t, 12, 12, seed)})
	return env.Do("POST", "/api/translate", body, http.Header{"Content-Type": {ct}, "Idempotency-Key": {key}})
}

// A client that retries an upload after losing the answer gets the same job back, charged once.
func TestIdempotentUploadRetry(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	first := uploadWithKey(env, t, "retrier", "upload-1", 1)
	second := uploadWithKey(env, t, "retrier", "upload-1", 1)
	if first.Status != 202 || second.Status != 202 {
		t.Fatalf("statuses %d %s / %d %s", first.Status, first.Body, second.Status, second.Body)
	}
	var a, b accepted
	first.JSON(t, &a)
	second.JSON(t, &b)
	if a != b || second.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry got %+v (replayed=%q), first %+v", b, second.Header.Get("Idempotent-Replayed"), a)
	}
	if al, _ := env.Balance("retrier"); al != 9 {
		t.Fatalf("allowance = %d, want 9: charged once", al)
	}
	// The same key from another user is another upload.
	if r := uploadWithKey(env, t, "someone-else", "upload-1", 1); r.Status != 202 {
		t.Fatalf("other user: %d %s", r.Status, r.Body)
	} else {
		var c accepted
		r.JSON(t, &c)
		if c.JobID == a.JobID {
			t.Fatal("another user's key mapped to the first user's job")
		}
	}
	// A refused upload frees its key: after 402, the same key works once credits allow.
	waitFor(t, func() bool {
		j, err := env.Store.GetJob(context.Background(), a.JobID)
		return err == nil && j.Terminal()
	})
	body, ct := apitest.Form([][2]string{{"userId", "retrier"}, {"mode", "advanced"}, {"resolution", "4K"}},
		apitest.File{Name: "p.png", Data: apitest.PNG(t, 12, 12, 2)}, apitest.File{Name: "q.png", Data: apitest.PNG(t, 12, 12, 3)})
	if r := env.Do("POST", "/api/translate", body, http.Header{"Content-Type": {ct}, "Idempotency-Key": {"upload-2"}}); r.Status != 402 {
		t.Fatalf("expensive upload: %d %s", r.Status, r.Body)
	}
	if r := uploadWithKey(env, t, "retrier", "upload-2", 4); r.Status != 202 || r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("key after a refusal: %d %s %v", r.Status, r.Body, r.Header)
	}
	// Keys must come with userId first, and be printable.
	body, ct = apitest.Form(nil, apitest.File{Name: "p.png", Data: apitest.PNG(t, 12, 12, 5)})
	if r := env.Do("POST", "/api/translate", body, http.Header{"Content-Type": {ct}, "Idempotency-Key": {"k3"}}); r.Status != 400 || r.ErrorCode() != "user_id_first" {
		t.Fatalf("key without userId first: %d %s", r.Status, r.Body)
	}
	if r := uploadWithKey(env, t, "retrier", "has space", 6); r.Status != 400 || r.ErrorCode() != "invalid_idempotency_key" {
		t.Fatalf("bad key: %d %s", r.Status, r.Body)
	}
}

// Ten copies of one upload at once: exactly one job, one charge; every other copy either gets
// that job back or is told the first is still in progress.
func TestIdempotentUploadRace(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{}})
	var wg sync.WaitGroup
	var mu sync.Mutex
	jobs := map[string]int{}
	conflicts := 0
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := uploadWithKey(env, t, "racer", "same", 1)
			mu.Lock()
			defer mu.Unlock()
			switch r.Status {
			case 202:
				var a accepted
				r.JSON(t, &a)
				jobs[a.JobID]++
			case 409:
				if r.ErrorCode() != "idempotency_key_in_use" {
					t.Errorf("409 with %s", r.Body)
				}
				conflicts++
			default:
				t.Errorf("status %d %s", r.Status, r.Body)
			}
		}()
	}
	wg.Wait()
	if len(jobs) != 1 {
		t.Fatalf("jobs %v (and %d conflicts): want exactly one job", jobs, conflicts)
	}
	if al, _ := env.Balance("racer"); al != 9 {
		t.Fatalf("allowance = %d, want 9", al)
	}
}
