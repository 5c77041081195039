package metrics_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// scrape reads a /metrics page into "name{labels}" → value, labels as Prometheus prints them.
func scrape(t *testing.T, url string) map[string]string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		out[line[:i]] = line[i+1:]
	}
	return out
}

// has says whether any series of the metric name exists.
func has(series map[string]string, name string) bool {
	for k := range series {
		if k == name || strings.HasPrefix(k, name+"{") {
			return true
		}
	}
	return false
}

// waitFor scrapes until the metric name shows: the SDK's metrics reach the registry on tally's
// reporting tick (every second), not at once.
func waitFor(t *testing.T, url, name string) map[string]string {
	t.Helper()
	for {
		s := scrape(t, url)
		if has(s, name) {
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func want(t *testing.T, where string, series map[string]string, key, value string) {
	t.Helper()
	if got, ok := series[key]; !ok || got != value {
		t.Errorf("%s: %s = %q, want %q", where, key, got, value)
	}
}

// One job of three pages, one of which the engine refuses, runs through an API and a worker that
// each serve their own /metrics: the API counts the upload, the refusal, the requests by route
// and the open event stream; the worker counts two pages translated and one failed, three credits
// reserved, two charged and one refunded; both carry the Temporal SDK's own metrics.
func TestMetricsAfterAJob(t *testing.T) {
	gate := make(chan struct{})
	env := apitest.Start(t, apitest.Options{Metrics: true,
		Engine: &testengine.Engine{FailSubstring: "broken", Gate: gate}})

	refused := env.Upload([][2]string{{"userId", "metrics-user"}})
	if refused.Status < 400 || refused.ErrorCode() == "" {
		t.Fatalf("an upload without pages: %d %s", refused.Status, refused.Body)
	}
	accepted := env.UploadAccepted(t, [][2]string{{"userId", "metrics-user"}},
		apitest.File{Name: "page1.png", Data: apitest.PNG(t, 40, 30, 1)},
		apitest.File{Name: "page2.png", Data: apitest.PNG(t, 40, 30, 2)},
		apitest.File{Name: "broken.png", Data: apitest.PNG(t, 40, 30, 3)})
	if accepted.CreditsNeeded != 3 {
		t.Fatalf("creditsNeeded = %d", accepted.CreditsNeeded)
	}

	// Follow the job: while the engine holds its pages, the stream is open.
	events, err := http.Get(env.URL + "/api/jobs/" + accepted.JobID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	rd := bufio.NewReader(events.Body)
	if _, err := rd.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	want(t, "api", scrape(t, env.APIMetricsURL), "vts_sse_streams_open", "1")
	close(gate)
	if _, err := io.Copy(io.Discard, rd); err != nil {
		t.Fatal(err)
	}
	// The workflow ends only after FinishJob's result is in: every count is made by then.
	if err := env.Temporal.GetWorkflow(context.Background(), job.WorkflowID(accepted.JobID), "").Get(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	state := env.Do(http.MethodGet, "/api/jobs/"+accepted.JobID, nil, nil)
	var st struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(state.Body, &st); err != nil || st.Status != "completed" {
		t.Fatalf("job: %s", state.Body)
	}

	w := waitFor(t, env.WorkerMetricsURL, "temporal_request_total")
	want(t, "worker", w, `vts_pages_total{engine="static",mode="standard",outcome="translated"}`, "2")
	want(t, "worker", w, `vts_pages_total{engine="static",mode="standard",outcome="failed"}`, "1")
	want(t, "worker", w, `vts_credits_total{kind="reserved"}`, "3")
	want(t, "worker", w, `vts_credits_total{kind="charged"}`, "2")
	want(t, "worker", w, `vts_credits_total{kind="refunded"}`, "1")
	want(t, "worker", w, `vts_engine_duration_seconds_count{engine="static",mode="standard"}`, "3")
	if !has(w, "temporal_activity_execution_latency_seconds_bucket") {
		t.Errorf("worker: no temporal_activity_execution_latency_seconds")
	}

	a := waitFor(t, env.APIMetricsURL, "temporal_request_total")
	want(t, "api", a, `vts_uploads_total{outcome="accepted",reason=""}`, "1")
	want(t, "api", a, fmt.Sprintf(`vts_uploads_total{outcome="refused",reason=%q}`, refused.ErrorCode()), "1")
	want(t, "api", a, `vts_http_requests_total{method="POST",route="/api/translate",status="202"}`, "1")
	want(t, "api", a, `vts_http_requests_total{method="GET",route="/api/jobs/{jobId}/events",status="200"}`, "1")
	want(t, "api", a, `vts_http_request_duration_seconds_count{method="POST",route="/api/translate"}`, "2")
	want(t, "api", a, "vts_sse_streams_open", "0")
	if has(a, "vts_pages_total") {
		t.Errorf("api: the API counts no pages")
	}
}

// A client sending made-up request methods adds no series: every method outside the standard set
// is counted as OTHER, and a request to a job's route keeps the route's pattern as its label.
func TestMadeUpMethodsShareOneLabel(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Metrics: true, NoWorker: true})
	for i := range 50 {
		path := "/api/jobs/" + fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		req, err := http.NewRequest(fmt.Sprintf("MADEUP%d", i), env.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	methods := map[string]bool{}
	routes := map[string]bool{}
	for k := range scrape(t, env.APIMetricsURL) {
		if !strings.HasPrefix(k, "vts_http_requests_total{") {
			continue
		}
		for _, label := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(k, "vts_http_requests_total{"), "}"), ",") {
			name, value, _ := strings.Cut(label, "=")
			switch name {
			case "method":
				methods[value] = true
			case "route":
				routes[value] = true
			}
		}
	}
	if len(methods) != 1 || !methods[`"OTHER"`] {
		t.Errorf("method labels %v, want only OTHER", methods)
	}
	for r := range routes {
		if strings.Contains(r, "00000000-") {
			t.Errorf("route label %s carries a job ID", r)
		}
	}
	if len(routes) != 1 || !routes[`"/api/jobs/{jobId}"`] {
		t.Errorf("route labels %v, want the job route's pattern", routes)
	}
}
