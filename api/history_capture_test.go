package api_test

import (
	"context"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/vtsproject/vts/internal/engine"
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
	hist, _ := env.History(job.WorkflowID(a.JobID))
	if err := workflows.Replay(hist); err != nil {
		t.Fatalf("replaying the job's own history: %v", err)
	}
	captureHistory(t, hist)
}

// TestDeleteDuringZipHistoryReplays records the branch of the finish that issue 18 item 9 put
// behind GetVersion (deleteAfterZip): the job is deleted while its ZIP is being built (BuildZip
// is held open), RecordZip reports the delete, and DeleteFiles removes everything. Its history
// replays against the current code; with VTS_CAPTURE_HISTORY=path it is written there
// (workflows/testdata/translate-job-delete-after-zip.json was made so).
func TestDeleteDuringZipHistoryReplays(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	var held atomic.Bool
	hold := func(ctx context.Context, activity, _ string, run func() (any, error)) (any, error) {
		if activity == "BuildZip" && held.CompareAndSwap(false, true) { // the first attempt only
			entered <- struct{}{}
			<-release
		}
		return run()
	}
	env := apitest.Start(t, apitest.Options{AroundActivity: hold})
	a := upload(t, env, "zipdeleter", 2)
	<-entered
	r := env.Do("DELETE", "/api/projects/"+a.JobID, strings.NewReader(`{"userId":"zipdeleter"}`),
		http.Header{"Content-Type": {"application/json"}})
	if r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	close(release)
	ctx := context.Background()
	if err := env.Temporal.GetWorkflow(ctx, job.WorkflowID(a.JobID), "").Get(ctx, nil); err != nil {
		t.Fatalf("the workflow ended with %v", err)
	}
	hist, activities := env.History(job.WorkflowID(a.JobID))
	if i := slices.Index(activities, "RecordZip"); i < 0 || !slices.Contains(activities[i:], "DeleteFiles") {
		t.Fatalf("activities %v: want DeleteFiles after RecordZip", activities)
	}
	if env.Blobs(a.JobID) != 0 {
		t.Fatal("the deleted job's files are left")
	}
	if err := workflows.Replay(hist); err != nil {
		t.Fatalf("replaying the job's own history: %v", err)
	}
	captureHistory(t, hist)
}

// TestEditHistoryReplays records an EditPage workflow on the dev server: a finished page edited
// with one block translated again (ApplyEdit, then SettleEdit capturing the credit). Its history
// replays against the current code; with VTS_CAPTURE_HISTORY=path it is written there
// (workflows/testdata/edit-page-retranslate.json was made so).
func TestEditHistoryReplays(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{}})
	if _, err := env.Store.GrantCredits(context.Background(), "reviser", 5, "test", "grant:reviser"); err != nil {
		t.Fatal(err)
	}
	a := upload(t, env, "reviser", 1)
	page := finished(t, env, a.JobID).Results[0]
	var ts engine.Transcript
	env.Do("GET", page.Transcript, nil, nil).JSON(t, &ts)
	ts.Blocks = engine.NameBlocks(ts.Blocks)
	ts.Blocks[1].Translation = "Edited by hand"
	r := put(env, a.JobID, "page1.png", map[string]any{"userId": "reviser", "transcript": ts, "retranslate": []string{ts.Blocks[0].ID}})
	if r.Status != http.StatusAccepted {
		t.Fatalf("edit: %d %s", r.Status, r.Body)
	}
	ctx := context.Background()
	id := job.EditWorkflowID(a.JobID, "page1.png", 1)
	var res workflows.EditPageResult
	if err := env.Temporal.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil || !res.Applied {
		t.Fatalf("the edit ended %+v, %v", res, err)
	}
	hist, activities := env.History(id)
	if !slices.Equal(activities, []string{"ApplyEdit", "SettleEdit"}) {
		t.Fatalf("the edit ran %v", activities)
	}
	if err := workflows.Replay(hist); err != nil {
		t.Fatalf("replaying the edit's own history: %v", err)
	}
	captureHistory(t, hist)
}

// captureHistory writes hist to the path VTS_CAPTURE_HISTORY names, when it names one.
func captureHistory(t *testing.T, hist *historypb.History) {
	t.Helper()
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
