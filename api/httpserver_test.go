package api

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func serve(t *testing.T, h http.Handler, to Timeouts) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewHTTPServer("", h, to)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return l.Addr().String()
}

// dial serves h as serve does and opens a connection to it, closed when the test ends.
func dial(t *testing.T, h http.Handler, to Timeouts) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", serve(t, h, to))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// closedByServer reads c until the server closes it and returns what it sent before.
func closedByServer(t *testing.T, c net.Conn) string {
	t.Helper()
	b, err := io.ReadAll(c)
	if err != nil && !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("reading: %v", err)
	}
	return string(b)
}

// A slowloris client sends its headers a byte at a time and never finishes them: the server
// closes the connection without ever running the handler.
func TestSlowlorisHeadersAreCutOff(t *testing.T) {
	var calls atomic.Int64
	c := dial(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }),
		Timeouts{ReadHeader: 300 * time.Millisecond, BodyIdle: time.Second, Body: time.Minute, Idle: time.Minute})
	stop := make(chan struct{})
	go func() {
		// Endless headers, one byte every 20 ms: only the server can end this exchange.
		header := []byte("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
		for i := 0; ; i++ {
			b := byte('a')
			if i < len(header) {
				b = header[i]
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if _, err := c.Write([]byte{b}); err != nil {
				return
			}
		}
	}()
	got := closedByServer(t, c)
	close(stop)
	if calls.Load() != 0 {
		t.Fatal("the handler ran for an unfinished request")
	}
	if !strings.HasPrefix(got, "HTTP/1.1 408 ") {
		t.Fatalf("the server answered %q, want 408 whenever its deadline falls", got)
	}
}

// A kept-alive connection may idle longer than the header deadline between requests; its next
// request's headers, once begun, are held to the deadline and answered 408 when they miss it.
func TestHeaderDeadlineOnKeptAliveConnection(t *testing.T) {
	var calls atomic.Int64
	c := dial(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { calls.Add(1) }),
		Timeouts{ReadHeader: 200 * time.Millisecond, BodyIdle: time.Second, Body: time.Minute, Idle: time.Minute})
	rd := bufio.NewReader(c)
	for i := range 2 {
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(rd, nil)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %v %v", i, resp, err)
		}
		resp.Body.Close()
		time.Sleep(400 * time.Millisecond) // idle, twice the header deadline
	}
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: a"); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rd)
	if got := string(b); !strings.HasPrefix(got, "HTTP/1.1 408 ") {
		t.Fatalf("an unfinished request on a kept-alive connection: %q, want 408", got)
	}
	if calls.Load() != 2 {
		t.Fatalf("the handler ran %d times, want 2", calls.Load())
	}
}

// A client that stops sending its body midway is cut off after BodyIdle, and the handler sees a
// timeout rather than waiting forever.
func TestStalledBodyIsCutOff(t *testing.T) {
	readErr := make(chan error, 1)
	c := dial(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		readErr <- err
	}), Timeouts{ReadHeader: time.Second, BodyIdle: 300 * time.Millisecond, Body: time.Minute, Idle: time.Minute})
	if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nonly ten b"); err != nil {
		t.Fatal(err)
	}
	if err := <-readErr; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the handler's read ended with %v, want a deadline", err)
	}
	closedByServer(t, c)
}

// The body deadlines do not outlive the body: a response that lasts far longer than the body's
// deadline (an SSE stream, a download) keeps its context.
func TestLongResponseKeepsItsContext(t *testing.T) {
	to := Timeouts{ReadHeader: time.Second, BodyIdle: 100 * time.Millisecond, Body: 200 * time.Millisecond, Idle: time.Minute}
	addr := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		for i := 0; i < 6; i++ { // 600 ms: three times the body's whole deadline
			if r.Context().Err() != nil {
				http.Error(w, "cancelled", http.StatusServiceUnavailable)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		_, _ = io.WriteString(w, "still here")
	}), to)
	resp, err := http.Post("http://"+addr+"/", "text/plain", strings.NewReader("small body"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(bufio.NewReader(resp.Body))
	if resp.StatusCode != 200 || string(b) != "still here" {
		t.Fatalf("long response: %d %q", resp.StatusCode, b)
	}
}
