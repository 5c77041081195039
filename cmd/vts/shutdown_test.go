package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/history/v1"

	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// startVTS runs this test binary as `vts <command>` on env's database, bucket, Temporal server
// and task queue with the test engine, plus the extra environment; its output goes to logs. It is
// killed when the test ends if it has not exited by then.
func startVTS(t *testing.T, env *apitest.Env, logs *bytes.Buffer, command string, extra ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], command)
	cmd.Env = append(append(os.Environ(), "VTS_TEST_RUN_MAIN=1", "DATABASE_URL="+env.DatabaseURL, "VTS_BLOB_URL="+env.BlobURL,
		"TEMPORAL_ADDRESS="+env.TemporalAddress, "VTS_TASK_QUEUE="+env.Queue, "VTS_ENGINE=test", "VTS_METRICS_ADDR=off",
		"OTEL_EXPORTER_OTLP_ENDPOINT="), extra...)
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd
}

// SIGTERM to a `vts worker` process in the middle of a job: it stops polling, the pages it is
// translating finish within VTS_WORKER_STOP_GRACE and are recorded, it exits cleanly, and the
// worker that takes over finishes the job without running any page a second time.
func TestSIGTERMMidJob(t *testing.T) {
	env := apitest.Start(t, apitest.Options{NoWorker: true, Parallelism: 2})
	var logs bytes.Buffer
	w := startVTS(t, env, &logs, "worker", "VTS_TEST_ENGINE_LATENCY=2s", "VTS_WORKER_STOP_GRACE=1h")

	accepted := env.UploadAccepted(t, [][2]string{{"userId", "sigterm-user"}},
		apitest.File{Name: "page1.png", Data: apitest.PNG(t, 40, 30, 1)},
		apitest.File{Name: "page2.png", Data: apitest.PNG(t, 40, 30, 2)})
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

// SIGTERM to a `vts api` process while two uploads are being received: the one whose body
// arrives within VTS_API_STOP_GRACE is accepted (202, its job runs), the one still stalled when
// the grace ends is refused cleanly (503 "draining") and leaves no file behind, and the process
// exits cleanly once both are answered.
func TestSIGTERMMidUpload(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Parallelism: 2})
	addr := freeAddr(t)
	var logs bytes.Buffer
	api := startVTS(t, env, &logs, "api", "VTS_ADDR="+addr, "VTS_API_STOP_GRACE=2s")
	for {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}

	// begin sends an upload's headers and the first half of its body, and returns once the
	// handler reads the body (the server's 100 Continue).
	type upload struct {
		c    net.Conn
		rd   *bufio.Reader
		rest []byte
	}
	begin := func(user string) *upload {
		body, ct := apitest.Form([][2]string{{"userId", user}},
			apitest.File{Name: "page1.png", Data: apitest.PNG(t, 200, 150, 1)},
			apitest.File{Name: "page2.png", Data: apitest.PNG(t, 200, 150, 2)})
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST /api/translate HTTP/1.1\r\nHost: vts\r\nContent-Type: %s\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", ct, body.Len())
		rd := bufio.NewReader(c)
		if line, err := rd.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 100 ") {
			t.Fatalf("waiting for 100 Continue: %q %v", line, err)
		}
		if _, err := rd.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		b := body.Bytes()
		half := len(b) * 3 / 4 // into the second page: the first is in storage by now
		if _, err := c.Write(b[:half]); err != nil {
			t.Fatal(err)
		}
		return &upload{c: c, rd: rd, rest: b[half:]}
	}
	finishing, stalled := begin("finishing-user"), begin("stalled-user")
	// The stalled upload's first page reaches storage before the signal.
	blobDir := strings.TrimPrefix(strings.SplitN(env.BlobURL, "?", 2)[0], "file://")
	for {
		jobs := map[string]bool{}
		for _, f := range files(t, blobDir) {
			if rel, err := filepath.Rel(blobDir, f); err == nil {
				jobs[strings.SplitN(filepath.ToSlash(rel), "/in/", 2)[0]] = true
			}
		}
		if len(jobs) == 2 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := api.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if _, err := finishing.c.Write(finishing.rest); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(finishing.rd, nil)
	if err != nil {
		t.Fatalf("the upload finished within the grace: %v\n%s", err, logs.String())
	}
	var accepted struct {
		JobID string `json:"jobId"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&accepted); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the upload finished within the grace: %d %v", resp.StatusCode, err)
	}
	resp, err = http.ReadResponse(stalled.rd, nil)
	if err != nil {
		t.Fatalf("the upload stalled past the grace got no answer: %v\n%s", err, logs.String())
	}
	var refused struct {
		Error struct{ Code string } `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&refused); err != nil || resp.StatusCode != http.StatusServiceUnavailable || refused.Error.Code != "draining" {
		t.Fatalf("the upload stalled past the grace: %d %q %v", resp.StatusCode, refused.Error.Code, err)
	}
	if err := api.Wait(); err != nil {
		t.Fatalf("vts api after SIGTERM: %v\n%s", err, logs.String())
	}
	// Only the accepted job's files are in storage: none of the refused upload, no partial file.
	ctx := context.Background()
	if err := env.Temporal.GetWorkflow(ctx, job.WorkflowID(accepted.JobID), "").Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, f := range files(t, blobDir) {
		if !strings.Contains(f, accepted.JobID) {
			t.Errorf("a file no job owns: %s", f)
		}
	}
}

// files lists the regular files under dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
