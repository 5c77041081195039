package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// A job named by another spelling of its ID (upper case, as Swift's UUID.uuidString gives, or
// without hyphens) is the same job: deleting it removes its files and cancels it when it runs, so
// it is charged only for what it translated.
func TestDeleteByAnotherSpelling(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{BlockSubstring: "slow"}})
	del := func(id, user string) {
		t.Helper()
		r := env.Do("DELETE", "/api/projects/"+id, strings.NewReader(`{"userId":"`+user+`"}`), http.Header{"Content-Type": {"application/json"}})
		if r.Status != http.StatusNoContent {
			t.Fatalf("delete %s: %d %s", id, r.Status, r.Body)
		}
	}
	done := upload(t, env, "upper", 1)
	if last := finished(t, env, done.JobID); last.Status != "completed" {
		t.Fatalf("job ended %+v", last)
	}
	if r := env.Do("GET", "/api/jobs/"+strings.ToUpper(done.JobID), nil, nil); r.Status != http.StatusOK || !strings.Contains(string(r.Body), done.JobID) {
		t.Errorf("GET by upper case: %d %s", r.Status, r.Body)
	}
	del(strings.ToUpper(done.JobID), "upper")
	if n := env.Blobs(done.JobID); n != 0 {
		t.Errorf("%d blobs left after a delete by the upper-case ID", n)
	}

	resp := env.Upload([][2]string{{"userId", "bare"}}, apitest.File{Name: "slow.png", Data: apitest.PNG(t, 10, 10, 1)})
	var running accepted
	resp.JSON(t, &running)
	del(strings.ReplaceAll(running.JobID, "-", ""), "bare")
	// Cancelled: it settles with nothing translated, refunds its credit and loses its files. Left
	// running, the blocked page would never settle.
	waitFor(t, func() bool {
		j, err := env.Store.GetJob(context.Background(), running.JobID)
		return err == nil && j.SettledAt != nil && env.Blobs(running.JobID) == 0
	})
	if al, _ := env.Balance("bare"); al != 10 {
		t.Errorf("allowance after deleting the running job by its bare ID = %d, want 10", al)
	}
}
