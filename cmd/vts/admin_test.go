package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/config"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

// The operator commands work on the database alone (no Temporal), write the ledger like every
// other movement, and a repeated grant with the same key grants once.
func TestAdminCommands(t *testing.T) {
	cfg := config.Config{DatabaseURL: pgtest.NewDatabase(t)}
	ctx := context.Background()
	if err := runMigrate(ctx, cfg, newLogger("error")); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) map[string]any {
		t.Helper()
		var out bytes.Buffer
		if err := runAdmin(ctx, cfg, &out, args); err != nil {
			t.Fatalf("admin %v: %v", args, err)
		}
		var v map[string]any
		if err := json.Unmarshal(out.Bytes(), &v); err != nil {
			t.Fatalf("admin %v printed %q", args, out.String())
		}
		return v
	}
	run("set-plan", "-user", "op", "-plan", "standard")
	run("grant", "-user", "op", "-credits", "25", "-key", "ticket-17")
	v := run("grant", "-user", "op", "-credits", "25", "-key", "ticket-17")
	user := v["user"].(map[string]any)
	if user["Plan"] != "standard" || user["AllowanceCredits"].(float64) != 500 || user["PurchasedCredits"].(float64) != 25 {
		t.Fatalf("user = %v", user)
	}
	ledger := v["ledger"].([]any)
	reasons := []string{}
	for _, row := range ledger {
		reasons = append(reasons, row.(map[string]any)["Reason"].(string))
	}
	if strings.Join(reasons, ",") != "allowance_free_month,allowance_plan_standard,operator_grant" {
		t.Fatalf("ledger reasons = %v", reasons)
	}
	var out bytes.Buffer
	if err := runAdmin(ctx, cfg, &out, []string{"set-plan", "-user", "op", "-plan", "platinum"}); err == nil {
		t.Fatal("an unknown plan was accepted")
	}
}
