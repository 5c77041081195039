package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/vtsproject/vts/internal/config"
	"github.com/vtsproject/vts/internal/service"
)

const temporalUsage = `vts temporal: operator commands for the Temporal namespace (TEMPORAL_* settings)

  vts temporal setup   register the search attributes jobs carry (VtsUserId, VtsStatus...) that the
                       namespace lacks, and say what was done; run once per namespace, and again
                       after an upgrade (it changes nothing when all are there)
`

func runTemporal(ctx context.Context, cfg config.Config, log *slog.Logger, out io.Writer, args []string) error {
	if len(args) != 1 || args[0] != "setup" {
		fmt.Fprint(os.Stderr, temporalUsage)
		return fmt.Errorf("temporal: expected the command setup")
	}
	c, err := service.DialTemporal(ctx, cfg, log, nil)
	if err != nil {
		return err
	}
	defer c.Close()
	done, err := service.SetUpSearchAttributes(ctx, c, cfg.TemporalNamespace)
	if err != nil {
		return err
	}
	for _, line := range done {
		fmt.Fprintln(out, line)
	}
	return nil
}
