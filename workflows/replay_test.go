package workflows_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/vtsproject/vts/workflows"
)

// Workflows recorded on the real dev server, one per shape each workflow has had, must replay
// against today's code: a change that would make different decisions breaks workflows in flight
// during a deploy, and needs workflow.GetVersion instead (versions.go). The translation jobs have
// three pages: one translated at once, one failing for good, one retried; the edit letters a page
// again with one block translated again. Record a new one with VTS_CAPTURE_HISTORY (api tests,
// history_capture_test.go) after such a change.
func TestRecordedJobReplays(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil {
		t.Fatal(err)
	}
	recorded := map[string]bool{} // the workflows with a recorded history
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var h historypb.History
			if err := protojson.Unmarshal(data, &h); err != nil {
				t.Fatal(err)
			}
			if len(h.Events) < 2 || h.Events[len(h.Events)-1].EventType != enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED {
				t.Fatalf("the recorded history (%d events) does not end with the workflow completed", len(h.Events))
			}
			start := h.Events[0].GetWorkflowExecutionStartedEventAttributes()
			if start == nil {
				t.Fatal("the recorded history does not begin with the workflow's start")
			}
			// What a whole recording of each workflow holds at least, so that a truncated or
			// mistaken file cannot pass for one.
			var activities []string
			for _, ev := range h.Events {
				if s := ev.GetActivityTaskScheduledEventAttributes(); s != nil {
					activities = append(activities, s.ActivityType.Name)
				}
			}
			switch name := start.WorkflowType.Name; name {
			case "TranslateJob":
				if len(h.Events) < 20 {
					t.Fatalf("the recorded job has only %d events", len(h.Events))
				}
			case "EditPage":
				if !slices.Equal(activities, []string{"ApplyEdit", "SettleEdit"}) {
					t.Fatalf("the recorded edit ran %v, want ApplyEdit then SettleEdit", activities)
				}
			default:
				t.Fatalf("a recorded %s, which this test does not know", name)
			}
			recorded[start.WorkflowType.Name] = true
			if err := workflows.Replay(&h); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, name := range []string{"TranslateJob", "EditPage"} {
		if !recorded[name] {
			t.Errorf("no recorded history of %s in testdata (%v)", name, files)
		}
	}
}
