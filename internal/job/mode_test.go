package job_test

import (
	"testing"

	"github.com/vtsproject/vts/internal/job"
)

// Uploads name modes and resolutions exactly as the interface lists them; nothing else parses,
// not even another case, since the values are stored and replayed as they are.
func TestParseModeAndResolution(t *testing.T) {
	for _, m := range job.Modes {
		if got, err := job.ParseMode(string(m)); err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	for _, r := range job.Resolutions {
		if got, err := job.ParseResolution(string(r)); err != nil || got != r {
			t.Errorf("ParseResolution(%q) = %q, %v", r, got, err)
		}
	}
	for _, s := range []string{"", "Fast", "best", " standard"} {
		if _, err := job.ParseMode(s); err == nil {
			t.Errorf("ParseMode(%q) accepted", s)
		}
	}
	for _, s := range []string{"", "1k", "8K", "Original"} {
		if _, err := job.ParseResolution(s); err == nil {
			t.Errorf("ParseResolution(%q) accepted", s)
		}
	}
}

// The long edge a resolution stands for is what both the OCR engine and Gemini scale pages to.
func TestLongEdge(t *testing.T) {
	for r, want := range map[job.Resolution]int{job.Original: 0, job.Res1K: 1024, job.Res2K: 2048, job.Res4K: 4096, "": 0, "8K": 0} {
		if got := r.LongEdge(); got != want {
			t.Errorf("%q.LongEdge() = %d, want %d", r, got, want)
		}
	}
}
