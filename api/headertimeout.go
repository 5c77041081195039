package api

import (
	"cmp"
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// TimedServer is an http.Server held to Timeouts (NewHTTPServer). Its connections answer 408
// Request Timeout, always, when a request's headers miss their deadline: http.Server's own
// ReadHeaderTimeout answers nothing or "400 Bad Request" depending on whether the deadline falls
// between two header lines or inside one (the half-read line is parsed as if it were whole), so a
// slow client could not tell a timeout from a malformed request. Here a timer per connection
// answers first and closes the connection; the server's own timeout stays as a later backstop.
type TimedServer struct {
	*http.Server
	readHeader time.Duration
	abort      context.CancelFunc // ends the bodies still being read (Stop)
}

// ListenAndServe listens on Addr and serves.
func (s *TimedServer) ListenAndServe() error {
	l, err := net.Listen("tcp", cmp.Or(s.Addr, ":http"))
	if err != nil {
		return err
	}
	return s.Serve(l)
}

// Serve serves the connections l accepts.
func (s *TimedServer) Serve(l net.Listener) error {
	if s.readHeader <= 0 {
		return s.Server.Serve(l)
	}
	return s.Server.Serve(headerTimeoutListener{Listener: l, d: s.readHeader})
}

type headerTimeoutListener struct {
	net.Listener
	d time.Duration
}

func (l headerTimeoutListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	hc := &headerConn{Conn: c, d: l.d, waiting: true}
	hc.timer = time.AfterFunc(l.d, hc.expire) // the first request's headers are due from the start
	return hc, nil
}

// headerConn times a request's headers: from the connection's start for its first request, from
// the first byte of each later one (an idle kept-alive connection is IdleTimeout's), until the
// handler starts.
type headerConn struct {
	net.Conn
	d       time.Duration
	mu      sync.Mutex
	timer   *time.Timer
	waiting bool // a request's headers are being read
	expired bool
}

func (c *headerConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if c.waiting && c.timer == nil && !c.expired {
			c.timer = time.AfterFunc(c.d, c.expire)
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *headerConn) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.waiting || c.expired {
		return
	}
	c.expired = true
	const msg = "408 Request Timeout"
	_ = c.Conn.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.Conn.Write([]byte("HTTP/1.1 " + msg + "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n" + msg))
	_ = c.Conn.Close()
}

// headersRead stops the clock: the handler has the request.
func (c *headerConn) headersRead() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waiting = false
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
}

// awaitHeaders arms the clock for the connection's next request, started by its first byte.
func (c *headerConn) awaitHeaders() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waiting = true
}

func (c *headerConn) Close() error {
	c.mu.Lock()
	c.waiting = false
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	return c.Conn.Close()
}

type headerConnKey struct{}

// withHeaderConn puts the connection in its requests' contexts, for headerClock.
func withHeaderConn(ctx context.Context, c net.Conn) context.Context {
	if hc, ok := c.(*headerConn); ok {
		return context.WithValue(ctx, headerConnKey{}, hc)
	}
	return ctx
}

// headerClock stops the connection's header clock while the handler has the request, and arms it
// again for the next one.
func headerClock(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hc, ok := r.Context().Value(headerConnKey{}).(*headerConn)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		hc.headersRead()
		defer hc.awaitHeaders()
		next.ServeHTTP(w, r)
	})
}
