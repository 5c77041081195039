package lifecycle

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vtsproject/vts/internal/job"
)

// Hub shares one poller per job among all of its watchers in this process (SSE streams, and state
// reads while the job is watched), so that a thousand watchers of one job cost one query stream. A
// running workflow answers one query at a time, which is why the sharing matters.
type Hub struct {
	fetch    func(ctx context.Context, jobID string) (job.Report, error)
	log      *slog.Logger
	interval time.Duration
	maxWait  time.Duration

	mu      sync.Mutex
	feeds   map[string]*feed
	ctx     context.Context
	cancel  context.CancelFunc
	fetches atomic.Int64
	// linger is how long a feed started or used by Snapshot keeps polling after its last read.
	linger time.Duration
	// readAttempts bounds how many failed reads Snapshot waits through before it reports the
	// failure.
	readAttempts int
	// hooks let a test order a Snapshot and the poller around the linger; nil in production.
	hooks hubHooks
}

// hubHooks are called, when set, at the points where a waiting Snapshot and the poller's linger
// interleave.
type hubHooks struct {
	snapshotWaits func() // a Snapshot is about to wait for the next read
	readRecorded  func() // the poller recorded a read and is about to check its linger
}

type feed struct {
	subs map[*subscription]struct{}
	last *Update
	// readUntil keeps the poller running for state reads (Snapshot) without a subscriber, so that
	// a burst of reads shares it too.
	readUntil time.Time
	// read is closed and replaced after every read of the state, successful or not, so that
	// Snapshot can wait for the next one; err is that read's failure.
	read chan struct{}
	err  error
	// started counts the reads begun; a subscriber notes it on joining, so that the feed ends
	// only on a read begun after every subscriber joined (see poll).
	started int
}

var errHubClosed = errors.New("the job's state is no longer followed")

// Update is one state of a job, numbered in the order its feed saw them.
type Update struct {
	Seq    int
	Report job.Report
	raw    []byte    // Report as JSON, to tell a change from a repeat
	json   *encoding // shared by every subscriber of this update
}

type encoding struct {
	once sync.Once
	data []byte
}

// JSON is view(u.Report) as JSON, encoded once however many subscribers ask for it.
func (u Update) JSON(view func(job.Report) any) []byte {
	u.json.once.Do(func() { u.json.data, _ = json.Marshal(view(u.Report)) })
	return u.json.data
}

// subscription receives the latest update; a slow reader skips intermediate ones, never the last.
type subscription struct {
	ch chan Update
	// since is how many of the feed's reads had begun when it joined.
	since int
}

// newHub starts a hub reading states with fetch, which answers job.ErrNotFound once the job is
// gone.
func newHub(fetch func(ctx context.Context, jobID string) (job.Report, error), log *slog.Logger) *Hub {
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{fetch: fetch, log: log, interval: 250 * time.Millisecond, maxWait: 5 * time.Second,
		feeds: map[string]*feed{}, ctx: ctx, cancel: cancel, linger: 2 * time.Second, readAttempts: 3}
}

// Close stops every poller.
func (h *Hub) Close() { h.cancel() }

// Fetches counts the state reads made so far; tests use it to prove sharing.
func (h *Hub) Fetches() int64 { return h.fetches.Load() }

// Watchers counts the subscribers of jobID in this process.
func (h *Hub) Watchers(jobID string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f, ok := h.feeds[jobID]; ok {
		return len(f.subs)
	}
	return 0
}

// Subscribe follows jobID. The channel yields the current state at once, then every change, and
// is closed after a terminal state with no edit being applied, or when the job is gone. The state
// it is closed after was read after Subscribe was called: a finished job's state changes only by
// an edit, and a subscriber who joins once an edit is accepted must see that edit's outcome, not
// a read begun before the edit. Call the returned function to leave.
func (h *Hub) Subscribe(jobID string) (<-chan Update, func()) {
	h.mu.Lock()
	f := h.feedLocked(jobID)
	sub := &subscription{ch: make(chan Update, 1), since: f.started}
	f.subs[sub] = struct{}{}
	if f.last != nil {
		sub.ch <- *f.last
	}
	h.mu.Unlock()
	return sub.ch, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if _, ok := f.subs[sub]; ok {
			delete(f.subs, sub)
			close(sub.ch)
		}
	}
}

// feedLocked returns jobID's feed, starting its poller when there is none. h.mu is held.
func (h *Hub) feedLocked(jobID string) *feed {
	f, ok := h.feeds[jobID]
	if !ok {
		f = &feed{subs: map[*subscription]struct{}{}, read: make(chan struct{})}
		h.feeds[jobID] = f
		go h.poll(jobID, f)
	}
	return f
}

// Snapshot returns the job's state from its shared feed: the feed's last state when it has one,
// else the first read of a feed it starts, which then keeps polling for a while so that the reads
// that follow share it. A burst of reads of one job costs one state read per poll interval, not
// one per request. A read that keeps failing (Temporal busy or down) is reported once the feed has
// tried a few times; job.ErrNotFound once the job is gone.
func (h *Hub) Snapshot(ctx context.Context, jobID string) (job.Report, error) {
	h.mu.Lock()
	f := h.feedLocked(jobID)
	f.readUntil = time.Now().Add(h.linger)
	failures := 0
	for {
		if f.last != nil {
			st := f.last.Report
			h.mu.Unlock()
			return st, nil
		}
		if f.err != nil {
			if failures++; failures >= h.readAttempts || errors.Is(f.err, job.ErrNotFound) || h.feeds[jobID] != f {
				err := f.err
				h.mu.Unlock()
				return job.Report{}, err
			}
		}
		read := f.read
		h.mu.Unlock()
		if h.hooks.snapshotWaits != nil {
			h.hooks.snapshotWaits()
		}
		select {
		case <-ctx.Done():
			return job.Report{}, ctx.Err()
		case <-read:
		}
		h.mu.Lock()
	}
}

// readDone records the outcome of one read of f and wakes the Snapshots waiting for it. h.mu is
// held.
func (f *feed) readDone(err error) {
	f.err = err
	close(f.read)
	f.read = make(chan struct{})
}

func (h *Hub) poll(jobID string, f *feed) {
	wait := h.interval
	seq := 0
	for {
		h.fetches.Add(1)
		h.mu.Lock()
		f.started++
		n := f.started
		h.mu.Unlock()
		ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
		st, err := h.fetch(ctx, jobID)
		cancel()
		switch {
		case errors.Is(err, job.ErrNotFound):
			h.mu.Lock()
			f.readDone(err)
			h.mu.Unlock()
			h.finish(jobID, f)
			return
		case err != nil:
			// A busy workflow or a passing outage: back off, keep the subscribers.
			h.log.Debug("job state read failed; backing off", "job", jobID, "err", err, "wait", wait)
			wait = min(wait*2, h.maxWait)
			h.mu.Lock()
			f.readDone(err)
			h.mu.Unlock()
		default:
			wait = h.interval
			raw, _ := json.Marshal(st)
			h.mu.Lock()
			f.readDone(nil)
			if f.last == nil || !bytes.Equal(f.last.raw, raw) {
				seq++
				u := Update{Seq: seq, Report: st, raw: raw, json: &encoding{}}
				f.last = &u
				for sub := range f.subs {
					offer(sub, u)
				}
			}
			// The last state: the feed ends in the same hold of the lock, so that a subscriber
			// joining after this read starts a feed of its own. One who joined while it was being
			// made (it may predate an edit accepted meanwhile) waits for the next read.
			if st.Status.Terminal() && !job.Editing(st) && !f.joinedDuring(n) {
				h.finishLocked(jobID, f)
				h.mu.Unlock()
				return
			}
			h.mu.Unlock()
		}
		if h.hooks.readRecorded != nil {
			h.hooks.readRecorded()
		}
		h.mu.Lock()
		if len(f.subs) == 0 && time.Now().After(f.readUntil) {
			delete(h.feeds, jobID)
			// A Snapshot that started waiting for the next read before the linger ran out would
			// wait for ever: wake it with the last failure (a success would have left f.last).
			if f.last == nil {
				f.readDone(cmp.Or(f.err, errHubClosed))
			}
			h.mu.Unlock()
			return
		}
		h.mu.Unlock()
		select {
		case <-h.ctx.Done():
			h.finish(jobID, f)
			return
		case <-time.After(wait):
		}
	}
}

// joinedDuring reports whether a subscriber joined once read n had begun. h.mu is held.
func (f *feed) joinedDuring(n int) bool {
	for sub := range f.subs {
		if sub.since >= n {
			return true
		}
	}
	return false
}

// finish removes the feed and closes its subscribers, after they received the last update.
func (h *Hub) finish(jobID string, f *feed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.finishLocked(jobID, f)
}

// finishLocked is finish with h.mu held.
func (h *Hub) finishLocked(jobID string, f *feed) {
	if h.feeds[jobID] == f {
		delete(h.feeds, jobID)
	}
	if f.last == nil { // no Snapshot waits for a read that will not come
		f.readDone(cmp.Or(f.err, errHubClosed))
	}
	for sub := range f.subs {
		delete(f.subs, sub)
		close(sub.ch)
	}
}

// offer delivers u, replacing an undelivered older update. Only the feed's poller sends, under
// the hub's lock, so the channel cannot fill between the drain and the send.
func offer(sub *subscription, u Update) {
	select {
	case sub.ch <- u:
	default:
		select {
		case <-sub.ch:
		default:
		}
		sub.ch <- u
	}
}
