package api_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
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
	j := terminal(t, env, a.JobID)
	if j.Status != job.Completed || len(j.Results) != 6 || len(j.Errors) != 0 {
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

// A worker whose activity slots are all taken by long page translations still accepts uploads:
// the reservation the upload waits on does not queue behind pages.
func TestUploadAcceptedWhileWorkerIsBusy(t *testing.T) {
	eng := &testengine.Engine{BlockSubstring: "slow"}
	env := apitest.Start(t, apitest.Options{Engine: eng, Parallelism: 8})
	env.SetPlan("busy", "pro")
	var files []apitest.File
	for i := 0; i < 8; i++ { // as many as the worker runs at once
		files = append(files, apitest.File{Name: fmt.Sprintf("slow%d.png", i), Data: apitest.PNG(t, 10, 10, byte(i))})
	}
	if r := env.Upload([][2]string{{"userId", "busy"}}, files...); r.Status != 202 {
		t.Fatalf("first upload: %d %s", r.Status, r.Body)
	}
	waitFor(t, func() bool { return eng.Calls() == 8 }) // every slot is translating
	r := env.Upload([][2]string{{"userId", "busy"}}, apitest.File{Name: "next.png", Data: apitest.PNG(t, 10, 10, 9)})
	if r.Status != 202 {
		t.Fatalf("upload while the worker is busy: %d %s", r.Status, r.Body)
	}
}
