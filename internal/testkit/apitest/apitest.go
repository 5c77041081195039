// Package apitest runs the whole service for tests: the API on an httptest server, a worker, a
// fresh PostgreSQL database, a bucket, and one Temporal dev server per test binary (the real
// one, started from the Temporal CLI).
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"gocloud.dev/blob"

	"github.com/vtsproject/vts/api"
	"github.com/vtsproject/vts/internal/billing"
	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/config"
	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/engines"
	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/gobin"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/lifecycle"
	"github.com/vtsproject/vts/internal/metrics"
	"github.com/vtsproject/vts/internal/service"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
	"github.com/vtsproject/vts/internal/testkit/testimage"
	"github.com/vtsproject/vts/internal/tracing"
	sdkworker "go.temporal.io/sdk/worker"
)

var (
	mainCalled   bool
	devOnce      sync.Once
	devServer    string // the frontend address of this test binary's Temporal dev server
	devServerErr error
	devCmd       *exec.Cmd
	devDir       string
)

// Main runs a test binary's tests and stops the Temporal dev server after them. Call it from
// TestMain. The server starts with the first Start, so that tests and fuzz workers that never
// need it (fuzzing runs one process per worker) do not pay for it.
func Main(m *testing.M) {
	mainCalled = true
	code := m.Run()
	if devCmd != nil {
		_ = devCmd.Process.Signal(syscall.SIGTERM)
		_, _ = devCmd.Process.Wait()
	}
	if devDir != "" {
		_ = os.RemoveAll(devDir)
	}
	os.Exit(code)
}

// startDevServer starts the Temporal CLI's dev server once per test binary, with a parent-death
// signal so that a test binary that panics or times out cannot leave it running.
func startDevServer() (string, error) {
	devOnce.Do(func() {
		path, err := gobin.Find("temporal", gobin.TemporalInstall)
		if err != nil {
			devServerErr = err
			return
		}
		devDir, _ = os.MkdirTemp("", "vts-temporal-")
		port, err := gobin.FreePort()
		if err != nil {
			devServerErr = err
			return
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		cmd, err := runDevServer(path, addr, devDir, service.SearchAttributeFlags()...)
		if err != nil {
			devServerErr = err
			return
		}
		devCmd, devServer = cmd, addr
	})
	return devServer, devServerErr
}

// runDevServer starts the dev server on addr with its database under dir (kept across restarts,
// as a real server's is), with the extra flags, and waits until it answers.
func runDevServer(path, addr, dir string, extra ...string) (*exec.Cmd, error) {
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command(path, append([]string{"server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", port,
		"--db-filename", filepath.Join(dir, "temporal.db"), "--log-level", "error",
		"--dynamic-config-value", "frontend.enableServerVersionCheck=false"}, extra...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	logFile, _ := os.OpenFile(filepath.Join(dir, "server.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the Temporal dev server: %w", err)
	}
	if err := waitForTemporal(addr); err != nil {
		_ = cmd.Process.Kill()
		log, _ := os.ReadFile(logFile.Name())
		return nil, fmt.Errorf("the Temporal dev server did not come up: %w\n%s", err, log)
	}
	return cmd, nil
}

// KillTemporal kills the test binary's Temporal dev server, as an outage would (kill -9): every
// Env of the binary loses it until RestartTemporal.
func (e *Env) KillTemporal() {
	e.T.Helper()
	if devCmd == nil {
		e.T.Fatal("no Temporal dev server runs")
	}
	_ = devCmd.Process.Kill()
	_, _ = devCmd.Process.Wait()
	devCmd = nil
}

// RestartTemporal starts the dev server again on the same address and database, and waits until
// it answers.
func (e *Env) RestartTemporal() {
	e.T.Helper()
	path, err := gobin.Find("temporal", gobin.TemporalInstall)
	if err != nil {
		e.T.Fatal(err)
	}
	cmd, err := runDevServer(path, devServer, devDir, service.SearchAttributeFlags()...)
	if err != nil {
		e.T.Fatal(err)
	}
	devCmd = cmd
}

// BareTemporal starts a Temporal dev server of the test's own, as a fresh production namespace
// is: without the search attributes jobs carry (see `vts temporal setup`). It stops at cleanup.
func BareTemporal(t testing.TB) string {
	t.Helper()
	path, err := gobin.Find("temporal", gobin.TemporalInstall)
	if err != nil {
		t.Fatal(err)
	}
	port, err := gobin.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd, err := runDevServer(path, addr, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_, _ = cmd.Process.Wait()
	})
	return addr
}

// waitForTemporal waits until the server answers a health check: a bounded number of tries, as
// the server takes a few seconds to start.
func waitForTemporal(addr string) error {
	var err error
	for i := 0; i < 240; i++ {
		var c client.Client
		c, err = client.Dial(client.Options{HostPort: addr, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err == nil {
			_, err = c.CheckHealth(context.Background(), &client.CheckHealthRequest{})
			c.Close()
			if err == nil {
				return nil
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
	return err
}

// Options tunes an Env.
type Options struct {
	// Engine translates pages; a fresh test engine when nil.
	Engine engine.Engine
	// Parallelism of pages within a job (default 2).
	Parallelism int
	// Billing, when set, configures the billing service; Start fills in the store and logger.
	Billing *billing.Options
	// Identity, when set, replaces trusting the body's userId.
	Identity api.Identity
	// Wrap, when set, wraps the API handler (middleware under test).
	Wrap func(http.Handler) http.Handler
	// NoWorker leaves jobs unprocessed, for tests of what happens before translation.
	NoWorker bool
	// Configure, when set, adjusts the API server before its handler is built (token verifier,
	// rate limits).
	Configure func(*api.Server)
	// Metrics gives the API and the worker a registry each, as two processes have, with its own
	// Temporal client, served on /metrics at Env.APIMetricsURL and Env.WorkerMetricsURL.
	Metrics bool
	// Tracer, when set, traces as a deployment with OTLP export does: HTTP requests, the Temporal
	// client and worker (the SDK's tracing interceptor), and engine calls.
	Tracer trace.TracerProvider
	// StopGrace is how long StopWorker lets running activities finish (0: cancelled at once).
	StopGrace time.Duration
	// AroundActivity, when set, runs each attempt of an activity (local ones too) on the env's
	// workers, given its type (ReserveCredits, BuildZip, RecordZip...), its workflow's ID and run,
	// which runs the activity: a test holds an attempt open by blocking before or after run, or
	// fails it without running it.
	AroundActivity ActivityHook
}

// Env is a running service.
type Env struct {
	T        testing.TB
	URL      string
	Store    *store.Store
	Bucket   *blob.Bucket
	Temporal client.Client
	Server   *api.Server
	Jobs     *lifecycle.Lifecycle
	Engine   engine.Engine
	Queue    string
	// TemporalAddress is the frontend of the Temporal dev server the env runs on.
	TemporalAddress string

	// Where the env's parts are, for a worker run as a process of its own (vts worker).
	DatabaseURL, BlobURL string

	// With Options.Metrics: each side's registry and the address of its /metrics.
	APIMetrics, WorkerMetrics       *metrics.Metrics
	APIMetricsURL, WorkerMetricsURL string

	stack        *service.Stack
	worker       sdkworker.Worker
	workerClient client.Client
}

// Start brings a service up for one test and tears it down at cleanup.
func Start(t testing.TB, opts Options) *Env {
	t.Helper()
	if !mainCalled {
		t.Fatal("apitest.Main was not called from TestMain")
	}
	devServer, err := startDevServer()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	dbURL := pgtest.NewDatabase(t)
	blobURL := "file://" + filepath.ToSlash(t.TempDir()) + "?create_dir=true&no_tmp_dir=true"
	var apiMetrics, workerMetrics *metrics.Metrics
	if opts.Metrics {
		apiMetrics, workerMetrics = metrics.New(), metrics.New()
		t.Cleanup(workerMetrics.Close)
	}
	eng := opts.Engine
	if eng == nil {
		eng = &testengine.Engine{}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("VTS_TEST_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	parallelism := opts.Parallelism
	if parallelism <= 0 {
		parallelism = 2
	}
	// The service as a deployment configures it, but for the parts a test provides: its own
	// database, bucket, task queue and engine, and the API's default rate limits.
	limits := api.DefaultLimits()
	cfg := config.Config{DatabaseURL: dbURL, BlobURL: blobURL, TemporalAddress: devServer,
		TaskQueue: "test-" + uuid.NewString(), PageParallel: parallelism, WorkerPollers: 8, StopGrace: opts.StopGrace,
		RateAddressRPS: limits.AddressRate, RateAddressBurst: limits.AddressBurst, RateUserRPS: limits.UserRate,
		RateUserBurst: limits.UserBurst, StreamsPerAddr: limits.StreamsPerAddress}
	tracer := opts.Tracer
	if tracer == nil {
		tracer = noop.NewTracerProvider()
	}
	stack, err := service.Open(ctx, cfg, log, service.Options{Engines: engines.Static(eng), Metrics: apiMetrics, Tracer: tracer})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stack.Close)
	if opts.AroundActivity != nil {
		stack.WorkerInterceptors = append(stack.WorkerInterceptors, &activityHook{around: opts.AroundActivity})
	}
	if err := stack.Store.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	bo := billing.Options{}
	if opts.Billing != nil {
		bo = *opts.Billing
	}
	bo.Store, bo.Logger = stack.Store, log
	bill, err := billing.New(bo)
	if err != nil {
		t.Fatal(err)
	}
	jobs := stack.Lifecycle()
	srv, err := stack.APIServer(jobs, bill)
	if err != nil {
		t.Fatal(err)
	}
	srv.Identity = opts.Identity
	if opts.Configure != nil {
		opts.Configure(srv)
	}
	var h http.Handler = apiMetrics.HTTP(srv.Handler())
	if opts.Tracer != nil {
		h = tracing.HTTP(opts.Tracer, h)
	}
	if opts.Wrap != nil {
		h = opts.Wrap(h)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
		jobs.Close()
	})
	env := &Env{T: t, URL: hs.URL, Store: stack.Store, Bucket: stack.Bucket, Temporal: stack.Temporal, Server: srv, Jobs: jobs,
		Engine: eng, Queue: cfg.TaskQueue, DatabaseURL: dbURL, BlobURL: blobURL, TemporalAddress: devServer,
		stack: stack, APIMetrics: apiMetrics, WorkerMetrics: workerMetrics}
	if opts.Metrics {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		for _, s := range []struct {
			m   *metrics.Metrics
			url *string
		}{{apiMetrics, &env.APIMetricsURL}, {workerMetrics, &env.WorkerMetricsURL}} {
			addr, err := s.m.Serve(ctx, "127.0.0.1:0", log)
			if err != nil {
				t.Fatal(err)
			}
			*s.url = "http://" + addr + "/metrics"
		}
	}
	if !opts.NoWorker {
		env.StartWorker(eng)
	}
	t.Cleanup(env.StopWorker)
	return env
}

// StartWorker starts a worker process's worth of translation on the env's task queue, with a
// connection to Temporal of its own, as a separate process has.
func (e *Env) StartWorker(eng engine.Engine) {
	e.T.Helper()
	c, err := e.stack.DialTemporal(context.Background(), e.WorkerMetrics)
	if err != nil {
		e.T.Fatal(err)
	}
	w := e.stack.WorkerOn(c, engines.Static(eng), e.WorkerMetrics)
	if err := w.Start(); err != nil {
		c.Close()
		e.T.Fatal(err)
	}
	e.worker, e.workerClient = w, c
}

// StopWorker stops the running worker, as a graceful shutdown or a deploy would.
func (e *Env) StopWorker() {
	if e.worker != nil {
		e.worker.Stop()
		e.workerClient.Close()
		e.worker, e.workerClient = nil, nil
	}
}

// AbandonWorker takes the running worker away as kill -9 would: its connection to Temporal is
// cut at once, so its activities neither heartbeat nor report again, whatever they are doing.
// Temporal gives their work to another worker once their heartbeat timeout lapses.
func (e *Env) AbandonWorker() {
	if e.worker == nil {
		return
	}
	w, c := e.worker, e.workerClient
	e.worker, e.workerClient = nil, nil
	c.Close()
	go w.Stop() // it waits for its activities, which may never end
}

// File is one part of an upload.
type File struct {
	Field string // "images" when empty
	Name  string
	Data  []byte
	Type  string // the part's Content-Type; image/png when empty
}

// Form builds a multipart body: fields first (in the order given), then files.
func Form(fields [][2]string, files ...File) (*bytes.Buffer, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		_ = mw.WriteField(f[0], f[1])
	}
	for _, f := range files {
		field := f.Field
		if field == "" {
			field = "images"
		}
		typ := f.Type
		if typ == "" {
			typ = "image/png"
		}
		h := textproto.MIMEHeader{}
		disposition := fmt.Sprintf(`form-data; name="%s"; filename="%s"`, field, escapeQuotes(f.Name))
		if strings.ContainsFunc(f.Name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			// A raw control byte is not valid in a header: careful clients send such a name in
			// its RFC 5987 form.
			disposition = fmt.Sprintf(`form-data; name="%s"; filename*=UTF-8''%s`, field, url.PathEscape(f.Name))
		}
		h.Set("Content-Disposition", disposition)
		h.Set("Content-Type", typ)
		w, _ := mw.CreatePart(h)
		_, _ = w.Write(f.Data)
	}
	_ = mw.Close()
	return &buf, mw.FormDataContentType()
}

var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"")

func escapeQuotes(s string) string { return quoteEscaper.Replace(s) }

// Response is a finished HTTP exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.Body, err)
	}
}

// ErrorCode is the code of a JSON error body, or "" when the body is not one.
func (r *Response) ErrorCode() string {
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(r.Body, &e) != nil || e.Error.Message == "" {
		return ""
	}
	return e.Error.Code
}

// Do sends a request to the service.
func (e *Env) Do(method, path string, body io.Reader, header http.Header) *Response {
	e.T.Helper()
	req, err := http.NewRequest(method, e.URL+path, body)
	if err != nil {
		e.T.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.T.Fatal(err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Upload posts a translate form.
func (e *Env) Upload(fields [][2]string, files ...File) *Response {
	e.T.Helper()
	body, ct := Form(fields, files...)
	return e.Do(http.MethodPost, "/api/translate", body, http.Header{"Content-Type": {ct}})
}

// Accepted is the answer to an accepted upload.
type Accepted struct {
	JobID         string `json:"jobId"`
	Mode          string `json:"mode"`
	CreditsNeeded int    `json:"creditsNeeded"`
}

// UploadAccepted is Upload for an upload the test expects to be accepted: anything but a 202
// whose Location names the new job fails t.
func (e *Env) UploadAccepted(t testing.TB, fields [][2]string, files ...File) Accepted {
	t.Helper()
	resp := e.Upload(fields, files...)
	if resp.Status != http.StatusAccepted {
		t.Fatalf("upload: %d %s", resp.Status, resp.Body)
	}
	var a Accepted
	resp.JSON(t, &a)
	if resp.Header.Get("Location") != "/api/jobs/"+a.JobID {
		t.Fatalf("Location = %q", resp.Header.Get("Location"))
	}
	return a
}

// PNG draws a small page of w×h pixels with a pattern, so that each page differs by seed.
func PNG(t testing.TB, w, h int, seed byte) []byte {
	return Image(t, w, h, seed, imageio.PNG)
}

// Image draws a small page in format.
func Image(t testing.TB, w, h int, seed byte, format string) []byte {
	t.Helper()
	data, err := imageio.EncodeBytes(testimage.Pattern(w, h, seed), format)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// NoisePNG is a valid PNG of random pixels, which barely compresses: about 4·w·h bytes.
func NoisePNG(t testing.TB, w, h int) []byte {
	t.Helper()
	data, err := imageio.EncodeBytes(testimage.Noise(w, h), imageio.PNG)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Blobs counts the blobs of a job, or of every job when jobID is "".
func (e *Env) Blobs(jobID string) int {
	e.T.Helper()
	prefix := "jobs/"
	if jobID != "" {
		prefix = job.Prefix(jobID)
	}
	n, err := blobstore.Count(context.Background(), e.Bucket, prefix)
	if err != nil {
		e.T.Fatal(err)
	}
	return n
}

// SetPlan puts the user on the plan for a month from now.
func (e *Env) SetPlan(userID, plan string) {
	e.T.Helper()
	pgtest.SetPlan(e.T, e.Store, userID, plan)
}

// Balance returns a user's allowance and purchased credits and checks they equal the ledger.
func (e *Env) Balance(userID string) (allowance, purchased int64) {
	e.T.Helper()
	u := pgtest.CheckedUser(e.T, e.Store, userID)
	return u.AllowanceCredits, u.PurchasedCredits
}

// ActivityHook is Options.AroundActivity.
type ActivityHook func(ctx context.Context, activity, workflowID string, run func() (any, error)) (any, error)

// activityHook runs each activity attempt through Options.AroundActivity.
type activityHook struct {
	interceptor.WorkerInterceptorBase
	around ActivityHook
}

func (h *activityHook) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	a := &activityHookInbound{around: h.around}
	a.Next = next
	return a
}

type activityHookInbound struct {
	interceptor.ActivityInboundInterceptorBase
	around ActivityHook
}

func (a *activityHookInbound) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	info := activity.GetInfo(ctx)
	return a.around(ctx, info.ActivityType.Name, info.WorkflowExecution.ID, func() (any, error) {
		return a.Next.ExecuteActivity(ctx, in)
	})
}
