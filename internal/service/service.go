// Package service assembles the running service from its configuration: the database, the
// bucket, the Temporal client, the engines, and from them the API server and the worker.
package service

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	sdkworker "go.temporal.io/sdk/worker"
	"gocloud.dev/blob"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/api"
	"github.com/vtsproject/vts/internal/billing"
	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/config"
	"github.com/vtsproject/vts/internal/engine/engines"
	"github.com/vtsproject/vts/internal/identity"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/worker"
)

// Service is the assembled dependencies.
type Service struct {
	Config   config.Config
	Log      *slog.Logger
	Store    *store.Store
	Bucket   *blob.Bucket
	Temporal client.Client
	Engines  *engines.Set
}

// Open connects to everything cfg names and builds the engines: the worker runs them and the API
// checks languages with them.
func Open(ctx context.Context, cfg config.Config, log *slog.Logger) (*Service, error) {
	s := &Service{Config: cfg, Log: log}
	var err error
	if s.Store, err = OpenStore(ctx, cfg); err != nil {
		return nil, err
	}
	if s.Bucket, err = blobstore.Open(ctx, cfg.BlobURL); err != nil {
		s.Close()
		return nil, err
	}
	if s.Engines, err = engines.New(ctx, cfg, log); err != nil {
		s.Close()
		return nil, err
	}
	s.Temporal, err = client.Dial(client.Options{
		HostPort:  cfg.TemporalAddress,
		Namespace: cfg.TemporalNamespace,
		Logger:    tlog.NewStructuredLogger(log.With("component", "temporal")),
	})
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("connecting to Temporal at %s: %w", cfg.TemporalAddress, err)
	}
	return s, nil
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
func (s *Service) Close() {
	if s.Temporal != nil {
		s.Temporal.Close()
	}
	if s.Bucket != nil {
		_ = s.Bucket.Close()
	}
	if s.Store != nil {
		s.Store.Close()
	}
}

// Activities returns the activities with their dependencies.
func (s *Service) Activities() *activities.Activities {
	return &activities.Activities{Store: s.Store, Bucket: s.Bucket, Engines: s.Engines, Log: s.Log}
}

// Worker builds the Temporal worker.
func (s *Service) Worker() sdkworker.Worker {
	return worker.New(s.Temporal, s.Activities(), worker.Options{
		TaskQueue: s.Config.TaskQueue, MaxActivities: s.Config.WorkerPollers, EngineRPS: s.Config.EngineRPS,
	})
}

// APIServer builds the API.
func (s *Service) APIServer() (*api.Server, error) {
	bill, err := billing.FromConfig(s.Store, s.Config, s.Log)
	if err != nil {
		return nil, err
	}
	limits, err := Limits(s.Config)
	if err != nil {
		return nil, err
	}
	srv := &api.Server{
		Store: s.Store, Temporal: s.Temporal, Bucket: s.Bucket, Languages: s.Engines, Billing: bill,
		TaskQueue: s.Config.TaskQueue, Parallelism: s.Config.PageParallel, Log: s.Log, Limits: &limits,
	}
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

// Limits builds the API's rate limits from the configuration.
func Limits(cfg config.Config) (api.Limits, error) {
	l := api.Limits{AddressRate: cfg.RateAddressRPS, AddressBurst: cfg.RateAddressBurst,
		UserRate: cfg.RateUserRPS, UserBurst: cfg.RateUserBurst}
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

// Timeouts keep slow clients from holding connections.
type Timeouts struct {
	ReadHeader time.Duration // the whole request header
	BodyIdle   time.Duration // the longest pause while a request body is being read
	Body       time.Duration // a whole request body (a 200-page upload on a slow line)
	Idle       time.Duration // a kept-alive connection between requests
}

// DefaultTimeouts are the service's timeouts.
var DefaultTimeouts = Timeouts{ReadHeader: 10 * time.Second, BodyIdle: 30 * time.Second, Body: 10 * time.Minute, Idle: 2 * time.Minute}

// HTTPServer serves handler with DefaultTimeouts.
func HTTPServer(addr string, handler http.Handler) *http.Server {
	return NewHTTPServer(addr, handler, DefaultTimeouts)
}

// NewHTTPServer serves handler with timeouts against slow clients: headers must arrive within
// ReadHeader, and a request body may neither pause longer than BodyIdle nor take longer than Body.
// http.Server.ReadTimeout can only bound the whole body, so a client could hold an upload's
// connection for its full ten minutes by sending a byte now and then; the per-read deadline
// catches a stall within BodyIdle. Responses (SSE, downloads) manage their own write deadlines.
func NewHTTPServer(addr string, handler http.Handler, t Timeouts) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           bodyDeadlines(handler, t),
		ReadHeaderTimeout: t.ReadHeader,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    64 << 10,
	}
}

func bodyDeadlines(next http.Handler, t Timeouts) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || (t.BodyIdle <= 0 && t.Body <= 0) {
			next.ServeHTTP(w, r)
			return
		}
		b := &deadlineBody{ReadCloser: r.Body, rc: http.NewResponseController(w), idle: t.BodyIdle}
		if t.Body > 0 {
			b.end = time.Now().Add(t.Body)
		}
		r.Body = b
		next.ServeHTTP(w, r)
		if !b.eof {
			// The server drains what is left of an unread body before answering; a client that
			// trickles it must not hold the connection that way either.
			_ = b.rc.SetReadDeadline(b.deadline())
		}
	})
}

// deadlineBody moves the connection's read deadline before each read of the body. It clears the
// deadline once the body has been read to its end, so that the deadline never outlives the body;
// after a failed read it leaves it, already past, so that the doomed connection is not read again.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
	end  time.Time
	eof  bool
	err  error
}

func (b *deadlineBody) deadline() time.Time {
	d := b.end
	if b.idle > 0 {
		if next := time.Now().Add(b.idle); d.IsZero() || next.Before(d) {
			d = next
		}
	}
	return d
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	if b.eof || b.err != nil {
		return 0, cmp.Or(b.err, io.EOF)
	}
	_ = b.rc.SetReadDeadline(b.deadline())
	n, err := b.ReadCloser.Read(p)
	switch {
	case errors.Is(err, io.EOF):
		b.eof = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil:
		b.err = err
	}
	return n, err
}
