// Package api is the HTTP face of the service: the spec's endpoints, their JSON errors, the SSE
// progress stream and the downloads. It is the only package that speaks HTTP.
package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"gocloud.dev/blob"

	"github.com/vtsproject/vts/internal/billing"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/lifecycle"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/web"
)

// Jobs is the job lifecycle (internal/lifecycle): the API hands it uploads and asks it about jobs.
// Its refusals are *job.Refusal and its unknown jobs job.ErrNotFound, which writeError answers.
type Jobs interface {
	Admit(ctx context.Context, userID, key, jobID string) (lifecycle.Admission, error)
	Release(userID, key, jobID string)
	Discard(jobID string)
	Start(ctx context.Context, up job.Upload) (credits int, err error)
	Job(ctx context.Context, jobID string) (*store.Job, error)
	State(ctx context.Context, jobID string) (job.Report, error)
	Watch(jobID string) (<-chan lifecycle.Update, func())
	Delete(ctx context.Context, jobID, userID string) error
	Edit(ctx context.Context, e lifecycle.Edit) (revision int, err error)
	Ping(ctx context.Context) error
}

// Identity checks that a request may act as userID. The default trusts the body's userId, as
// the spec shows; the identity issue plugs in token and API-key checks.
type Identity interface {
	Authorize(r *http.Request, userID string) error
}

// Billing is what the checkout, account and webhook endpoints need.
type Billing interface {
	CreateCheckout(ctx context.Context, req billing.CheckoutRequest) (string, error)
	HandleWebhook(ctx context.Context, payload []byte, signature string) error
	Account(ctx context.Context, userID string) (billing.Account, error)
}

// Server holds the API's dependencies.
type Server struct {
	Store *store.Store // users and API keys
	Jobs  Jobs
	// Bucket is where uploads stream to and job files are served from.
	Bucket   *blob.Bucket
	Identity Identity
	Billing  Billing
	// Heartbeat is how often a quiet SSE stream gets a comment line (15 s when zero).
	Heartbeat time.Duration
	// WriteIdle is how long one write of a download may wait for the client to read (a minute
	// when zero).
	WriteIdle time.Duration
	Log       *slog.Logger
	// Tokens verifies ID tokens when an identity provider is configured; with Identity nil, the
	// server authorizes with Auth on these tokens and on API keys.
	Tokens TokenVerifier
	// Limits are the request-rate limits; DefaultLimits when nil.
	Limits *Limits
	// Lettering is the lettering of an upload that names none (VTS_LETTERING); mixed when empty.
	Lettering job.Lettering

	limits *limiters
}

// Handler builds the router. It must be called once.
func (s *Server) Handler() http.Handler {
	if s.Log == nil {
		s.Log = slog.Default()
	}
	if s.Identity == nil {
		s.Identity = &Auth{Tokens: s.Tokens, Store: s.Store, Log: s.Log}
	}
	limits := DefaultLimits()
	if s.Limits != nil {
		limits = *s.Limits
	}
	s.limits = newLimiters(limits)

	r := chi.NewRouter()
	r.Use(middleware.RequestID, s.recoverer)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, s.Log, newError(http.StatusNotFound, "not_found", "no such endpoint"))
	})
	r.NotFound(web.Fallback(r.NotFoundHandler()).ServeHTTP) // the web page at / (not API: not in openapi.yaml)
	router := r
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		labelRoute(router, r)
		writeError(w, r, s.Log, newError(http.StatusMethodNotAllowed, "method_not_allowed", "this endpoint does not take "+r.Method))
	})
	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Get("/readyz", s.ready)
	r.Route("/api", func(r chi.Router) {
		r.Use(s.limitAddress)
		r.Post("/translate", s.translate)
		r.Get("/jobs/{jobId}", s.getJob)
		r.Get("/jobs/{jobId}/events", s.events)
		r.Put("/jobs/{jobId}/pages/{file}/transcript", s.editPage)
		r.Get("/outputs/{jobId}/{file}", s.output)
		r.Get("/outputs/{jobId}/transcripts/{file}", s.transcript)
		r.Get("/outputs/{jobId}/cleaned/{file}", s.cleaned)
		r.Get("/download/{jobId}", s.download)
		r.Delete("/projects/{id}", s.deleteProject)
		r.Post("/checkout", s.checkout)
		r.Get("/account", s.account)
		r.Post("/stripe/webhook", s.stripeWebhook)
		r.Get("/openapi.yaml", serveOpenAPI)
		r.Post("/keys", s.createKey)
		r.Get("/keys", s.listKeys)
		r.Delete("/keys/{id}", s.revokeKey)
	})
	return r
}

func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.Log.ErrorContext(r.Context(), "panic", "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				writeError(w, r, s.Log, errInternal)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	if err := s.Store.Ping(ctx); err != nil {
		s.Log.Warn("not ready: database", "err", err)
		writeError(w, r, s.Log, &Error{Status: http.StatusServiceUnavailable, Code: "database_unavailable", Message: "the database does not answer", RetryAfter: 5})
		return
	}
	if err := s.Jobs.Ping(ctx); err != nil {
		s.Log.Warn("not ready: temporal", "err", err)
		writeError(w, r, s.Log, &Error{Status: http.StatusServiceUnavailable, Code: "temporal_unavailable", Message: "Temporal does not answer", RetryAfter: 5})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// labelRoute gives a request refused with 405 the pattern of its path under any method it does
// take, so that metrics label it by route: chi refuses a method it does not know before matching
// the path, and a known method under a mounted router keeps only the mount's pattern.
func labelRoute(router chi.Routes, r *http.Request) {
	rctx := chi.RouteContext(r.Context())
	if rctx == nil {
		return
	}
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodPut, http.MethodPatch} {
		if pattern := router.Find(chi.NewRouteContext(), m, r.URL.Path); pattern != "" {
			rctx.RoutePatterns = []string{pattern}
			return
		}
	}
}
