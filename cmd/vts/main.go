// Command vts is the visual translation service: its API, its worker, its migrations, its
// operator commands, a one-machine development mode and a command-line client.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/vtsproject/vts/api"
	"github.com/vtsproject/vts/internal/config"
	"github.com/vtsproject/vts/internal/drain"
	"github.com/vtsproject/vts/internal/service"
	"github.com/vtsproject/vts/internal/tracing"
)

const usage = `vts: visual translation service

Usage:
  vts dev                 everything on this machine: database, Temporal, worker and API
  vts api                 serve the HTTP API
  vts worker              run the Temporal worker that translates pages
  vts migrate             apply database migrations
  vts admin <command>     grant credits, set a plan, show a user (vts admin -h)
  vts translate [flags] FILE...   upload pages or CBZ/ZIP chapters, follow progress, download the ZIP (or a CBZ: -o x.cbz)
  vts edit [flags] JOB FILE T.json   send a page's edited transcript, wait, print the new revision and URL
  vts healthcheck URL     exit 0 when URL answers 200 (container health checks)

Configuration is read from the environment; see the README.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg, err := config.FromEnv()
	if err != nil {
		fatal(err)
	}
	log := newLogger(cfg.LogLevel)
	slog.SetDefault(log)
	args := os.Args[2:]
	switch os.Args[1] {
	case "dev":
		err = runDev(ctx, cfg, log, args)
	case "api":
		err = runAPI(ctx, cfg, log)
	case "worker":
		err = runWorker(ctx, cfg, log)
	case "migrate":
		err = runMigrate(ctx, cfg, log)
	case "admin":
		err = runAdmin(ctx, cfg, os.Stdout, args)
	case "translate":
		err = runTranslate(ctx, args)
	case "edit":
		err = runEdit(ctx, os.Stdout, args)
	case "healthcheck":
		err = runHealthcheck(ctx, args)
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "vts: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "vts:", err)
	os.Exit(1)
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	if err := l.UnmarshalText([]byte(strings.ToUpper(level))); err != nil {
		l = slog.LevelInfo
	}
	return slog.New(tracing.LogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l})))
}

func runMigrate(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	st, err := service.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Migrate(ctx); err != nil {
		return err
	}
	log.Info("migrations applied")
	return nil
}

func runWorker(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	svc, err := service.Open(ctx, cfg, log, service.Options{})
	if err != nil {
		return err
	}
	defer svc.Close()
	if err := svc.ServeMetrics(ctx, "worker"); err != nil {
		return err
	}
	w, err := svc.StartWorker(ctx)
	if err != nil {
		return err
	}
	log.Info("worker started", "taskQueue", cfg.TaskQueue, "engine", cfg.Engine)
	<-ctx.Done()
	// SIGTERM: stop polling, let the running pages finish within VTS_WORKER_STOP_GRACE.
	log.Info("worker stopping: no new tasks; running activities may finish", "grace", cfg.StopGrace)
	w.Stop()
	log.Info("worker stopped")
	return nil
}

func runAPI(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	svc, err := service.Open(ctx, cfg, log, service.Options{})
	if err != nil {
		return err
	}
	defer svc.Close()
	if err := svc.ServeMetrics(ctx, "api"); err != nil {
		return err
	}
	return serveAPI(ctx, svc)
}

func serveAPI(ctx context.Context, svc *service.Stack) error {
	jobs := svc.Lifecycle()
	defer jobs.Close()
	srv, err := svc.APIServer(jobs, nil)
	if err != nil {
		return err
	}
	drainer := &drain.Drainer{}
	handler := tracing.HTTP(svc.Tracer, svc.Metrics.HTTP(drainer.Handler(srv.Handler())))
	hs := api.HTTPServer(svc.Config.Addr, handler)
	errc := make(chan error, 1)
	go func() { errc <- hs.ListenAndServe() }()
	svc.Log.Info("API listening", "addr", "http://"+svc.Config.Addr)
	select {
	case err := <-errc:
		return fmt.Errorf("serving HTTP: %w", err)
	case <-ctx.Done():
	}
	// SIGTERM: refuse new uploads (503, retried elsewhere), end every progress stream with a
	// final event, then let the requests in flight finish within the grace; uploads still being
	// received after it are refused cleanly (503, their files removed) before the process exits.
	svc.Log.Info("API draining", "grace", svc.Config.APIStopGrace)
	drainer.Drain()
	if err := hs.Stop(svc.Config.APIStopGrace, time.Minute); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// runHealthcheck asks url once and succeeds on 200: the image has no curl, and health checks of
// the compose file call this.
func runHealthcheck(ctx context.Context, args []string) error {
	if len(args) != 1 {
		return errors.New("usage: vts healthcheck URL")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args[0], nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", args[0], resp.Status)
	}
	return nil
}
