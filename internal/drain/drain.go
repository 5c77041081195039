// Package drain lets an API process stop gracefully: once Drain is called, uploads are refused
// with 503 (the client retries on another replica) and every open Server-Sent Events stream ends
// with a final `shutdown` event before its handler is released, so that http.Server.Shutdown does
// not wait on streams that would otherwise last until their job ends.
package drain

import (
	"context"
	"net/http"
	"strings"
	"sync"
)

// UploadRoute is the path whose requests are refused while draining.
const UploadRoute = "/api/translate"

// FinalEvent ends every open event stream when the server drains: browsers' EventSource
// reconnects on its own (to another replica behind the load balancer) after retry milliseconds.
const FinalEvent = "event: shutdown\nretry: 1000\ndata: {\"reason\":\"server shutting down; reconnect\"}\n\n"

// Drainer is the draining switch and the set of open event streams.
type Drainer struct {
	mu       sync.Mutex
	draining bool
	streams  map[*stream]struct{}
}

// Handler wraps the API.
func (d *Drainer) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == UploadRoute && d.Draining() {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"error":{"code":"draining","message":"this server is shutting down; retry the upload"}}` + "\n"))
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		s := &stream{ResponseWriter: w, d: d, cancel: cancel}
		defer d.forget(s)
		next.ServeHTTP(s, r.WithContext(ctx))
	})
}

// Draining says whether Drain was called.
func (d *Drainer) Draining() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.draining
}

// Drain refuses uploads from now on and ends every open event stream with FinalEvent.
func (d *Drainer) Drain() {
	d.mu.Lock()
	d.draining = true
	open := make([]*stream, 0, len(d.streams))
	for s := range d.streams {
		open = append(open, s)
	}
	d.mu.Unlock()
	for _, s := range open {
		s.end()
	}
}

func (d *Drainer) register(s *stream) (draining bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.streams == nil {
		d.streams = map[*stream]struct{}{}
	}
	d.streams[s] = struct{}{}
	return d.draining
}

func (d *Drainer) forget(s *stream) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.streams, s)
}

// stream is one response, which becomes a registered event stream once its Content-Type says so.
type stream struct {
	http.ResponseWriter
	d      *Drainer
	cancel context.CancelFunc

	mu      sync.Mutex
	checked bool
	ended   bool
}

// check registers an event stream the first time it writes; one that starts while draining ends
// at once. The caller holds s.mu.
func (s *stream) check() (endNow bool) {
	if s.checked {
		return false
	}
	s.checked = true
	if !strings.HasPrefix(s.Header().Get("Content-Type"), "text/event-stream") {
		return false
	}
	return s.d.register(s)
}

func (s *stream) WriteHeader(code int) {
	s.mu.Lock()
	endNow := s.check()
	if !s.ended {
		s.ResponseWriter.WriteHeader(code)
	}
	s.mu.Unlock()
	if endNow {
		s.end()
	}
}

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	endNow := s.check()
	if s.ended {
		s.mu.Unlock()
		return len(p), nil // the stream was ended: the handler's last words go nowhere
	}
	n, err := s.ResponseWriter.Write(p)
	s.mu.Unlock()
	if endNow {
		s.end()
	}
	return n, err
}

func (s *stream) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f, ok := s.ResponseWriter.(http.Flusher); ok && !s.ended {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (s *stream) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// end writes the final event and releases the handler (its request context is cancelled).
func (s *stream) end() {
	s.mu.Lock()
	if !s.ended {
		s.ended = true
		_, _ = s.ResponseWriter.Write([]byte(FinalEvent))
		if f, ok := s.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
	}
	s.mu.Unlock()
	s.cancel()
}
