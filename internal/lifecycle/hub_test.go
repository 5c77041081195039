package lifecycle

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/vtsproject/vts/internal/job"
)

// A state read whose backend keeps failing is reported after a few tries of the shared feed, not
// at the first busy answer and never by hanging; one that recovers is answered.
func TestSnapshotReportsPersistentFailure(t *testing.T) {
	down := errors.New("temporal is down")
	var calls atomic.Int64
	h := newHub(func(context.Context, string) (job.Report, error) {
		calls.Add(1)
		return job.Report{}, &unavailableError{down}
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer h.Close()
	if _, err := h.Snapshot(context.Background(), "j"); !errors.Is(err, down) {
		t.Fatalf("err = %v, want the backend's failure", err)
	}
	if n := calls.Load(); n < int64(h.readAttempts) {
		t.Fatalf("reported after %d reads, want %d", n, h.readAttempts)
	}
	var flaky atomic.Int64
	h2 := newHub(func(context.Context, string) (job.Report, error) {
		if flaky.Add(1) == 1 {
			return job.Report{}, &unavailableError{errors.New("busy")}
		}
		return job.Report{ID: "j", Status: job.Processing}, nil
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer h2.Close()
	if st, err := h2.Snapshot(context.Background(), "j"); err != nil || st.ID != "j" {
		t.Fatalf("after one busy answer: %+v, %v", st, err)
	}
}
