package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

	"github.com/vtsproject/vts/internal/config"
	"github.com/vtsproject/vts/internal/gobin"
	"github.com/vtsproject/vts/internal/service"
)

// runDev brings up everything a newcomer needs on one machine, in one process: a database, a
// Temporal dev server, the migrations, the worker and the API. It reuses what already runs and
// says exactly what is missing otherwise.
func runDev(ctx context.Context, cfg config.Config, log *slog.Logger, _ []string) error {
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", cfg.DataDir, err)
	}
	dbURL, stopDB, err := devDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer stopDB()
	cfg.DatabaseURL = dbURL
	if cfg, err = devInstance(ctx, cfg); err != nil {
		return err
	}
	uiURL, stopTemporal, joined, err := devTemporal(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer stopTemporal()

	svc, err := service.Open(ctx, cfg, log, service.Options{})
	if err != nil {
		return err
	}
	defer svc.Close()
	if err := svc.Store.Migrate(ctx); err != nil {
		return err
	}
	// A server this vts dev joined, or a temporal.db from before an attribute was added, may lack
	// some search attributes: a development machine's server is ours to set up.
	done, err := service.SetUpSearchAttributes(ctx, svc.Temporal, cfg.TemporalNamespace)
	if err != nil {
		return err
	}
	for _, line := range done {
		log.Info(line)
	}
	if err := svc.ServeMetrics(ctx, "api"); err != nil {
		return err
	}
	w, err := svc.StartWorker(ctx)
	if err != nil {
		return err
	}
	defer w.Stop()
	fmt.Fprintf(os.Stderr, `
  Visual translation service is up.
    API:          http://%s/api   (try: curl -F userId=me -F targetLang=es -F images=@page.png http://%s/api/translate)
    Web page:     http://%s/
    Temporal UI:  %s
    Database:     %s
    Files:        %s
    Task queue:   %s
    Engines:      fast=%s standard=%s advanced=%s
  Ctrl-C stops everything.

`, cfg.Addr, cfg.Addr, cfg.Addr, uiURL, redact(dbURL), cfg.BlobURL, cfg.TaskQueue,
		svc.Engines.Name("fast"), svc.Engines.Name("standard"), svc.Engines.Name("advanced"))
	if !joined {
		return serveAPI(ctx, svc)
	}
	// The dev server belongs to the instance that started it and stops with it: this one then
	// stops too, saying why, rather than run on without Temporal.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go watchTemporal(ctx, cancel, svc.Temporal, cfg.TemporalAddress, log)
	if err := serveAPI(ctx, svc); err != nil {
		return err
	}
	if cause := context.Cause(ctx); errors.Is(cause, errSharedTemporalStopped) {
		return cause
	}
	return nil
}

// devInstance gives this `vts dev` its own task queue, unless VTS_TASK_QUEUE names one: the
// configured queue's name (vts-translate) followed by a digest of what makes the instance: its
// database (the PostgreSQL cluster's system identifier and the database's OID, which survive
// restarts and port changes) and its blob storage. Two instances on one machine share the Temporal
// dev server; with one fixed queue, one instance's worker would take the other's jobs and find
// neither their records nor their pages. Two processes on the same database and storage are one
// instance, and share the queue.
func devInstance(ctx context.Context, cfg config.Config) (config.Config, error) {
	if os.Getenv("VTS_TASK_QUEUE") != "" {
		return cfg, nil
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, cfg.DatabaseURL)
	if err != nil {
		return cfg, fmt.Errorf("connecting to %s: %w", redact(cfg.DatabaseURL), err)
	}
	defer conn.Close(ctx)
	var system, oid string
	if err := conn.QueryRow(cctx, `SELECT (SELECT system_identifier::text FROM pg_control_system()),
		(SELECT oid::text FROM pg_database WHERE datname = current_database())`).Scan(&system, &oid); err != nil {
		return cfg, fmt.Errorf("identifying the database: %w", err)
	}
	sum := sha256.Sum256([]byte(system + "/" + oid + "/" + cfg.BlobURL))
	cfg.TaskQueue = cmp.Or(cfg.TaskQueue, "vts-translate") + "-" + hex.EncodeToString(sum[:6])
	return cfg, nil
}

// devDatabase finds a PostgreSQL: DATABASE_URL, else the local server on 127.0.0.1:5432 (with a
// `vts` database created on it), else a private cluster under the data folder.
func devDatabase(ctx context.Context, cfg config.Config, log *slog.Logger) (string, func(), error) {
	none := func() {}
	if cfg.DatabaseURL != "" {
		return cfg.DatabaseURL, none, nil
	}
	local := "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	if u, err := ensureDatabase(ctx, local, "vts"); err == nil {
		log.Info("using the local PostgreSQL server", "url", redact(u))
		return u, none, nil
	}
	bin, err := findPostgresBin()
	if err != nil {
		return "", none, errors.New("no PostgreSQL found: set DATABASE_URL, start a server on 127.0.0.1:5432, " +
			"or install the binaries (apt-get install postgresql) so vts dev can run a private one under ./data")
	}
	return privateCluster(ctx, cfg, bin, log)
}

func ensureDatabase(ctx context.Context, adminURL, name string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	conn, err := pgx.Connect(cctx, adminURL)
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(cctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return "", err
	}
	if !exists {
		if _, err := conn.Exec(cctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
			return "", fmt.Errorf("creating database %s: %w", name, err)
		}
	}
	u, _ := url.Parse(adminURL)
	u.Path = "/" + name
	return u.String(), nil
}

func findPostgresBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return "", errors.New("initdb not found")
	}
	return filepath.Dir(matches[len(matches)-1]), nil
}

// rootClusters is where a root-run vts dev keeps its private clusters: PostgreSQL refuses to
// run as root, and the postgres user it runs as instead cannot enter root's private folders.
var rootClusters = "/var/lib/vts-dev"

// clusterDir is where the private cluster for dataDir lives.
func clusterDir(dataDir string) string {
	if os.Geteuid() != 0 {
		return filepath.Join(dataDir, "pg")
	}
	sum := sha256.Sum256([]byte(dataDir))
	return filepath.Join(rootClusters, hex.EncodeToString(sum[:6]))
}

// privateCluster runs a PostgreSQL of our own under data/pg (as root under /var/lib/vts-dev, run
// as postgres) on a port the system says is free, or on the port it already runs on.
func privateCluster(ctx context.Context, cfg config.Config, bin string, log *slog.Logger) (string, func(), error) {
	dir := clusterDir(cfg.DataDir)
	asUser := func(name string, args ...string) *exec.Cmd {
		if os.Geteuid() == 0 {
			return exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", filepath.Join(bin, name)}, args...)...)
		}
		return exec.CommandContext(ctx, filepath.Join(bin, name), args...)
	}
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err != nil {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", nil, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", nil, err
		}
		if os.Geteuid() == 0 {
			pg, err := user.Lookup("postgres")
			if err != nil {
				return "", nil, errors.New("running as root needs a postgres user for the private cluster")
			}
			uid, _ := strconv.Atoi(pg.Uid)
			gid, _ := strconv.Atoi(pg.Gid)
			if err := os.Chown(dir, uid, gid); err != nil {
				return "", nil, err
			}
		}
		log.Info("creating a private PostgreSQL cluster", "dir", dir)
		if out, err := asUser("initdb", "-D", dir, "-U", "postgres", "--auth=trust").CombinedOutput(); err != nil {
			return "", nil, fmt.Errorf("initdb: %w: %s", err, out)
		}
	}
	logFile := filepath.Join(dir, "server.log")
	port, running := runningPort(dir)
	if !running {
		var err error
		if port, err = gobin.FreePort(); err != nil {
			return "", nil, err
		}
		start := asUser("pg_ctl", "-D", dir, "-l", logFile, "-w", "-o", fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1", port, dir), "start")
		if out, err := start.CombinedOutput(); err != nil {
			tail, _ := os.ReadFile(logFile)
			return "", nil, fmt.Errorf("starting PostgreSQL: %w: %s\n%s", err, out, lastLines(string(tail), 5))
		}
	}
	stop := func() { _ = asUser("pg_ctl", "-D", dir, "-m", "fast", "stop").Run() }
	u, err := ensureDatabase(ctx, fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), "vts")
	if err != nil {
		stop()
		return "", nil, err
	}
	return u, stop, nil
}

// runningPort reads the port of a cluster that is already running from its postmaster.pid.
func runningPort(dir string) (int, bool) {
	data, err := os.ReadFile(filepath.Join(dir, "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 4 {
		return 0, false
	}
	pid, err1 := strconv.Atoi(strings.TrimSpace(lines[0]))
	port, err2 := strconv.Atoi(strings.TrimSpace(lines[3]))
	if err1 != nil || err2 != nil || syscall.Kill(pid, 0) != nil {
		return 0, false
	}
	return port, true
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// devTemporal reuses a healthy Temporal server at TEMPORAL_ADDRESS (joined) or starts the
// Temporal CLI's dev server with its state under the data folder, and returns the UI's address.
// A server that accepts connections but does not answer healthy is most likely another `vts dev`'s
// dev server shutting down: joining it would fail a moment later, so this waits for its port to be
// free and starts its own.
func devTemporal(ctx context.Context, cfg config.Config, log *slog.Logger) (uiURL string, stop func(), joined bool, err error) {
	none := func() {}
	for waited := 0; reachable(cfg.TemporalAddress); waited++ {
		if temporalHealthy(ctx, cfg) {
			log.Info("using the running Temporal server", "address", cfg.TemporalAddress)
			return "http://127.0.0.1:8233 (if it is a dev server)", none, true, nil
		}
		if waited == 0 {
			log.Warn("the Temporal server here is not healthy (another vts dev's, stopping?); waiting for it to stop", "address", cfg.TemporalAddress)
		}
		if waited == 120 {
			return "", none, false, fmt.Errorf("something at TEMPORAL_ADDRESS=%s accepts connections but is not a healthy Temporal server; "+
				"stop it, or set TEMPORAL_ADDRESS to a free port (vts dev then starts its own dev server)", cfg.TemporalAddress)
		}
		select {
		case <-ctx.Done():
			return "", none, false, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	bin, err := gobin.Find("temporal", gobin.TemporalInstall)
	if err != nil {
		return "", none, false, err
	}
	host, port, err := net.SplitHostPort(cfg.TemporalAddress)
	if err != nil {
		return "", none, false, fmt.Errorf("TEMPORAL_ADDRESS %q: %w", cfg.TemporalAddress, err)
	}
	uiPort := "8233"
	if reachable(net.JoinHostPort(host, uiPort)) { // another dev server's UI: take a free port
		p, err := gobin.FreePort()
		if err != nil {
			return "", none, false, err
		}
		uiPort = strconv.Itoa(p)
	}
	// The search attributes are registered as it starts (an existing temporal.db keeps those it has).
	args := append([]string{"server", "start-dev", "--ip", host, "--port", port, "--ui-port", uiPort,
		"--db-filename", filepath.Join(cfg.DataDir, "temporal.db"), "--namespace", cfg.TemporalNamespace, "--log-level", "warn"},
		service.SearchAttributeFlags()...)
	cmd := exec.Command(bin, args...)
	logf, err := os.Create(filepath.Join(cfg.DataDir, "temporal.log"))
	if err != nil {
		return "", none, false, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", none, false, fmt.Errorf("starting the Temporal dev server: %w", err)
	}
	stop = func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_, _ = cmd.Process.Wait()
		logf.Close()
	}
	for i := 0; i < 120 && !reachable(cfg.TemporalAddress); i++ {
		select {
		case <-ctx.Done():
			stop()
			return "", none, false, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	if !reachable(cfg.TemporalAddress) {
		stop()
		return "", none, false, fmt.Errorf("the Temporal dev server did not start; see %s", logf.Name())
	}
	log.Info("started the Temporal dev server", "address", cfg.TemporalAddress)
	return "http://" + net.JoinHostPort(host, uiPort), stop, false, nil
}

// temporalHealthy asks the Temporal server at the configured address whether it serves.
func temporalHealthy(ctx context.Context, cfg config.Config) bool {
	opts, err := service.TemporalOptions(cfg)
	if err != nil {
		return false
	}
	opts.Logger = tlog.NewStructuredLogger(slog.New(slog.DiscardHandler))
	c, err := client.NewLazyClient(opts)
	if err != nil {
		return false
	}
	defer c.Close()
	return checkHealth(ctx, c) == nil
}

func checkHealth(ctx context.Context, c client.Client) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := c.CheckHealth(ctx, &client.CheckHealthRequest{})
	return err
}

// errSharedTemporalStopped is why a `vts dev` that joined another's Temporal dev server stops.
var errSharedTemporalStopped = errors.New("the Temporal dev server this vts dev shared has stopped")

// watchTemporal stops a `vts dev` that joined another one's Temporal dev server once that server
// has stopped answering (three health checks in a row, two seconds apart), with the reason.
func watchTemporal(ctx context.Context, stop context.CancelCauseFunc, c client.Client, addr string, log *slog.Logger) {
	failed := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(2 * time.Second):
		}
		if err := checkHealth(ctx, c); err == nil || ctx.Err() != nil {
			failed = 0
			continue
		} else if failed++; failed < 3 {
			continue
		}
		err := fmt.Errorf("%w (%s): it belonged to the vts dev that started it, which has stopped; "+
			"jobs cannot run without it. Start vts dev again: it starts its own", errSharedTemporalStopped, addr)
		log.Error("stopping", "err", err)
		stop(err)
		return
	}
}

func reachable(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func redact(dbURL string) string {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "(unparseable)"
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "redacted")
		}
	}
	return u.String()
}
