package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/vtsproject/vts/internal/config"
	"github.com/vtsproject/vts/internal/plans"
	"github.com/vtsproject/vts/internal/service"
)

const adminUsage = `vts admin: operator commands (they write the credit ledger like every other movement)

  vts admin grant -user ID -credits N [-reason TEXT] [-key KEY]   add purchased credits, once per key
  vts admin set-plan -user ID -plan free|starter|standard|pro       change the plan and start its period now
  vts admin show -user ID                                           plan, balances and ledger as JSON
`

func runAdmin(ctx context.Context, cfg config.Config, out io.Writer, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, adminUsage)
		return fmt.Errorf("admin: missing command")
	}
	fs := flag.NewFlagSet("admin "+args[0], flag.ContinueOnError)
	userID := fs.String("user", "", "user ID")
	credits := fs.Int64("credits", 0, "credits to grant")
	reason := fs.String("reason", "operator_grant", "ledger reason")
	key := fs.String("key", "", "idempotency key (default: a new one)")
	plan := fs.String("plan", "", "plan")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *userID == "" {
		return fmt.Errorf("admin %s: -user is required", args[0])
	}
	st, err := service.OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	switch args[0] {
	case "grant":
		if *credits <= 0 {
			return fmt.Errorf("admin grant: -credits must be positive")
		}
		k := *key
		if k == "" {
			k = fmt.Sprintf("admin:%s:%d", *userID, time.Now().UnixNano())
		}
		if _, err := st.GrantCredits(ctx, *userID, *credits, *reason, k); err != nil {
			return err
		}
	case "set-plan":
		if _, ok := plans.Lookup(*plan); !ok {
			return fmt.Errorf("admin set-plan: unknown plan %q", *plan)
		}
		now := time.Now().UTC()
		if _, err := st.SetPlan(ctx, *userID, *plan, now, now.AddDate(0, 1, 0)); err != nil {
			return err
		}
	case "show":
	default:
		fmt.Fprint(os.Stderr, adminUsage)
		return fmt.Errorf("admin: unknown command %q", args[0])
	}
	u, err := st.EnsureUser(ctx, *userID)
	if err != nil {
		return err
	}
	ledger, err := st.Ledger(ctx, *userID)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(map[string]any{"user": u, "ledger": ledger})
}
