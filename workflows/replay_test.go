package workflows_test

import (
	"os"
	"path/filepath"
	"testing"

	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/vtsproject/vts/workflows"
)

// Jobs recorded on the real dev server (three pages: one translated at once, one failing for
// good, one retried), one per shape the workflow has had, must replay against today's code: a
// change that would make different decisions breaks jobs in flight during a deploy, and needs
// workflow.GetVersion instead. Record a new one with VTS_CAPTURE_HISTORY (api tests) after such
// a change.
func TestRecordedJobReplays(t *testing.T) {
	files, err := filepath.Glob("testdata/*.json")
	if err != nil || len(files) < 2 {
		t.Fatalf("recorded histories: %v %v", files, err)
	}
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
			if len(h.Events) < 20 {
				t.Fatalf("the recorded history has only %d events", len(h.Events))
			}
			if err := workflows.Replay(&h); err != nil {
				t.Fatal(err)
			}
		})
	}
}
