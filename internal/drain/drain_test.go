package drain_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/drain"
)

// An API with an upload route, an event stream that lasts until its request ends (as a job's
// stream lasts until the job ends) and a plain route.
func api() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/translate", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusAccepted) })
	mux.HandleFunc("GET /api/jobs/{id}", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "{}") })
	mux.HandleFunc("GET /api/jobs/{id}/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "id: 1\ndata: {\"status\":\"processing\"}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		_, _ = io.WriteString(w, "id: 2\ndata: {\"late\":true}\n\n")
	})
	return mux
}

func TestDrain(t *testing.T) {
	d := &drain.Drainer{}
	srv := httptest.NewServer(d.Handler(api()))
	defer srv.Close()

	resp, err := http.Post(srv.URL+"/api/translate", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("upload before draining: %d", resp.StatusCode)
	}

	events, err := http.Get(srv.URL + "/api/jobs/j1/events")
	if err != nil {
		t.Fatal(err)
	}
	defer events.Body.Close()
	rd := bufio.NewReader(events.Body)
	first, err := rd.ReadString('\n')
	if err != nil || first != "id: 1\n" {
		t.Fatalf("first line %q, %v", first, err)
	}

	d.Drain()
	rest, err := io.ReadAll(rd) // ends: the stream is closed, not left to its job
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(rest), drain.FinalEvent) || strings.Contains(string(rest), "late") {
		t.Errorf("the stream ended with %q, want the final event and nothing after it", rest)
	}

	resp, err = http.Post(srv.URL+"/api/translate", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), `"draining"`) {
		t.Errorf("upload while draining: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	// Everything else is still served while in-flight work ends, including a stream opened now,
	// which gets the final event at once.
	resp, err = http.Get(srv.URL + "/api/jobs/j1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("job state while draining: %d", resp.StatusCode)
	}
	late, err := http.Get(srv.URL + "/api/jobs/j1/events")
	if err != nil {
		t.Fatal(err)
	}
	all, _ := io.ReadAll(late.Body)
	late.Body.Close()
	if !strings.Contains(string(all), drain.FinalEvent) {
		t.Errorf("a stream opened while draining: %q", all)
	}
}
