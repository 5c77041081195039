// Package service assembles the running service from its configuration: the database, the
// bucket, the Temporal client, the engines, and from them the API server and the worker.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
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
	"github.com/vtsproject/vts/internal/engines"
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

// Open connects to everything cfg names. Engines are built only when withEngines is set: the
// worker runs them and the API checks languages with them, while `vts migrate` needs neither.
func Open(ctx context.Context, cfg config.Config, log *slog.Logger, withEngines bool) (*Service, error) {
	s := &Service{Config: cfg, Log: log}
	var err error
	if cfg.DatabaseURL == "" {
		return nil, errors.New("DATABASE_URL is not set (for example postgres://postgres@127.0.0.1:5432/vts?sslmode=disable)")
	}
	if s.Store, err = store.Open(ctx, cfg.DatabaseURL); err != nil {
		return nil, err
	}
	if s.Bucket, err = blobstore.Open(ctx, cfg.BlobURL); err != nil {
		s.Close()
		return nil, err
	}
	if withEngines {
		if s.Engines, err = engines.New(ctx, cfg, log); err != nil {
			s.Close()
			return nil, err
		}
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
	return &api.Server{
		Store: s.Store, Temporal: s.Temporal, Bucket: s.Bucket, Languages: s.Engines, Billing: bill,
		TaskQueue: s.Config.TaskQueue, Parallelism: s.Config.PageParallel, Log: s.Log,
	}, nil
}

// HTTPServer wraps handler with the timeouts that keep slow clients from holding connections:
// headers must arrive within 10 s and a request body may not idle; responses (SSE, downloads)
// manage their own write deadlines.
func HTTPServer(addr string, handler http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       10 * time.Minute, // a 200-page upload on a slow line
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}
