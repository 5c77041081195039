package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/trace"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	sdkworker "go.temporal.io/sdk/worker"
	"gocloud.dev/blob"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/api"
	"github.com/vtsproject/vts/internal/billing"
	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/config"
	"github.com/vtsproject/vts/internal/engine/engines"
	"github.com/vtsproject/vts/internal/identity"
	"github.com/vtsproject/vts/internal/lifecycle"
	"github.com/vtsproject/vts/internal/metrics"
	"github.com/vtsproject/vts/internal/ratelimit"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/tracing"
	"github.com/vtsproject/vts/worker"
)

// Stack is the running service assembled from its configuration: the database, the bucket, the
// Temporal client and the engines, from which the job lifecycle, the API server and the worker are
// built. `vts api`, `vts worker`, `vts dev` and the API test kit all build theirs with Open, so
// that what a test runs is wired as a deployment is.
type Stack struct {
	Config   config.Config
	Log      *slog.Logger
	Store    *store.Store
	Bucket   *blob.Bucket
	Temporal client.Client
	Engines  *engines.Set
	// Metrics is this process's Prometheus registry: the Temporal SDK's metrics and the service's.
	Metrics *metrics.Metrics
	// Tracer is this process's tracer provider: OTLP export when configured, nothing otherwise.
	Tracer trace.TracerProvider
	// WorkerInterceptors run around every activity and workflow of the workers WorkerOn builds.
	WorkerInterceptors []interceptor.WorkerInterceptor
	stopTracing        func(context.Context) error
	limitsPool         *pgxpool.Pool
}

// Options replace parts Open would otherwise build from the configuration.
type Options struct {
	// Engines, when set, are used instead of those the configuration names (tests run a test engine).
	Engines *engines.Set
	// Metrics, when set, is the registry to count into instead of a new one.
	Metrics *metrics.Metrics
	// Tracer, when set, is used instead of the tracing the environment configures.
	Tracer trace.TracerProvider
}

// Open connects to everything cfg names and builds the engines: the worker runs them and the
// API checks languages with them.
func Open(ctx context.Context, cfg config.Config, log *slog.Logger, opts Options) (*Stack, error) {
	s := &Stack{Config: cfg, Log: log, Metrics: opts.Metrics, Engines: opts.Engines, Tracer: opts.Tracer}
	if s.Metrics == nil {
		s.Metrics = metrics.New()
	}
	var err error
	if s.Store, err = OpenStore(ctx, cfg); err != nil {
		return nil, err
	}
	if s.Bucket, err = blobstore.Open(ctx, cfg.BlobURL); err != nil {
		s.Close()
		return nil, err
	}
	if s.Engines == nil {
		if s.Engines, err = engines.New(ctx, cfg, log); err != nil {
			s.Close()
			return nil, err
		}
	}
	if s.Tracer == nil {
		if s.Tracer, s.stopTracing, err = tracing.Setup(ctx, "vts"); err != nil {
			s.Close()
			return nil, err
		}
	}
	if s.Temporal, err = s.DialTemporal(ctx, s.Metrics); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// DialTemporal connects another Temporal client as the stack's own was, its SDK metrics counted
// in m: a worker run beside the API in one process (tests) has a connection of its own, as a
// separate process has.
func (s *Stack) DialTemporal(ctx context.Context, m *metrics.Metrics) (client.Client, error) {
	temporalMetrics, err := m.Temporal()
	if err != nil {
		return nil, err
	}
	temporalTracing, err := tracing.Temporal(s.Tracer)
	if err != nil {
		return nil, err
	}
	return DialTemporal(ctx, s.Config, s.Log, temporalMetrics, temporalTracing)
}

// OpenStore opens only the database: migrations and operator commands need nothing else, and
// must work before Temporal is up (docker-compose runs migrate first).
func OpenStore(ctx context.Context, cfg config.Config) (*store.Store, error) {
	if cfg.DatabaseURL == "" {
		return nil, errors.New("DATABASE_URL is not set (for example postgres://postgres@127.0.0.1:5432/vts?sslmode=disable)")
	}
	return store.Open(ctx, cfg.DatabaseURL)
}

// Close releases everything Open acquired.
func (s *Stack) Close() {
	if s.Temporal != nil {
		s.Temporal.Close()
	}
	if s.Bucket != nil {
		_ = s.Bucket.Close()
	}
	if s.Store != nil {
		s.Store.Close()
	}
	s.Metrics.Close()
	if s.limitsPool != nil {
		s.limitsPool.Close()
	}
	if s.stopTracing != nil {
		flush, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.stopTracing(flush)
	}
}

// ServeMetrics serves /metrics for role ("api" or "worker") until ctx ends, unless turned off.
func (s *Stack) ServeMetrics(ctx context.Context, role string) error {
	addr := s.Config.MetricsListen(role)
	if addr == "" {
		return nil
	}
	_, err := s.Metrics.Serve(ctx, addr, s.Log)
	return err
}

// Worker builds the Temporal worker, its activities holding their dependencies.
func (s *Stack) Worker() sdkworker.Worker {
	return s.WorkerOn(s.Temporal, s.Engines, s.Metrics)
}

// WorkerOn builds a worker on client c running the engines set, counted in m: a test runs one
// beside the API on a connection of its own, and swaps its engines.
func (s *Stack) WorkerOn(c client.Client, set *engines.Set, m *metrics.Metrics) sdkworker.Worker {
	acts := &activities.Activities{Store: s.Store, Bucket: s.Bucket, Log: s.Log, Temporal: c,
		Engines: worker.MeteredEngines(set, set.Name, m, s.Tracer)}
	return worker.New(c, acts, worker.Options{
		TaskQueue: s.Config.TaskQueue, MaxActivities: s.Config.WorkerPollers, EngineRPS: s.Config.EngineRPS,
		Metrics: m, EngineName: set.Name, StopGrace: s.Config.StopGrace, Interceptors: s.WorkerInterceptors,
	})
}

// StartWorker checks that the namespace has the jobs' search attributes, starts the worker and
// makes sure the reconciler's schedule exists, as every process that translates does; Stop the
// worker when done.
func (s *Stack) StartWorker(ctx context.Context) (sdkworker.Worker, error) {
	if err := s.CheckSearchAttributes(ctx); err != nil {
		return nil, err
	}
	w := s.Worker()
	if err := w.Start(); err != nil {
		return nil, fmt.Errorf("starting worker: %w", err)
	}
	if err := s.ScheduleReconcile(ctx); err != nil {
		w.Stop()
		return nil, err
	}
	return w, nil
}

// ScheduleReconcile makes sure the reconciler's Temporal Schedule exists with the configured
// interval; a worker does it at startup, so that the schedule runs where its workflow does.
func (s *Stack) ScheduleReconcile(ctx context.Context) error {
	l := s.Lifecycle()
	defer l.Close()
	return l.ScheduleReconcile(ctx, s.Config.ReconcileEvery, s.Config.ReconcileGrace)
}

// Lifecycle builds the job lifecycle the API drives; Close it when the API stops.
func (s *Stack) Lifecycle() *lifecycle.Lifecycle {
	return lifecycle.New(lifecycle.Config{Store: s.Store, Temporal: s.Temporal, Bucket: s.Bucket, Languages: s.Engines,
		TaskQueue: s.Config.TaskQueue, Parallelism: s.Config.PageParallel, Log: s.Log})
}

// APIServer builds the API on jobs: its billing (unless bill is given), rate limits and
// identity provider from the configuration.
func (s *Stack) APIServer(jobs *lifecycle.Lifecycle, bill *billing.Service) (*api.Server, error) {
	if bill == nil {
		var err error
		if bill, err = billing.FromConfig(s.Store, s.Config, s.Log); err != nil {
			return nil, err
		}
	}
	limits, err := rateLimits(s.Config)
	if err != nil {
		return nil, err
	}
	if err := s.shareLimits(context.Background(), &limits); err != nil {
		return nil, err
	}
	srv := &api.Server{Store: s.Store, Jobs: jobs, Bucket: s.Bucket, Billing: bill, Log: s.Log, Limits: &limits, Lettering: s.Config.Lettering}
	if s.Config.OIDCIssuer == "" {
		s.Log.Warn("no identity provider is configured (VTS_OIDC_ISSUER): the API trusts the userId of each request " +
			"and runs UNAUTHENTICATED, which is fit for local development only; API keys still work")
		return srv, nil
	}
	v, err := identity.New(identity.Options{Issuer: s.Config.OIDCIssuer, Audience: s.Config.OIDCAudience,
		JWKSURL: s.Config.OIDCJWKSURL, Log: s.Log.With("component", "identity")})
	if err != nil {
		return nil, err
	}
	srv.Tokens = v
	s.Log.Info("ID tokens are verified", "issuer", v.Issuer())
	return srv, nil
}

// shareLimits keeps the rate limits' buckets in PostgreSQL (VTS_RATE_BACKEND=postgres), on a
// pool of their own so that a flood of limited requests never starves the API's queries.
func (s *Stack) shareLimits(ctx context.Context, l *api.Limits) error {
	if s.Config.RateBackend != "postgres" || (l.AddressRate <= 0 && l.UserRate <= 0) {
		return nil
	}
	pc, err := pgxpool.ParseConfig(s.Config.DatabaseURL)
	if err != nil {
		return fmt.Errorf("parsing DATABASE_URL: %w", err)
	}
	pc.MaxConns = 8
	if s.limitsPool, err = pgxpool.NewWithConfig(ctx, pc); err != nil {
		return fmt.Errorf("connecting the rate limits to PostgreSQL: %w", err)
	}
	built := map[string]ratelimit.Allower{}
	for name, rl := range map[string]struct {
		rate  float64
		burst int
	}{"address": {l.AddressRate, l.AddressBurst}, "user": {l.UserRate, l.UserBurst}} {
		if rl.rate <= 0 {
			continue
		}
		p, err := ratelimit.NewPostgres(ctx, s.limitsPool, name, rl.rate, rl.burst, s.Log.With("component", "ratelimit"))
		if err != nil {
			return err
		}
		built[name] = p
	}
	l.Shared = func(name string, _ float64, _ int) ratelimit.Allower { return built[name] }
	s.Log.Info("rate limits are shared through PostgreSQL", "addressRPS", l.AddressRate, "userRPS", l.UserRate)
	return nil
}

// rateLimits builds the API's rate limits from the configuration.
func rateLimits(cfg config.Config) (api.Limits, error) {
	l := api.Limits{AddressRate: cfg.RateAddressRPS, AddressBurst: cfg.RateAddressBurst,
		UserRate: cfg.RateUserRPS, UserBurst: cfg.RateUserBurst, StreamsPerAddress: cfg.StreamsPerAddr}
	for _, f := range strings.FieldsFunc(cfg.TrustedProxies, func(r rune) bool { return r == ',' || r == ' ' }) {
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				return api.Limits{}, fmt.Errorf("VTS_TRUSTED_PROXIES: %q is neither a CIDR nor an address", f)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		l.TrustedProxies = append(l.TrustedProxies, p.Masked())
	}
	return l, nil
}
