package workflows_test

import (
	"os"
	"testing"

	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/vtsproject/vts/workflows"
)

// A job recorded on the real dev server (three pages: one translated at once, one failing for
// good, one retried) must replay against today's code: a change that would make different
// decisions breaks jobs in flight during a deploy, and needs workflow.GetVersion instead.
func TestRecordedJobReplays(t *testing.T) {
	data, err := os.ReadFile("testdata/translate-job.json")
	if err != nil {
		t.Fatal(err)
	}
	var h historypb.History
	if err := protojson.Unmarshal(data, &h); err != nil {
		t.Fatal(err)
	}
	if len(h.Events) < 20 {
		t.Fatalf("the recorded history has only %d events", len(h.Events))
	}
	if err := workflows.Replay(&h); err != nil {
		t.Fatal(err)
	}
}
