package lifecycle

import (
	"bytes"
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
}

type feed struct {
	subs map[*subscription]struct{}
	last *Update
}

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
func (u Update) JSON(view func(job.Report) job.State) []byte {
	u.json.once.Do(func() { u.json.data, _ = json.Marshal(view(u.Report)) })
	return u.json.data
}

// subscription receives the latest update; a slow reader skips intermediate ones, never the last.
type subscription struct {
	ch chan Update
}

// newHub starts a hub reading states with fetch, which answers job.ErrNotFound once the job is
// gone.
func newHub(fetch func(ctx context.Context, jobID string) (job.Report, error), log *slog.Logger) *Hub {
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{fetch: fetch, log: log, interval: 250 * time.Millisecond, maxWait: 5 * time.Second,
		feeds: map[string]*feed{}, ctx: ctx, cancel: cancel}
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
// is closed after a terminal state or when the job is gone. Call the returned function to leave.
func (h *Hub) Subscribe(jobID string) (<-chan Update, func()) {
	sub := &subscription{ch: make(chan Update, 1)}
	h.mu.Lock()
	f, ok := h.feeds[jobID]
	if !ok {
		f = &feed{subs: map[*subscription]struct{}{}}
		h.feeds[jobID] = f
		go h.poll(jobID, f)
	}
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

// Snapshot returns the job's state: the shared feed's last one when the job is being watched,
// otherwise one fresh read.
func (h *Hub) Snapshot(ctx context.Context, jobID string) (job.Report, error) {
	h.mu.Lock()
	if f, ok := h.feeds[jobID]; ok && f.last != nil {
		st := f.last.Report
		h.mu.Unlock()
		return st, nil
	}
	h.mu.Unlock()
	h.fetches.Add(1)
	return h.fetch(ctx, jobID)
}

func (h *Hub) poll(jobID string, f *feed) {
	wait := h.interval
	seq := 0
	for {
		h.fetches.Add(1)
		ctx, cancel := context.WithTimeout(h.ctx, 10*time.Second)
		st, err := h.fetch(ctx, jobID)
		cancel()
		switch {
		case errors.Is(err, job.ErrNotFound):
			h.finish(jobID, f)
			return
		case err != nil:
			// A busy workflow or a passing outage: back off, keep the subscribers.
			h.log.Debug("job state read failed; backing off", "job", jobID, "err", err, "wait", wait)
			wait = min(wait*2, h.maxWait)
		default:
			wait = h.interval
			raw, _ := json.Marshal(st)
			h.mu.Lock()
			if f.last == nil || !bytes.Equal(f.last.raw, raw) {
				seq++
				u := Update{Seq: seq, Report: st, raw: raw, json: &encoding{}}
				f.last = &u
				for sub := range f.subs {
					offer(sub, u)
				}
			}
			h.mu.Unlock()
			if st.Status.Terminal() {
				h.finish(jobID, f)
				return
			}
		}
		h.mu.Lock()
		if len(f.subs) == 0 {
			delete(h.feeds, jobID)
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

// finish removes the feed and closes its subscribers, after they received the last update.
func (h *Hub) finish(jobID string, f *feed) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.feeds[jobID] == f {
		delete(h.feeds, jobID)
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
