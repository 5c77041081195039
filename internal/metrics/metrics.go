// Package metrics is the service's Prometheus instrumentation: one registry per process holding
// the Temporal SDK's metrics (through the SDK's tally handler and tally's Prometheus reporter) and
// the service's own, served at /metrics.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/uber-go/tally/v4"
	tallyprom "github.com/uber-go/tally/v4/prometheus"
	"go.temporal.io/sdk/client"
	sdktally "go.temporal.io/sdk/contrib/tally"
)

// Credit movements, the values of the kind label of vts_credits_total.
const (
	CreditsReserved = "reserved"
	CreditsCharged  = "charged"
	CreditsRefunded = "refunded"
)

// Metrics is one process's registry and the service's own collectors. Every method is safe on a
// nil *Metrics, which records nothing, so that code paths need no checks.
type Metrics struct {
	Registry *prometheus.Registry

	httpRequests *prometheus.CounterVec
	httpDuration *prometheus.HistogramVec
	uploads      *prometheus.CounterVec
	pages        *prometheus.CounterVec
	engineTime   *prometheus.HistogramVec
	credits      *prometheus.CounterVec
	sseStreams   prometheus.Gauge

	scope  tally.Scope
	closer io.Closer
}

// New builds a registry with the Go runtime's and the process's collectors and the service's own.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		// The reconciler counts its actions in the expvar map vts_reconcile (activities), so
		// that a pass needs no registry handed to it; they are scraped here by action.
		collectors.NewExpvarCollector(map[string]*prometheus.Desc{
			"vts_reconcile": prometheus.NewDesc("vts_reconcile_actions_total",
				"Actions the reconciler took since the process started, by action.", []string{"action"}, nil),
		}))
	m := &Metrics{
		Registry: reg,
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vts_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status."}, []string{"route", "method", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "vts_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request (until the handler returns), by route pattern and method.",
			Buckets: prometheus.DefBuckets}, []string{"route", "method"}),
		uploads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vts_uploads_total",
			Help: "Uploads answered: outcome accepted (202) or refused, with the error code as reason."},
			[]string{"outcome", "reason"}),
		pages: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vts_pages_total",
			Help: "Pages finished by the worker: outcome translated, or failed for good (no retry left)."},
			[]string{"engine", "mode", "outcome"}),
		engineTime: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "vts_engine_duration_seconds",
			Help:    "Time one engine call took to translate one page, errors included.",
			Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320}}, []string{"engine", "mode"}),
		credits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "vts_credits_total",
			Help: "Credits moved by jobs: reserved at upload, then charged or refunded when the job settles."},
			[]string{"kind"}),
		sseStreams: prometheus.NewGauge(prometheus.GaugeOpts{Name: "vts_sse_streams_open",
			Help: "Server-Sent Events streams open now."}),
	}
	reg.MustRegister(m.httpRequests, m.httpDuration, m.uploads, m.pages, m.engineTime, m.credits, m.sseStreams)
	return m
}

// Temporal is the metrics handler for a Temporal client (client.Options.MetricsHandler): the SDK's
// own metrics, named as Temporal's other SDKs name them for Prometheus (temporal_request_total,
// temporal_activity_execution_latency_seconds, …),
// reported into this registry. The first call builds it; Close stops its reporting loop.
func (m *Metrics) Temporal() (client.MetricsHandler, error) {
	if m == nil {
		return client.MetricsNopHandler, nil
	}
	if m.scope == nil {
		reporter := tallyprom.NewReporter(tallyprom.Options{Registerer: m.Registry, Gatherer: m.Registry,
			DefaultTimerType: tallyprom.HistogramTimerType,
			OnRegisterError: func(err error) {
				slog.Warn("a Temporal SDK metric could not be registered", "error", err)
			}})
		scope, closer := tally.NewRootScope(tally.ScopeOptions{CachedReporter: reporter, Separator: tallyprom.DefaultSeparator,
			SanitizeOptions: &sdktally.PrometheusSanitizeOptions}, time.Second)
		m.scope, m.closer = sdktally.NewPrometheusNamingScope(scope), closer
	}
	return sdktally.NewMetricsHandler(m.scope), nil
}

// Close flushes and stops the Temporal metrics' reporting.
func (m *Metrics) Close() {
	if m != nil && m.closer != nil {
		_ = m.closer.Close()
	}
}

// Handler serves the registry in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// Serve answers /metrics on addr until ctx ends. It returns once the listener is open, so that
// a port in use is an error at start-up; the address it listens on is returned (addr may end in :0).
func (m *Metrics) Serve(ctx context.Context, addr string, log *slog.Logger) (string, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("VTS_METRICS_ADDR: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "error", err)
		}
	}()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(shutdown)
	}()
	log.Info("metrics listening", "addr", "http://"+l.Addr().String()+"/metrics")
	return l.Addr().String(), nil
}

// Upload counts one answered upload: accepted, or refused for reason (the error code).
func (m *Metrics) Upload(accepted bool, reason string) {
	if m == nil {
		return
	}
	if accepted {
		m.uploads.WithLabelValues("accepted", "").Inc()
		return
	}
	m.uploads.WithLabelValues("refused", reason).Inc()
}

// Page counts one page finished for good by engine in mode.
func (m *Metrics) Page(engine, mode string, translated bool) {
	if m == nil {
		return
	}
	outcome := "failed"
	if translated {
		outcome = "translated"
	}
	m.pages.WithLabelValues(engine, mode, outcome).Inc()
}

// EngineCall records how long one engine call took.
func (m *Metrics) EngineCall(engine, mode string, d time.Duration) {
	if m == nil {
		return
	}
	m.engineTime.WithLabelValues(engine, mode).Observe(d.Seconds())
}

// Credits counts n credits moved as kind (CreditsReserved, CreditsCharged, CreditsRefunded).
func (m *Metrics) Credits(kind string, n int) {
	if m == nil || n <= 0 {
		return
	}
	m.credits.WithLabelValues(kind).Add(float64(n))
}
