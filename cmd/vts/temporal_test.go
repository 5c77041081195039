package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/vtsproject/vts/internal/search"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

// vtsCommand is this binary run as `vts args...` against the Temporal server at addr.
func vtsCommand(t *testing.T, addr, dbURL string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "VTS_TEST_RUN_MAIN=1", "DATABASE_URL="+dbURL, "TEMPORAL_ADDRESS="+addr,
		"TEMPORAL_NAMESPACE=default", "VTS_BLOB_URL=file://"+filepath.ToSlash(t.TempDir())+"?create_dir=true&no_tmp_dir=true",
		"VTS_TASK_QUEUE=setup-"+uuid.NewString(), "VTS_ENGINE=test", "VTS_METRICS_ADDR=off", "VTS_ADDR=127.0.0.1:0",
		"OTEL_EXPORTER_OTLP_ENDPOINT=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

// run runs the command to its end and answers its exit code, stdout and stderr.
func run(t *testing.T, cmd *exec.Cmd) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// A fresh namespace has none of the search attributes jobs carry: the worker and the API refuse
// to start, naming the command to run; `vts temporal setup` refuses an attribute registered with
// another type, registers the missing ones and says so, and run again has nothing to do; then the
// worker starts.
func TestTemporalSetupOnFreshNamespace(t *testing.T) {
	addr := apitest.BareTemporal(t)
	dbURL := pgtest.NewDatabase(t)
	for _, role := range []string{"worker", "api"} {
		code, _, stderr := run(t, vtsCommand(t, addr, dbURL, role))
		if code == 0 || !strings.Contains(stderr, "vts temporal setup") || !strings.Contains(stderr, "VtsUserId") {
			t.Fatalf("vts %s on a namespace without the search attributes exited %d:\n%s", role, code, stderr)
		}
	}

	// VtsPages registered by hand as a Keyword: setup does not paper over it.
	ctx := context.Background()
	c, err := client.Dial(client.Options{HostPort: addr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ops := c.OperatorService()
	if _, err := ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: "default",
		SearchAttributes: map[string]enumspb.IndexedValueType{"VtsPages": enumspb.INDEXED_VALUE_TYPE_KEYWORD}}); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, vtsCommand(t, addr, dbURL, "temporal", "setup"))
	if code == 0 || !strings.Contains(stderr, "VtsPages as Keyword") || !strings.Contains(stderr, "search-attribute remove") {
		t.Fatalf("setup over a mistyped attribute exited %d:\n%s", code, stderr)
	}
	if _, err := ops.RemoveSearchAttributes(ctx, &operatorservice.RemoveSearchAttributesRequest{Namespace: "default",
		SearchAttributes: []string{"VtsPages"}}); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := run(t, vtsCommand(t, addr, dbURL, "temporal", "setup"))
	if code != 0 {
		t.Fatalf("setup exited %d:\n%s", code, stderr)
	}
	for _, k := range search.Attributes {
		if !strings.Contains(stdout, "added search attribute "+k.GetName()+" (") {
			t.Errorf("setup did not say it added %s:\n%s", k.GetName(), stdout)
		}
	}
	resp, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range search.Attributes {
		if got := resp.CustomAttributes[k.GetName()]; got != k.GetValueType() {
			t.Errorf("%s is registered as %v, want %v", k.GetName(), got, k.GetValueType())
		}
	}
	code, stdout, stderr = run(t, vtsCommand(t, addr, dbURL, "temporal", "setup"))
	if code != 0 || strings.Contains(stdout, "added") || !strings.Contains(stdout, "nothing to do") {
		t.Fatalf("setup run again exited %d:\n%s%s", code, stdout, stderr)
	}

	// The worker starts now; SIGTERM stops it cleanly.
	w := vtsCommand(t, addr, dbURL, "worker")
	logs := &syncBuffer{}
	w.Stdout, w.Stderr = logs, logs
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- w.Wait() }()
	for !strings.Contains(logs.String(), "worker started") {
		select {
		case err := <-exited:
			t.Fatalf("the worker exited after setup (%v):\n%s", err, logs.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	_ = w.Process.Signal(syscall.SIGTERM)
	if err := <-exited; err != nil {
		t.Errorf("vts worker after SIGTERM: %v\n%s", err, logs.String())
	}
}
