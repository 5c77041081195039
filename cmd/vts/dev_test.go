package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/vtsproject/vts/internal/config"
)

// With no server to reuse, vts dev runs a PostgreSQL of its own under the data folder: it must
// come up, hold a vts database, survive a restart on the same folder, and stop.
func TestPrivateCluster(t *testing.T) {
	bin, err := findPostgresBin()
	if err != nil {
		t.Fatalf("the PostgreSQL server binaries are needed (apt-get install postgresql): %v", err)
	}
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := config.Config{DataDir: t.TempDir()}
	t.Cleanup(func() { _ = os.RemoveAll(clusterDir(cfg.DataDir)) })
	// Round 1 restarts the stopped cluster; round 2 finds it still running and reuses it.
	var keep func()
	defer func() {
		if keep != nil {
			keep()
		}
	}()
	for round := 0; round < 3; round++ {
		url, stop, err := privateCluster(ctx, cfg, bin, log)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			stop()
			t.Fatalf("round %d: connecting to %s: %v", round, url, err)
		}
		var db string
		err = conn.QueryRow(ctx, "SELECT current_database()").Scan(&db)
		conn.Close(ctx)
		if round == 1 {
			keep = stop // left running for round 2
		} else {
			stop()
		}
		if err != nil || db != "vts" {
			t.Fatalf("round %d: database %q, %v", round, db, err)
		}
	}
}

func TestRedactHidesPasswords(t *testing.T) {
	if got := redact("postgres://vts:s3cret@db:5432/vts"); got != "postgres://vts:redacted@db:5432/vts" {
		t.Fatalf("redact = %q", got)
	}
}
