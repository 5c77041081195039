package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/history/v1"

	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// SIGTERM to a `vts worker` process in the middle of a job: it stops polling, the pages it is
// translating finish within VTS_WORKER_STOP_GRACE and are recorded, it exits cleanly, and the
// worker that takes over finishes the job without running any page a second time.
func TestSIGTERMMidJob(t *testing.T) {
	env := apitest.Start(t, apitest.Options{NoWorker: true, Parallelism: 2})
	var logs bytes.Buffer
	w := exec.Command(os.Args[0], "worker")
	w.Env = append(os.Environ(), "VTS_TEST_RUN_MAIN=1", "DATABASE_URL="+env.DatabaseURL, "VTS_BLOB_URL="+env.BlobURL,
		"TEMPORAL_ADDRESS="+env.TemporalAddress, "VTS_TASK_QUEUE="+env.Queue, "VTS_ENGINE=test",
		"VTS_TEST_ENGINE_LATENCY=2s", "VTS_WORKER_STOP_GRACE=1h", "VTS_METRICS_ADDR=off", "OTEL_EXPORTER_OTLP_ENDPOINT=")
	w.Stdout, w.Stderr = &logs, &logs
	w.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if w.ProcessState == nil {
			_ = w.Process.Kill()
			_ = w.Wait()
		}
	}()

	resp := env.Upload([][2]string{{"userId", "sigterm-user"}},
		apitest.File{Name: "page1.png", Data: apitest.PNG(t, 40, 30, 1)},
		apitest.File{Name: "page2.png", Data: apitest.PNG(t, 40, 30, 2)})
	if resp.Status != http.StatusAccepted {
		t.Fatalf("upload: %d %s", resp.Status, resp.Body)
	}
	var accepted struct {
		JobID string `json:"jobId"`
	}
	resp.JSON(t, &accepted)
	wfID := job.WorkflowID(accepted.JobID)
	ctx := context.Background()

	// Wait until the worker process is translating both pages, then stop it.
	for {
		d, err := env.Temporal.DescribeWorkflowExecution(ctx, wfID, "")
		if err != nil {
			t.Fatal(err)
		}
		started := 0
		for _, a := range d.PendingActivities {
			if a.ActivityType.GetName() == "TranslatePage" && a.State == enums.PENDING_ACTIVITY_STATE_STARTED {
				started++
			}
		}
		if started == 2 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := w.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := w.Wait(); err != nil {
		t.Fatalf("vts worker after SIGTERM: %v\n%s", err, logs.String())
	}

	// Both pages finished in the stopping process, at their first attempt.
	completed := func() (done int, maxAttempt int32) {
		it := env.Temporal.GetWorkflowHistory(ctx, wfID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
		scheduled := map[int64]bool{}
		for it.HasNext() {
			e, err := it.Next()
			if err != nil {
				t.Fatal(err)
			}
			switch a := e.Attributes.(type) {
			case *history.HistoryEvent_ActivityTaskScheduledEventAttributes:
				scheduled[e.EventId] = a.ActivityTaskScheduledEventAttributes.ActivityType.GetName() == "TranslatePage"
			case *history.HistoryEvent_ActivityTaskStartedEventAttributes:
				if scheduled[a.ActivityTaskStartedEventAttributes.ScheduledEventId] {
					maxAttempt = max(maxAttempt, a.ActivityTaskStartedEventAttributes.Attempt)
				}
			case *history.HistoryEvent_ActivityTaskCompletedEventAttributes:
				if scheduled[a.ActivityTaskCompletedEventAttributes.ScheduledEventId] {
					done++
				}
			}
		}
		return done, maxAttempt
	}
	if done, _ := completed(); done != 2 {
		t.Fatalf("%d of 2 pages were recorded when the stopped worker exited\n%s", done, logs.String())
	}

	// The replacement finishes the job; no page ran twice.
	env.StartWorker(&testengine.Engine{})
	if err := env.Temporal.GetWorkflow(ctx, wfID, "").Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if done, attempt := completed(); done != 2 || attempt != 1 {
		t.Errorf("pages completed %d, highest attempt %d; want 2 pages at their first attempt", done, attempt)
	}
	var st struct {
		Status string `json:"status"`
	}
	env.Do(http.MethodGet, "/api/jobs/"+accepted.JobID, nil, nil).JSON(t, &st)
	if st.Status != "completed" {
		t.Errorf("job %s", st.Status)
	}
}
