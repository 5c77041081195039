package lifecycle

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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

// A Snapshot that starts waiting for the next read just before the feed's linger runs out (a
// failed poll in a Temporal outage) is woken with the failure when the feed stops, not left
// waiting for a read that will never come. The hooks order the two deterministically: the poller
// checks its linger only once the Snapshot waits again after the first failed read.
func TestSnapshotWokenWhenFeedLingersOut(t *testing.T) {
	down := errors.New("temporal is down")
	h := newHub(func(context.Context, string) (job.Report, error) {
		return job.Report{}, &unavailableError{down}
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer h.Close()
	h.linger = -time.Second // the linger has run out by the first read's check
	waits := make(chan struct{}, 8)
	h.hooks.snapshotWaits = func() { waits <- struct{}{} }
	var pending chan struct{} // the read the Snapshot waits for when the linger runs out
	captured := make(chan struct{})
	var once sync.Once
	h.hooks.readRecorded = func() {
		once.Do(func() {
			<-waits // before the first read
			<-waits // again, after seeing the first failure
			h.mu.Lock()
			pending = h.feeds["j"].read
			h.mu.Unlock()
			close(captured)
		})
	}
	result := make(chan error, 1)
	go func() {
		_, err := h.Snapshot(context.Background(), "j")
		result <- err
	}()
	<-captured
	for i := 0; ; i++ { // bounded wait for the poller to drop the feed
		h.mu.Lock()
		_, live := h.feeds["j"]
		h.mu.Unlock()
		if !live {
			break
		}
		if i == 1000 {
			t.Fatal("the feed never lingered out")
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case <-pending:
	default:
		t.Fatal("the feed stopped without waking the Snapshot waiting for its next read")
	}
	if err := <-result; !errors.Is(err, down) {
		t.Fatalf("Snapshot = %v, want the backend's failure", err)
	}
}

// A finished job's state changes only by an edit. A stream opened once an edit was accepted, while
// the feed's read of the state before the edit is still under way, must not be closed after that
// stale read: it is closed only after a read begun once it joined, so it shows the edit being
// applied, then its outcome. (Without that, the reader opening a stream to see an edit's outcome
// would be told, now and then, that the page was never edited.)
func TestLateSubscriberSeesTheEditAcceptedMeanwhile(t *testing.T) {
	page := func(rev, editing int) *job.Report {
		return &job.Report{ID: "j", Status: job.Completed, Results: []job.PageResult{{OutputName: "p1.png", Revision: rev, Editing: editing}}}
	}
	var cur atomic.Pointer[job.Report]
	cur.Store(page(0, 0))
	entered, release := make(chan struct{}), make(chan struct{})
	var reads atomic.Int64
	h := newHub(func(context.Context, string) (job.Report, error) {
		st := *cur.Load() // the state as the read begins
		if reads.Add(1) == 1 {
			close(entered)
			<-release
		}
		return st, nil
	}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer h.Close()
	h.interval = time.Millisecond

	early, leaveEarly := h.Subscribe("j") // its read begins before the edit
	defer leaveEarly()
	<-entered
	cur.Store(page(0, 1)) // the edit is accepted
	late, leaveLate := h.Subscribe("j")
	defer leaveLate()
	close(release)

	var seen []job.PageResult
	for u := range late {
		p := u.Report.Results[0]
		seen = append(seen, p)
		if p.Editing == 1 {
			cur.Store(page(1, 0)) // and applied
		}
	}
	if len(seen) == 0 || seen[len(seen)-1].Revision != 1 || !slices.ContainsFunc(seen, func(p job.PageResult) bool { return p.Editing == 1 }) {
		t.Fatalf("the late subscriber saw %+v before its stream closed; want the edit applied, then revision 1", seen)
	}
	// The subscriber who joined before the edit is told of it as well.
	var last job.PageResult
	for u := range early {
		last = u.Report.Results[0]
	}
	if last.Revision != 1 {
		t.Errorf("the early subscriber's last message shows %+v", last)
	}
}
