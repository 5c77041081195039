package api

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// Timeouts keep slow clients from holding connections.
type Timeouts struct {
	ReadHeader time.Duration // the whole request header
	BodyIdle   time.Duration // the longest pause while a request body is being read
	Body       time.Duration // a whole request body (a 200-page upload on a slow line)
	Idle       time.Duration // a kept-alive connection between requests
}

// DefaultTimeouts are the service's timeouts.
var DefaultTimeouts = Timeouts{ReadHeader: 10 * time.Second, BodyIdle: 30 * time.Second, Body: 10 * time.Minute, Idle: 2 * time.Minute}

// HTTPServer serves handler with DefaultTimeouts.
func HTTPServer(addr string, handler http.Handler) *TimedServer {
	return NewHTTPServer(addr, handler, DefaultTimeouts)
}

// NewHTTPServer serves handler with timeouts against slow clients: headers must arrive within
// ReadHeader (or the client is answered 408, see TimedServer), and a request body may neither pause
// longer than BodyIdle nor take longer than Body. http.Server.ReadTimeout can only bound the whole
// body, so a client could hold an upload's connection for its full ten minutes by sending a byte
// now and then; the per-read deadline catches a stall within BodyIdle. Responses (SSE, downloads)
// manage their own write deadlines.
func NewHTTPServer(addr string, handler http.Handler, t Timeouts) *TimedServer {
	base, abort := context.WithCancel(context.Background())
	// Go's own header timeout is a backstop only: the 408 comes first. Its margin is generous, so
	// that a header clock whose timer a loaded machine runs late still answers before the
	// backstop closes the connection without a word.
	backstop := t.ReadHeader + max(t.ReadHeader, 5*time.Second)
	return &TimedServer{readHeader: t.ReadHeader, abort: abort, Server: &http.Server{
		Addr:              addr,
		Handler:           headerClock(bodyDeadlines(handler, t, base)),
		ReadHeaderTimeout: backstop,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    64 << 10,
		ConnContext:       withHeaderConn,
	}}
}

// Stop ends the server gracefully: it stops accepting, lets the requests in flight finish for up
// to grace, then ends the request bodies still being read (their reads fail with errDraining, so
// an upload cut short is answered 503 "draining" and cleans up after itself, as any refused
// upload does) and waits up to cleanup for their handlers to return. A process that exits after
// Stop thus leaves no half-received upload's files behind, and no job started whose answer was
// never written.
func (s *TimedServer) Stop(grace, cleanup time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := s.Shutdown(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	s.abort()
	ctx, cancel = context.WithTimeout(context.Background(), cleanup)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		return fmt.Errorf("requests still running %v after the bodies in flight were ended: %w", cleanup, err)
	}
	return nil
}

func bodyDeadlines(next http.Handler, t Timeouts, base context.Context) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || (t.BodyIdle <= 0 && t.Body <= 0) {
			next.ServeHTTP(w, r)
			return
		}
		b := &deadlineBody{ReadCloser: r.Body, rc: http.NewResponseController(w), idle: t.BodyIdle}
		if t.Body > 0 {
			b.end = time.Now().Add(t.Body)
		}
		stop := context.AfterFunc(base, b.abort)
		r.Body = b
		next.ServeHTTP(w, r)
		stop()
		b.mu.Lock()
		b.done = true
		if !b.eof && !b.aborted {
			// The server drains what is left of an unread body before answering; a client that
			// trickles it must not hold the connection that way either.
			_ = b.rc.SetReadDeadline(b.deadline())
		}
		b.mu.Unlock()
	})
}

// deadlineBody moves the connection's read deadline before each read of the body. It clears the
// deadline once the body has been read to its end, so that the deadline never outlives the body;
// after a failed read it leaves it, already past, so that the doomed connection is not read again.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
	end  time.Time
	eof  bool
	err  error

	mu      sync.Mutex // between the handler's reads and abort
	aborted bool       // the server stopped: every read fails with errDraining
	done    bool       // the handler returned
}

func (b *deadlineBody) deadline() time.Time {
	d := b.end
	if b.idle > 0 {
		if next := time.Now().Add(b.idle); d.IsZero() || next.Before(d) {
			d = next
		}
	}
	return d
}

// abort ends the body's reads, the one blocked now included (a deadline already past).
func (b *deadlineBody) abort() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done || b.eof {
		return
	}
	b.aborted = true
	_ = b.rc.SetReadDeadline(time.Now())
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.aborted {
		b.mu.Unlock()
		return 0, errDraining
	}
	if b.eof || b.err != nil {
		b.mu.Unlock()
		return 0, cmp.Or(b.err, io.EOF)
	}
	_ = b.rc.SetReadDeadline(b.deadline())
	b.mu.Unlock()
	n, err := b.ReadCloser.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.aborted:
		return n, errDraining
	case errors.Is(err, io.EOF):
		b.eof = true
		_ = b.rc.SetReadDeadline(time.Time{})
	case err != nil:
		b.err = err
	}
	return n, err
}
