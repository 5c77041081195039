package read

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Processes started ahead of need. A Tesseract process spends a third of a second loading a CJK
// model before it reads anything, and it reads the list of images it is given on standard input
// only once the model is loaded: started early, it loads while the page is still being found or
// the previous list read. One loaded process per command line waits, shared by every Tesseract
// of the program (a worker's pages, a test's engines), and leaves after idleFor unused, so an
// idle worker holds no model in memory for long.

var idleFor = 2 * time.Minute // a variable for the tests

// warm is a process started with its command line, waiting for its list on stdin.
type warm struct {
	cmd            *exec.Cmd
	stdin          io.WriteCloser
	stdout, stderr bytes.Buffer
	done           chan error // Wait's answer
	expiry         *time.Timer
}

var idle = struct {
	sync.Mutex
	procs map[string]*warm
}{procs: map[string]*warm{}}

func (t *Tesseract) start(argv []string) (*warm, error) {
	cmd := exec.Command(t.path, argv...)
	w := &warm{cmd: cmd, done: make(chan error, 1)}
	cmd.Env, cmd.Stdout, cmd.Stderr = t.env, &w.stdout, &w.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", t.path, err)
	}
	w.stdin = in
	go func() { w.done <- cmd.Wait() }()
	return w, nil
}

// readList runs Tesseract with args over the images named one per line in list, on a process
// that has its model loaded already when one waits, and leaves the next one loading.
func (t *Tesseract) readList(ctx context.Context, list string, args []string) ([]byte, error) {
	if err := t.acquire(ctx); err != nil {
		return nil, err
	}
	defer t.release()
	t.runs.Add(1)
	argv := append(append(t.baseArgs(), "stdin", "stdout"), args...)
	key := t.path + "\x00" + strings.Join(argv, "\x00")
	w := takeIdle(key)
	waited := w != nil
	var err error
	if !waited {
		if w, err = t.start(argv); err != nil {
			return nil, err
		}
	}
	t.warmUp(key, argv)
	out, err := t.feed(ctx, w, list, args)
	if err != nil && waited && ctx.Err() == nil {
		// One that waited may have been stopped meanwhile: a new one reads the list.
		if w, err = t.start(argv); err != nil {
			return nil, err
		}
		out, err = t.feed(ctx, w, list, args)
	}
	return out, err
}

// feed gives w its list and answers what it printed.
func (t *Tesseract) feed(ctx context.Context, w *warm, list string, args []string) ([]byte, error) {
	// A failed write is the process's own failure, which its exit tells with its reasons.
	_, _ = io.WriteString(w.stdin, list)
	_ = w.stdin.Close()
	var err error
	select {
	case err = <-w.done:
	case <-ctx.Done():
		_ = w.cmd.Process.Kill()
		<-w.done
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, t.failed(args, err, w.stderr.String())
	}
	return w.stdout.Bytes(), nil
}

func takeIdle(key string) *warm {
	idle.Lock()
	defer idle.Unlock()
	w := idle.procs[key]
	if w != nil {
		delete(idle.procs, key)
		w.expiry.Stop()
	}
	return w
}

// warmUp starts a process for key unless one waits already. When it cannot start, the next
// list starts its own and says why.
func (t *Tesseract) warmUp(key string, argv []string) {
	idle.Lock()
	defer idle.Unlock()
	if idle.procs[key] != nil {
		return
	}
	w, err := t.start(argv)
	if err != nil {
		return
	}
	idle.procs[key] = w
	w.expiry = time.AfterFunc(idleFor, func() {
		idle.Lock()
		mine := idle.procs[key] == w
		if mine {
			delete(idle.procs, key)
		}
		idle.Unlock()
		if mine {
			_ = w.stdin.Close() // an empty list: it reads nothing and leaves
			<-w.done
		}
	})
}
