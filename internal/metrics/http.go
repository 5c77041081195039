package metrics

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
)

// UploadRoute is the route whose answers count as uploads.
const UploadRoute = "/api/translate"

// HTTP wraps a chi router (from outside: it hands the router a routing context and reads the
// matched pattern back, so that routes label requests without one label per job ID). It counts
// requests by route, method and status with their latency, uploads by outcome and reason (the
// error code of a refusal), and the Server-Sent Events streams open.
func (m *Metrics) HTTP(next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rctx := chi.RouteContext(r.Context())
		if rctx == nil {
			rctx = chi.NewRouteContext()
			r = r.WithContext(context.WithValue(r.Context(), chi.RouteCtxKey, rctx))
		}
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		body := &prefix{max: 2048}
		ww.Tee(body)
		sw := &sseWatch{WrapResponseWriter: ww, m: m}
		defer func() {
			if sw.open {
				m.sseStreams.Dec()
			}
			status := ww.Status()
			if status == 0 {
				status = http.StatusOK
			}
			route := rctx.RoutePattern()
			if route == "" && r.URL.Path == UploadRoute {
				route = UploadRoute // answered before routing (a draining server's 503)
			}
			if route == "" {
				route = "unmatched"
			}
			method := methodLabel(r.Method)
			m.httpRequests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
			m.httpDuration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
			if route == UploadRoute && r.Method == http.MethodPost {
				m.Upload(status == http.StatusAccepted, errorCode(status, body.Bytes()))
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

// methodLabel is the request's method when it is one of the standard ones, OTHER otherwise: a
// client choosing its methods must not choose how many series the registry holds.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "OTHER"
}

// sseWatch notices a response that turns into an event stream, to count it as open until the
// handler returns.
type sseWatch struct {
	middleware.WrapResponseWriter
	m    *Metrics
	open bool
	seen bool
}

func (s *sseWatch) check() {
	if s.seen {
		return
	}
	s.seen = true
	if strings.HasPrefix(s.Header().Get("Content-Type"), "text/event-stream") {
		s.open = true
		s.m.sseStreams.Inc()
	}
}

func (s *sseWatch) WriteHeader(code int) {
	s.check()
	s.WrapResponseWriter.WriteHeader(code)
}

func (s *sseWatch) Write(p []byte) (int, error) {
	s.check()
	return s.WrapResponseWriter.Write(p)
}

func (s *sseWatch) Flush() {
	s.check()
	if f, ok := s.WrapResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (deadlines, hijacking).
func (s *sseWatch) Unwrap() http.ResponseWriter { return s.WrapResponseWriter }

// errorCode is the code of a JSON error body ({"error":{"code":…}}), "http_<status>" otherwise.
func errorCode(status int, body []byte) string {
	if status == http.StatusAccepted {
		return ""
	}
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Code != "" {
		return e.Error.Code
	}
	return "http_" + strconv.Itoa(status)
}

// prefix keeps the first max bytes written to it.
type prefix struct {
	bytes.Buffer
	max int
}

func (p *prefix) Write(b []byte) (int, error) {
	if room := p.max - p.Len(); room > 0 {
		p.Buffer.Write(b[:min(room, len(b))])
	}
	return len(b), nil
}
