package api_test

import (
	"context"
	"os"
	"testing"

	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/workflows"
)

// TestJobHistoryReplays runs a real job (one page fails for good, one is retried) and replays
// its history against the current workflow code, which fails on any non-deterministic change.
// With VTS_CAPTURE_HISTORY=path it also writes the history there: that is how
// workflows/testdata/translate-job.json, which workflows/replay_test.go replays on every run so
// that a change cannot break jobs already in flight, was made.
func TestJobHistoryReplays(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{FailSubstring: "page2", FlakySubstring: "page3", FlakyAttempts: 1}})
	a := upload(t, env, "historian", 3)
	events, _ := readSSE(t, env, a.JobID)
	if last := events[len(events)-1].State; last.Status != "completed" || len(last.Errors) != 1 {
		t.Fatalf("job ended %+v", last)
	}
	ctx := context.Background()
	// The job reads completed before its workflow has scheduled the expiry and closed: the
	// history is whole only once the workflow has.
	if err := env.Temporal.GetWorkflow(ctx, job.WorkflowID(a.JobID), "").Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
	hist := &historypb.History{}
	it := env.Temporal.GetWorkflowHistory(ctx, job.WorkflowID(a.JobID), "", false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		hist.Events = append(hist.Events, ev)
	}
	if err := workflows.Replay(hist); err != nil {
		t.Fatalf("replaying the job's own history: %v", err)
	}
	if path := os.Getenv("VTS_CAPTURE_HISTORY"); path != "" {
		data, err := protojson.MarshalOptions{Indent: "  "}.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
