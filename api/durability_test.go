package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/apitest"
	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/store"
)

// The worker goes away in the middle of a job, as in a crash or a deploy; another one takes
// over. The job completes with every page, and the credits are charged once.
func TestJobSurvivesWorkerRestart(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{Latency: 300 * time.Millisecond}, Parallelism: 2})
	a := upload(t, env, "survivor", 6)
	ctx := context.Background()
	// Wait until the job is under way, then take the worker away.
	waitFor(t, func() bool { return env.Blobs(a.JobID) > 6 }) // inputs plus at least one output
	env.StopWorker()
	stopped, err := env.Store.GetJob(ctx, a.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if stopped.Terminal() {
		t.Fatal("the job finished before the worker stopped; the test proves nothing")
	}
	env.StartWorker(&testengine.Engine{})
	waitFor(t, func() bool {
		j, err := env.Store.GetJob(ctx, a.JobID)
		return err == nil && j.Terminal()
	})
	j, _ := env.Store.GetJob(ctx, a.JobID)
	if j.Status != store.StatusCompleted || len(j.Results) != 6 || len(j.Errors) != 0 {
		t.Fatalf("after the restart: status %s, %d results, errors %v", j.Status, len(j.Results), j.Errors)
	}
	if j.CreditsCharged != 6 || j.CreditsRefunded != 0 {
		t.Fatalf("charged %d, refunded %d", j.CreditsCharged, j.CreditsRefunded)
	}
	if al, _ := env.Balance("survivor"); al != 4 {
		t.Fatalf("allowance = %d, want 4", al)
	}
	ledger, _ := env.Store.Ledger(ctx, "survivor")
	reserves := 0
	for _, l := range ledger {
		if l.JobID == a.JobID {
			reserves++
		}
	}
	if reserves != 1 {
		t.Fatalf("%d ledger rows for the job, want exactly its reservation", reserves)
	}
}
