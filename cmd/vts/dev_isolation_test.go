package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/vtsproject/vts/internal/config"
	"github.com/vtsproject/vts/internal/gobin"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/service"
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
	instance := func() *service.Stack {
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
		svc, err := service.Open(ctx, cfg, log, service.Options{})
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
	for _, s := range []*service.Stack{a, b} {
		if err := s.ScheduleReconcile(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []*service.Stack{a, b} {
		l := s.Lifecycle()
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
	wb := b.Worker()
	if err := wb.Start(); err != nil {
		t.Fatal(err)
	}
	defer wb.Stop()
	waitUntil(func() bool {
		resp, err := b.Temporal.DescribeTaskQueue(ctx, b.Config.TaskQueue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
		return err == nil && len(resp.Pollers) > 0
	})
	jobs := a.Lifecycle()
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
	wa := a.Worker()
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
func taken(t *testing.T, s *service.Stack, jobID string) bool {
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

// devProcess is a `vts dev` process of a test, with its own database, data folder and ports.
type devProcess struct {
	cmd             *exec.Cmd
	logs            *syncBuffer
	url, metricsURL string
	dataDir         string
}

func freeAddr(t *testing.T) string {
	t.Helper()
	port, err := gobin.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", port)
}

func startDev(t *testing.T, temporalAddr string) *devProcess {
	t.Helper()
	addr, metrics := freeAddr(t), freeAddr(t)
	p := &devProcess{logs: &syncBuffer{}, url: "http://" + addr, metricsURL: "http://" + metrics + "/metrics", dataDir: t.TempDir()}
	p.cmd = exec.Command(os.Args[0], "dev")
	p.cmd.Env = append(os.Environ(), "VTS_TEST_RUN_MAIN=1", "DATABASE_URL="+pgtest.NewDatabase(t), "VTS_DATA_DIR="+p.dataDir,
		"VTS_BLOB_URL=", "VTS_TASK_QUEUE=", "TEMPORAL_ADDRESS="+temporalAddr, "VTS_ENGINE=test", "VTS_ADDR="+addr,
		"VTS_METRICS_ADDR="+metrics, "OTEL_EXPORTER_OTLP_ENDPOINT=")
	p.cmd.Stdout, p.cmd.Stderr = p.logs, p.logs
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Signal(syscall.SIGTERM)
			_ = p.cmd.Wait()
		}
	})
	return p
}

// waitUp waits until the instance's API answers, failing if the process exits first.
func (p *devProcess) waitUp(t *testing.T) {
	t.Helper()
	exited := make(chan struct{})
	go func() {
		for !strings.Contains(p.logs.String(), "vts:") {
			time.Sleep(50 * time.Millisecond)
		}
		close(exited)
	}()
	for {
		if resp, err := http.Get(p.url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-exited:
			t.Fatalf("vts dev stopped before its API answered:\n%s", p.logs.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Two `vts dev` processes beside each other, black-box. The first finds a Temporal server that
// accepts connections but does not answer (as a dev server that is stopping does): it waits for
// it to go and starts its own rather than join it. The second joins the first one's dev server.
// When the first stops, taking its dev server along, the second stops too and says why. On the
// way, a client inventing request methods adds no series to the second's /metrics.
func TestDevBesideAnotherInstance(t *testing.T) {
	temporalAddr := freeAddr(t)
	dying, err := net.Listen("tcp", temporalAddr)
	if err != nil {
		t.Fatal(err)
	}
	var held []net.Conn
	var heldMu sync.Mutex
	go func() {
		for {
			c, err := dying.Accept()
			if err != nil {
				return
			}
			heldMu.Lock()
			held = append(held, c)
			heldMu.Unlock()
		}
	}()
	a := startDev(t, temporalAddr)
	for !strings.Contains(a.logs.String(), "not healthy") {
		if strings.Contains(a.logs.String(), "vts:") {
			t.Fatalf("vts dev beside a dying Temporal server:\n%s", a.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	dying.Close()
	heldMu.Lock()
	for _, c := range held {
		c.Close()
	}
	heldMu.Unlock()
	a.waitUp(t)
	if !strings.Contains(a.logs.String(), "started the Temporal dev server") {
		t.Fatalf("the first instance did not start its own dev server:\n%s", a.logs.String())
	}

	b := startDev(t, temporalAddr)
	b.waitUp(t)
	if !strings.Contains(b.logs.String(), "using the running Temporal server") {
		t.Fatalf("the second instance did not join the first one's dev server:\n%s", b.logs.String())
	}
	for i := range 300 {
		req, _ := http.NewRequest(fmt.Sprintf("M%03d", i), b.url+"/api/jobs/"+uuid.NewString(), nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	resp, err := http.Get(b.metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	methods := map[string]bool{}
	for _, line := range strings.Split(string(page), "\n") {
		if !strings.HasPrefix(line, "vts_http_requests_total{") {
			continue
		}
		if i := strings.Index(line, `method="`); i >= 0 {
			methods[strings.SplitN(line[i+8:], `"`, 2)[0]] = true
		}
	}
	if len(methods) > 2 || !methods["OTHER"] { // GET for the health checks, OTHER for the rest
		t.Errorf("method labels on /metrics after 300 made-up methods: %v", methods)
	}

	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Wait(); err != nil {
		t.Fatalf("the first instance after SIGTERM: %v\n%s", err, a.logs.String())
	}
	err = b.cmd.Wait()
	if err == nil || !strings.Contains(b.logs.String(), "the Temporal dev server this vts dev shared has stopped") {
		t.Fatalf("the second instance after the first stopped: %v\n%s", err, b.logs.String())
	}
}
