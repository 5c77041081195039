package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/vtsproject/vts/internal/config"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
	"github.com/vtsproject/vts/internal/testkit/testimage"
)

// Two `vts dev` instances, each with its own database and files, share one Temporal dev server:
// each gets its own task queue, so the second instance's worker never takes the first one's job
// (which it would translate from pages it does not have, into records it does not keep), and the
// first instance's job is done by its own worker.
func TestDevInstancesDoNotShareJobs(t *testing.T) {
	t.Setenv("VTS_TASK_QUEUE", "")
	env := apitest.Start(t, apitest.Options{NoWorker: true}) // for its Temporal dev server
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	instance := func() *stack {
		dir := t.TempDir()
		cfg := config.Config{DatabaseURL: pgtest.NewDatabase(t), DataDir: dir, TaskQueue: "vts-translate",
			BlobURL:         "file://" + filepath.ToSlash(filepath.Join(dir, "blobs")) + "?create_dir=true&no_tmp_dir=true",
			TemporalAddress: env.TemporalAddress, TemporalNamespace: "default", Engine: "test", PageParallel: 2, WorkerPollers: 4}
		derived, err := devInstance(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if again, err := devInstance(ctx, cfg); err != nil || again.TaskQueue != derived.TaskQueue {
			t.Fatalf("the same instance derived %q, then %q (%v)", derived.TaskQueue, again.TaskQueue, err)
		}
		cfg = derived
		svc, err := openStack(ctx, cfg, log)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(svc.Close)
		if err := svc.Store.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		return svc
	}
	a, b := instance(), instance()
	t.Logf("task queues %s and %s", a.Config.TaskQueue, b.Config.TaskQueue)
	if a.Config.TaskQueue == b.Config.TaskQueue {
		t.Fatalf("both instances use the task queue %s", a.Config.TaskQueue)
	}

	// Each instance's reconciler is its own schedule, run on its own task queue: sharing one,
	// the last instance to start would run every instance's reconciler on its queue.
	for _, s := range []*stack{a, b} {
		if err := s.scheduleReconcile(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []*stack{a, b} {
		l := s.newLifecycle()
		h := s.Temporal.ScheduleClient().GetHandle(ctx, l.ReconcileScheduleID())
		l.Close()
		t.Cleanup(func() { _ = h.Delete(context.Background()) })
		d, err := h.Describe(ctx)
		if err != nil {
			t.Fatalf("the schedule of the instance on %s: %v", s.Config.TaskQueue, err)
		}
		if act, ok := d.Schedule.Action.(*client.ScheduleWorkflowAction); !ok || act.TaskQueue != s.Config.TaskQueue {
			t.Fatalf("the reconciler of the instance on %s is scheduled as %+v", s.Config.TaskQueue, d.Schedule.Action)
		}
	}

	// Only the second instance's worker runs at first.
	wb := b.newWorker()
	if err := wb.Start(); err != nil {
		t.Fatal(err)
	}
	defer wb.Stop()
	waitUntil(func() bool {
		resp, err := b.Temporal.DescribeTaskQueue(ctx, b.Config.TaskQueue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
		return err == nil && len(resp.Pollers) > 0
	})
	jobs := a.newLifecycle()
	defer jobs.Close()
	jobID := uuid.NewString()
	data, err := imageio.EncodeBytes(testimage.Pattern(40, 30, 1), imageio.PNG)
	if err != nil {
		t.Fatal(err)
	}
	key := job.InputKey(jobID, 0, "png")
	if err := a.Bucket.WriteAll(ctx, key, data, nil); err != nil {
		t.Fatal(err)
	}
	started := make(chan error, 1)
	go func() {
		_, err := jobs.Start(ctx, job.Upload{JobID: jobID, UserID: "dev-user",
			Spec:  job.Spec{SourceLang: "en", TargetLang: "es", Mode: "standard", Resolution: "original"},
			Pages: []job.Page{{SourceFilename: "p.png", OutputName: "p.png", InputKey: key, Format: imageio.PNG}}})
		started <- err
	}()
	// Once Temporal has the first instance's workflow, see whether anyone has taken its first task.
	waitUntil(func() bool {
		_, err := a.Temporal.DescribeWorkflowExecution(ctx, job.WorkflowID(jobID), "")
		return err == nil
	})
	if taken(t, a, jobID) {
		t.Fatal("the second instance's worker took the first instance's job")
	}
	wa := a.newWorker()
	if err := wa.Start(); err != nil {
		t.Fatal(err)
	}
	defer wa.Stop()
	if err := <-started; err != nil {
		t.Fatalf("starting the job: %v", err)
	}
	if err := a.Temporal.GetWorkflow(ctx, job.WorkflowID(jobID), "").Get(ctx, nil); err != nil {
		t.Fatalf("the job's workflow: %v", err)
	}
	if _, err := b.Store.GetJob(ctx, jobID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the second instance's database holds the first one's job: %v", err)
	}
	j, err := a.Store.GetJob(ctx, jobID)
	if err != nil || j.Status != job.Completed || j.Progress != 1 {
		t.Fatalf("the job in its own instance: %+v, %v", j, err)
	}
}

// taken reports whether a worker has started a workflow task of the job.
func taken(t *testing.T, s *stack, jobID string) bool {
	t.Helper()
	it := s.Temporal.GetWorkflowHistory(context.Background(), job.WorkflowID(jobID), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED {
			return true
		}
	}
	return false
}

// waitUntil polls cond; the test's own deadline, not a wall-clock limit here, bounds it.
func waitUntil(cond func() bool) {
	for !cond() {
		time.Sleep(50 * time.Millisecond)
	}
}
