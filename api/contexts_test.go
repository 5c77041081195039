package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vtsproject/vts/api"
	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// startSpy reports the job an upload starts and what the start answered.
type startSpy struct {
	api.Jobs
	started chan string
	done    chan error
}

func (s *startSpy) Start(ctx context.Context, up job.Upload) (int, error) {
	s.started <- up.JobID
	n, err := s.Jobs.Start(ctx, up)
	s.done <- err
	return n, err
}

// A client that disconnects while its job starts (Temporal has taken the workflow, the
// reservation waits for a worker) does not cut the start short: the job is started, charged and
// translated from the pages it uploaded, not abandoned with its pages discarded.
func TestStartOutlivesClientDisconnect(t *testing.T) {
	spy := &startSpy{started: make(chan string, 1), done: make(chan error, 1)}
	requestGone := make(chan struct{})
	env := apitest.Start(t, apitest.Options{NoWorker: true,
		Configure: func(s *api.Server) { spy.Jobs = s.Jobs; s.Jobs = spy },
		Wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/api/translate" {
					go func() { <-r.Context().Done(); close(requestGone) }()
				}
				next.ServeHTTP(w, r)
			})
		}})
	ctx, cancel := context.WithCancel(context.Background())
	body, ct := apitest.Form([][2]string{{"userId", "leaver"}}, apitest.File{Name: "page.png", Data: apitest.PNG(t, 30, 20, 1)})
	req, _ := http.NewRequestWithContext(ctx, "POST", env.URL+"/api/translate", body)
	req.Header.Set("Content-Type", ct)
	clientDone := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			err = errors.New("the upload was answered: " + resp.Status)
		}
		clientDone <- err
	}()
	jobID := <-spy.started
	// The wrong moment: Temporal has the workflow, whose reservation no worker has run yet.
	waitFor(t, func() bool {
		_, err := env.Temporal.DescribeWorkflowExecution(context.Background(), job.WorkflowID(jobID), "")
		return err == nil
	})
	cancel()
	if err := <-clientDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("client: %v", err)
	}
	<-requestGone // the server saw the client go
	env.StartWorker(env.Engine)
	if err := <-spy.done; err != nil {
		t.Fatalf("the start was abandoned with its request: %v", err)
	}
	j := terminal(t, env, jobID)
	if j.Status != job.Completed || j.Progress != 1 {
		t.Fatalf("job ended %s with %d page(s) done; errors %v", j.Status, j.Progress, j.Errors)
	}
	if al, _ := env.Balance("leaver"); al != 9 {
		t.Fatalf("allowance = %d, want 9 (the page charged once)", al)
	}
}

// A client that stops reading a download is cut off once a write has waited WriteIdle, instead of
// holding the connection and the blob open for ever.
func TestStalledDownloadIsCutOff(t *testing.T) {
	served := make(chan struct{})
	env := apitest.Start(t, apitest.Options{
		Configure: func(s *api.Server) { s.WriteIdle = 200 * time.Millisecond },
		Wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				next.ServeHTTP(w, r)
				if strings.HasPrefix(r.URL.Path, "/api/download/") {
					close(served)
				}
			})
		}})
	a := upload(t, env, "staller", 1)
	waitFor(t, func() bool {
		j, err := env.Store.GetJob(context.Background(), a.JobID)
		return err == nil && j.Status == job.Completed
	})
	j, _ := env.Store.GetJob(context.Background(), a.JobID)
	// A ZIP far larger than what the loopback's socket buffers can hold.
	const size = 64 << 20
	if err := env.Bucket.WriteAll(context.Background(), j.ZipKey, bytes.Repeat([]byte("z"), size), nil); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(env.URL)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.(*net.TCPConn).SetReadBuffer(16 << 10)
	if _, err := io.WriteString(c, "GET /api/download/"+a.JobID+" HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	<-served // only the server can end this exchange: the client reads nothing until it has
	got, _ := io.ReadAll(c)
	if !bytes.HasPrefix(got, []byte("HTTP/1.1 200")) {
		t.Fatalf("the download began %q", got[:min(len(got), 64)])
	}
	if len(got) >= size {
		t.Fatalf("the stalled client got all %d bytes", len(got))
	}
	t.Logf("cut off after %d of %d bytes", len(got), size)
}

// One address may hold only so many progress streams open at once: the next is a 429 in the JSON
// error format with Retry-After, and a slot comes back when a stream closes.
func TestSSEStreamsPerAddressCap(t *testing.T) {
	gate := make(chan struct{})
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{Gate: gate}, Parallelism: 1,
		Configure: withLimits(func(l *api.Limits) { l.StreamsPerAddress = 3 })})
	defer close(gate)
	a := upload(t, env, "streamer", 1)
	open := func() *http.Response {
		resp, err := http.Get(env.URL + "/api/jobs/" + a.JobID + "/events")
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var streams []*http.Response
	for i := 0; i < 3; i++ {
		resp := open()
		if resp.StatusCode != 200 {
			t.Fatalf("stream %d: %d", i+1, resp.StatusCode)
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() && !strings.HasPrefix(sc.Text(), "data: ") {
		}
		streams = append(streams, resp)
	}
	extra := open()
	if extra.StatusCode != 429 {
		extra.Body.Close()
		t.Fatalf("fourth stream from one address: %d, want 429", extra.StatusCode)
	}
	b, _ := io.ReadAll(extra.Body)
	extra.Body.Close()
	var e struct {
		Error struct{ Code, Message string } `json:"error"`
	}
	if extra.StatusCode != 429 || json.Unmarshal(b, &e) != nil || e.Error.Code != "too_many_streams" ||
		e.Error.Message == "" || extra.Header.Get("Retry-After") == "" {
		t.Fatalf("fourth stream: %d %v %s", extra.StatusCode, extra.Header, b)
	}
	streams[0].Body.Close()
	var again *http.Response
	waitFor(t, func() bool {
		r := open()
		if r.StatusCode == 200 {
			again = r
			return true
		}
		r.Body.Close()
		return false
	})
	again.Body.Close()
	for _, s := range streams[1:] {
		s.Body.Close()
	}
	// Other endpoints are not counted against streams.
	if r := env.Do("GET", "/api/jobs/"+a.JobID, nil, nil); r.Status != 200 {
		t.Fatalf("GET job while streams are open: %d %s", r.Status, r.Body)
	}
}
