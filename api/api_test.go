package api_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vtsproject/vts/api"
	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

type accepted = apitest.Accepted

// upload uploads n small pages, page1.png to pageN.png, for user and returns the accepted job.
func upload(t *testing.T, env *apitest.Env, user string, n int, extra ...[2]string) accepted {
	t.Helper()
	var files []apitest.File
	for i := 0; i < n; i++ {
		files = append(files, apitest.File{Name: fmt.Sprintf("page%d.png", i+1), Data: apitest.PNG(t, 40, 30, byte(i))})
	}
	return env.UploadAccepted(t, append([][2]string{{"userId", user}}, extra...), files...)
}

// terminal waits for the job to end and returns its record.
func terminal(t *testing.T, env *apitest.Env, jobID string) *store.Job {
	t.Helper()
	var j *store.Job
	waitFor(t, func() bool {
		var err error
		j, err = env.Store.GetJob(context.Background(), jobID)
		return err == nil && j.Terminal()
	})
	return j
}

// openZip opens a downloaded archive.
func openZip(t *testing.T, resp *apitest.Response) *zip.Reader {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(resp.Body), int64(len(resp.Body)))
	if err != nil {
		t.Fatal(err)
	}
	return zr
}

// sseEvent is one parsed SSE message.
type sseEvent struct {
	ID    string
	State api.State
	Raw   map[string]any
}

// readSSE follows the stream to its end and returns its messages.
func readSSE(t *testing.T, env *apitest.Env, jobID string) ([]sseEvent, string) {
	t.Helper()
	resp, err := http.Get(env.URL + "/api/jobs/" + jobID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("events: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var events []sseEvent
	var cur sseEvent
	var prelude strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "id: "):
			cur.ID = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			data := []byte(strings.TrimPrefix(line, "data: "))
			if err := json.Unmarshal(data, &cur.State); err != nil {
				t.Fatalf("bad data %s: %v", data, err)
			}
			_ = json.Unmarshal(data, &cur.Raw)
		case line == "":
			if cur.Raw != nil {
				events = append(events, cur)
				cur = sseEvent{}
			}
		default:
			if len(events) == 0 {
				prelude.WriteString(line + "\n")
			}
		}
	}
	return events, prelude.String()
}

// The whole walk of the spec: upload three pages, follow them over SSE to completed, download a
// ZIP of three PNGs in upload order, read one page, delete the project.
func TestUploadFollowDownloadDelete(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{Latency: 150 * time.Millisecond}, Parallelism: 1})
	a := upload(t, env, "reader", 3, [2]string{"targetLang", "es"}, [2]string{"resolution", "2K"}, [2]string{"mode", "fast"})
	if a.Mode != "fast" || a.CreditsNeeded != 3 { // ceil(3 × 2 × 0.5)
		t.Fatalf("accepted = %+v", a)
	}
	events, prelude := readSSE(t, env, a.JobID)
	if !strings.Contains(prelude, "retry: ") {
		t.Errorf("no retry hint before the first message: %q", prelude)
	}
	if len(events) < 2 {
		t.Fatalf("only %d events", len(events))
	}
	last := events[len(events)-1].State
	if last.Status != "completed" || last.Progress != 3 || last.Total != 3 || len(last.Results) != 3 {
		t.Fatalf("last event = %+v", last)
	}
	// Every field of the spec's payload, by its exact name.
	for _, field := range []string{"id", "status", "progress", "total", "currentFile", "results"} {
		if _, ok := events[0].Raw[field]; !ok {
			t.Errorf("event lacks %q: %v", field, events[0].Raw)
		}
	}
	// Progress only counts up, statuses move forward, ids increase.
	prev := -1
	sawProcessing := false
	for i, e := range events {
		if e.State.Progress < prev {
			t.Errorf("progress went back at event %d", i)
		}
		prev = e.State.Progress
		sawProcessing = sawProcessing || e.State.Status == "processing"
		if e.ID != fmt.Sprint(i+1) {
			t.Errorf("event %d has id %q", i, e.ID)
		}
	}
	if !sawProcessing {
		t.Errorf("never saw processing: %+v", events)
	}
	for i, r := range last.Results {
		if r.SourceFilename != fmt.Sprintf("page%d.png", i+1) || !strings.HasPrefix(r.URL, "/api/outputs/"+a.JobID+"/") {
			t.Errorf("result %d = %+v", i, r)
		}
	}

	// GET /api/jobs/{id} answers the same payload.
	resp := env.Do("GET", "/api/jobs/"+a.JobID, nil, nil)
	var st api.State
	resp.JSON(t, &st)
	if resp.Status != 200 || st.Status != "completed" || st.Mode != "fast" || st.CreditsNeeded != 3 {
		t.Fatalf("job = %d %+v", resp.Status, st)
	}

	// The download.
	resp = env.Do("GET", "/api/download/"+a.JobID, nil, nil)
	if resp.Status != 200 || resp.Header.Get("Content-Type") != "application/zip" ||
		!strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment") || resp.Header.Get("ETag") == "" {
		t.Fatalf("download: %d %v", resp.Status, resp.Header)
	}
	zr := openZip(t, resp)
	// The pages first, in upload order, then their transcripts, then their cleaned versions.
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	wantNames := []string{"page1.png", "page2.png", "page3.png",
		"transcripts/page1.png.json", "transcripts/page2.png.json", "transcripts/page3.png.json",
		"cleaned/page1.png", "cleaned/page2.png", "cleaned/page3.png"}
	if strings.Join(names, "|") != strings.Join(wantNames, "|") {
		t.Fatalf("zip entries\n got %q\nwant %q", names, wantNames)
	}
	for _, f := range zr.File {
		rc, _ := f.Open()
		if strings.HasSuffix(f.Name, ".json") {
			var tr struct{ Page string }
			if err := json.NewDecoder(rc).Decode(&tr); err != nil || "transcripts/"+tr.Page+".json" != f.Name {
				t.Errorf("zip entry %s: transcript of %q (%v)", f.Name, tr.Page, err)
			}
		} else if _, err := png.Decode(rc); err != nil {
			t.Errorf("zip entry %s is not a PNG: %v", f.Name, err)
		}
		rc.Close()
	}
	// Conditional and ranged downloads.
	etag := resp.Header.Get("ETag")
	if r := env.Do("GET", "/api/download/"+a.JobID, nil, http.Header{"If-None-Match": {etag}}); r.Status != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", r.Status)
	}
	if r := env.Do("GET", "/api/download/"+a.JobID, nil, http.Header{"Range": {"bytes=0-3"}}); r.Status != http.StatusPartialContent || string(r.Body) != "PK\x03\x04" {
		t.Errorf("Range: %d %q", r.Status, r.Body)
	}

	// One translated page, by its result URL: the test engine inverted it.
	resp = env.Do("GET", last.Results[0].URL, nil, nil)
	if resp.Status != 200 || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("output: %d %v", resp.Status, resp.Header)
	}
	out, err := png.Decode(bytes.NewReader(resp.Body))
	if err != nil {
		t.Fatal(err)
	}
	src, _ := png.Decode(bytes.NewReader(apitest.PNG(t, 40, 30, 0)))
	if !testengine.Inverted(src.At(5, 5), out.At(5, 5)) {
		t.Errorf("output page is not the engine's work")
	}

	// Credits: 10 - 3.
	if al, _ := env.Balance("reader"); al != 7 {
		t.Errorf("allowance = %d, want 7", al)
	}

	// Delete: only the owner, then gone.
	del := func(user string) *apitest.Response {
		return env.Do("DELETE", "/api/projects/"+a.JobID, strings.NewReader(`{"userId":"`+user+`"}`),
			http.Header{"Content-Type": {"application/json"}})
	}
	if r := del("intruder"); r.Status != http.StatusForbidden || r.ErrorCode() != "forbidden" {
		t.Fatalf("delete by another user: %d %s", r.Status, r.Body)
	}
	if r := del("reader"); r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if n := env.Blobs(a.JobID); n != 0 {
		t.Errorf("%d blobs left after delete", n)
	}
	if r := del("reader"); r.Status != http.StatusNotFound {
		t.Errorf("second delete: %d", r.Status)
	}
	for _, path := range []string{"/api/download/", "/api/jobs/"} {
		if r := env.Do("GET", path+a.JobID, nil, nil); r.Status != http.StatusNotFound || r.ErrorCode() != "job_not_found" {
			t.Errorf("GET %s after delete: %d %s", path, r.Status, r.Body)
		}
	}
	if r := env.Do("GET", last.Results[0].URL, nil, nil); r.Status != http.StatusNotFound {
		t.Errorf("output after delete: %d", r.Status)
	}
}

// The Free plan allows 5 MB per file and one job at a time.
func TestPlanLimitsAtUpload(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{BlockSubstring: "slow"}})
	big := apitest.File{Name: "big.png", Data: apitest.NoisePNG(t, 1300, 1300)}
	if len(big.Data) < 6<<20 {
		t.Fatalf("test page is only %d bytes", len(big.Data))
	}
	resp := env.Upload([][2]string{{"userId", "f"}}, big)
	if resp.Status != 413 || resp.ErrorCode() != "file_too_large" {
		t.Fatalf("6 MB on Free: %d %s", resp.Status, resp.Body)
	}
	// userId after the files: still checked against the plan.
	body, ct := apitest.Form(nil, big)
	resp = env.Do("POST", "/api/translate", strings.NewReader(strings.Replace(body.String(), "--"+boundary(ct)+"--",
		"--"+boundary(ct)+"\r\nContent-Disposition: form-data; name=\"userId\"\r\n\r\nf\r\n--"+boundary(ct)+"--", 1)),
		http.Header{"Content-Type": {ct}})
	if resp.Status != 413 || resp.ErrorCode() != "file_too_large" {
		t.Fatalf("6 MB on Free, userId last: %d %s", resp.Status, resp.Body)
	}
	upload(t, env, "f", 1, [2]string{"customPrompt", "keep honorifics"})
	slow := apitest.File{Name: "slow.png", Data: apitest.PNG(t, 10, 10, 2)}
	first := env.Upload([][2]string{{"userId", "g"}}, slow)
	if first.Status != 202 {
		t.Fatalf("first: %d %s", first.Status, first.Body)
	}
	second := env.Upload([][2]string{{"userId", "g"}}, apitest.File{Name: "b.png", Data: apitest.PNG(t, 10, 10, 3)})
	if second.Status != 429 || second.ErrorCode() != "concurrency_limit" || second.Header.Get("Retry-After") == "" {
		t.Fatalf("second concurrent job on Free: %d %s %v", second.Status, second.Body, second.Header)
	}
	if n := env.Blobs(""); n == 0 {
		t.Fatal("no blobs at all: the accepted jobs lost theirs")
	}
}

func boundary(ct string) string { return strings.TrimPrefix(ct, "multipart/form-data; boundary=") }

func TestJobEndpointsStatuses(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{BlockSubstring: "slow"}})
	unknown := uuid.NewString()
	for _, path := range []string{"/api/jobs/" + unknown, "/api/jobs/" + unknown + "/events", "/api/download/" + unknown,
		"/api/download/not-a-uuid", "/api/outputs/" + unknown + "/x.png"} {
		if r := env.Do("GET", path, nil, nil); r.Status != 404 || r.ErrorCode() == "" {
			t.Errorf("GET %s: %d %s", path, r.Status, r.Body)
		}
	}
	if r := env.Do("DELETE", "/api/projects/"+unknown, strings.NewReader(`{"userId":"x"}`), http.Header{"Content-Type": {"application/json"}}); r.Status != 404 {
		t.Errorf("delete unknown: %d", r.Status)
	}
	if r := env.Do("DELETE", "/api/projects/"+unknown, strings.NewReader(`{}`), http.Header{"Content-Type": {"application/json"}}); r.Status != 400 {
		t.Errorf("delete without userId: %d", r.Status)
	}
	// A running job: 409 on download.
	resp := env.Upload([][2]string{{"userId", "w"}}, apitest.File{Name: "slow.png", Data: apitest.PNG(t, 10, 10, 1)})
	var a accepted
	resp.JSON(t, &a)
	if r := env.Do("GET", "/api/download/"+a.JobID, nil, nil); r.Status != 409 || r.ErrorCode() != "job_not_finished" {
		t.Errorf("download while running: %d %s", r.Status, r.Body)
	}
	// Deleting the running job cancels it and refunds what it did not translate.
	r := env.Do("DELETE", "/api/projects/"+a.JobID, strings.NewReader(`{"userId":"w"}`), http.Header{"Content-Type": {"application/json"}})
	if r.Status != 204 {
		t.Fatalf("delete running: %d %s", r.Status, r.Body)
	}
	waitFor(t, func() bool {
		j, err := env.Store.GetJob(context.Background(), a.JobID)
		return err == nil && j.SettledAt != nil && env.Blobs(a.JobID) == 0
	})
	if al, _ := env.Balance("w"); al != 10 {
		t.Errorf("allowance after deleting a running job = %d, want 10", al)
	}
	// An expired job: 410.
	b := upload(t, env, "x", 1)
	waitFor(t, func() bool {
		j, err := env.Store.GetJob(context.Background(), b.JobID)
		return err == nil && j.Status == job.Completed
	})
	if _, err := env.Store.MarkExpired(context.Background(), b.JobID); err != nil {
		t.Fatal(err)
	}
	if r := env.Do("GET", "/api/download/"+b.JobID, nil, nil); r.Status != 410 || r.ErrorCode() != "expired" {
		t.Errorf("download expired: %d %s", r.Status, r.Body)
	}
}

// countStatuses sends requests from clients at once, each client each of its requests in turn,
// and counts the answers' statuses; req makes client i's requests.
func countStatuses(t *testing.T, clients, each int, req func(i int) *http.Request) map[int]int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[int]int{}
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				resp, err := http.DefaultClient.Do(req(c))
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return statuses
}

// withLimits is an apitest.Options.Configure that gives the server the default limits as change
// leaves them.
func withLimits(change func(*api.Limits)) func(*api.Server) {
	return func(s *api.Server) {
		l := api.DefaultLimits()
		change(&l)
		s.Limits = &l
	}
}

// waitFor polls cond; the test's own deadline, not a wall-clock limit here, bounds it.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for !cond() {
		time.Sleep(50 * time.Millisecond)
	}
}

// Fifty uploads from one user at once: never below zero, never more jobs than the plan runs at
// once, and the balance equals the ledger.
func TestFiftyConcurrentUploads(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{BlockSubstring: "page"}, NoWorker: false})
	ctx := context.Background()
	env.SetPlan("racer", "pro")
	// Spend all but 6 credits of the 1000 allowance.
	seed := pgtest.Reserve(t, env.Store, "racer", "advanced", 497)
	if _, err := env.Store.FinishJob(ctx, job.Outcome{JobID: seed, Status: "completed", PagesDone: 497, FinishedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	statuses := countStatuses(t, 50, 1, func(i int) *http.Request {
		body, ct := apitest.Form([][2]string{{"userId", "racer"}}, apitest.File{Name: "page.png", Data: apitest.PNG(t, 10, 10, byte(i))})
		req, _ := http.NewRequest("POST", env.URL+"/api/translate", body)
		req.Header.Set("Content-Type", ct)
		return req
	})
	if statuses[202] != 6 || statuses[202]+statuses[402]+statuses[429] != 50 {
		t.Fatalf("statuses = %v, want 6 accepted and the rest 402 or 429", statuses)
	}
	al, pu := env.Balance("racer")
	if al != 0 || pu != 0 {
		t.Fatalf("balance = %d/%d", al, pu)
	}
	if n, _ := env.Store.ActiveJobs(ctx, "racer"); n != 6 {
		t.Fatalf("%d active jobs", n)
	}
}

// A thousand watchers of one job cost one poller: the number of state reads depends on how long
// the job runs, not on how many watch it.
func TestSSEThousandWatchersSharePoller(t *testing.T) {
	gate := make(chan struct{})
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{Gate: gate}, Parallelism: 1,
		// A thousand watchers from one address, as behind a proxy: the address limits are not
		// what this test is about.
		Configure: withLimits(func(l *api.Limits) { l.AddressBurst, l.StreamsPerAddress = 10000, 0 })})
	a := upload(t, env, "crowd", 2)
	const watchers = 1000
	hub := env.Jobs.Hub()
	before := hub.Fetches()
	var wg sync.WaitGroup
	finals := make(chan string, watchers)
	for i := 0; i < watchers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(env.URL + "/api/jobs/" + a.JobID + "/events")
			if err != nil {
				t.Error(err)
				finals <- ""
				return
			}
			defer resp.Body.Close()
			var last api.State
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() {
				if line := sc.Text(); strings.HasPrefix(line, "data: ") {
					_ = json.Unmarshal([]byte(line[6:]), &last)
				}
			}
			finals <- string(last.Status)
		}()
	}
	waitFor(t, func() bool { return hub.Watchers(a.JobID) == watchers })
	close(gate) // now let the job run to its end, watched by all
	wg.Wait()
	close(finals)
	for s := range finals {
		if s != "completed" {
			t.Fatalf("a watcher ended on %q", s)
		}
	}
	reads := hub.Fetches() - before
	t.Logf("%d watchers, %d state reads", watchers, reads)
	if reads >= 100 {
		t.Fatalf("%d state reads for %d watchers: the poller is not shared", reads, watchers)
	}
}

// A quiet stream gets comment heartbeats, so proxies keep it open while a long page translates.
func TestSSEHeartbeat(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{BlockSubstring: "page"},
		Configure: func(s *api.Server) { s.Heartbeat = 50 * time.Millisecond }})
	a := upload(t, env, "waiter", 1)
	resp, err := http.Get(env.URL + "/api/jobs/" + a.JobID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	data, beats := 0, 0
	for beats < 3 && sc.Scan() {
		switch line := sc.Text(); {
		case strings.HasPrefix(line, "data: "):
			data++
		case line == ": heartbeat":
			beats++
		}
	}
	if beats < 3 || data != 1 {
		t.Fatalf("%d heartbeats and %d messages before the stream ended (%v)", beats, data, sc.Err())
	}
}
