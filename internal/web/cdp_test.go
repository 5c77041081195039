package web_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A small Chrome DevTools Protocol client over --remote-debugging-pipe: Chromium reads commands
// on fd 3 and writes answers and events on fd 4, each a JSON object ended by a NUL byte. No port,
// no websocket, no dependency.

type browser struct {
	t       testing.TB
	cmd     *exec.Cmd
	w       io.WriteCloser
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan cdpMessage
	dead    chan struct{}
	deadErr error

	evMu   sync.Mutex
	events []cdpMessage // console errors, exceptions and security messages, for assertions
	stderr *strings.Builder
}

type cdpMessage struct {
	ID        int64           `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// chromiumPath finds the browser, or fails the test saying how to install it.
func chromiumPath(t testing.TB) string {
	if p := os.Getenv("VTS_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("the web page tests need Chromium: run scripts/setup.sh --test as root, or apt-get install chromium (or set VTS_CHROMIUM)")
	return ""
}

// startBrowser starts a headless Chromium with a fresh profile; it is killed at cleanup.
func startBrowser(t testing.TB) *browser {
	t.Helper()
	path := chromiumPath(t)
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	profile := t.TempDir()
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--no-default-browser-check", "--user-data-dir="+profile,
		"--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, respW} // fd 3: commands in, fd 4: answers out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	stderr := &strings.Builder{}
	cmd.Stderr = &lockedWriter{w: stderr}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting Chromium (%s): %v", path, err)
	}
	cmdR.Close()
	respW.Close()
	b := &browser{t: t, cmd: cmd, w: cmdW, pending: map[int64]chan cdpMessage{}, dead: make(chan struct{}), stderr: stderr}
	go b.read(respR)
	t.Cleanup(func() {
		cmdW.Close()
		// The whole process group: Chromium's renderer and GPU helpers too.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		respR.Close()
	})
	if _, err := b.callErr("", "Browser.getVersion", nil); err != nil {
		t.Fatalf("Chromium (%s) does not answer the DevTools protocol: %v\n%s", path, err, b.stderrText())
	}
	return b
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (b *browser) stderrText() string {
	lw := b.cmd.Stderr.(*lockedWriter)
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return b.stderr.String()
}

func (b *browser) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	var err error
	for {
		var line []byte
		line, err = br.ReadBytes(0)
		if err != nil {
			break
		}
		var m cdpMessage
		if json.Unmarshal(line[:len(line)-1], &m) != nil {
			continue
		}
		if m.ID != 0 {
			b.mu.Lock()
			ch := b.pending[m.ID]
			delete(b.pending, m.ID)
			b.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		switch m.Method {
		case "Runtime.exceptionThrown", "Log.entryAdded", "Runtime.consoleAPICalled":
			b.evMu.Lock()
			b.events = append(b.events, m)
			b.evMu.Unlock()
		}
	}
	b.deadErr = fmt.Errorf("Chromium closed the DevTools pipe: %v", err)
	close(b.dead)
}

// callErr sends one command and waits for its answer.
func (b *browser) callErr(session, method string, params any) (json.RawMessage, error) {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpMessage, 1)
	b.pending[id] = ch
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	_, err := b.w.Write(append(data, 0))
	b.mu.Unlock()
	if err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		return m.Result, nil
	case <-b.dead:
		return nil, b.deadErr
	}
}

// page is one tab, attached with a flat session.
type page struct {
	b       *browser
	session string
}

func (b *browser) newPage(width, height int) *page {
	b.t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	p := &page{b: b, session: attached.SessionID}
	for _, domain := range []string{"Page.enable", "Runtime.enable", "Log.enable", "DOM.enable"} {
		p.call(domain, nil, nil)
	}
	p.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
	// A reader who asks for less motion, as the tests do: the page scrolls at once, so a point a
	// test clicks, computed from where the page is drawn, is not moving (a smooth scroll that
	// paused under load for two looks at it moved on, and the click missed its block).
	p.call("Emulation.setEmulatedMedia", map[string]any{"features": []map[string]string{{"name": "prefers-reduced-motion", "value": "reduce"}}}, nil)
	return p
}

func (b *browser) call(session, method string, params, result any) {
	b.t.Helper()
	raw, err := b.callErr(session, method, params)
	if err != nil {
		b.t.Fatalf("DevTools %v", err)
	}
	if result != nil {
		if err := json.Unmarshal(raw, result); err != nil {
			b.t.Fatalf("DevTools %s: decoding %s: %v", method, raw, err)
		}
	}
}

func (p *page) call(method string, params, result any) {
	p.b.t.Helper()
	p.b.call(p.session, method, params, result)
}

func (p *page) navigate(url string) {
	p.b.t.Helper()
	var res struct {
		ErrorText string `json:"errorText"`
	}
	p.call("Page.navigate", map[string]any{"url": url}, &res)
	if res.ErrorText != "" {
		p.b.t.Fatalf("navigating to %s: %s", url, res.ErrorText)
	}
	p.waitFor("the page to load", `document.readyState === "complete"`)
}

// eval runs an expression in the page (awaiting a promise) and decodes its value into out.
func (p *page) eval(expr string, out any) {
	p.b.t.Helper()
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	p.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res)
	if res.ExceptionDetails != nil {
		p.b.t.Fatalf("evaluating %s: %s %s", expr, res.ExceptionDetails.Text, res.ExceptionDetails.Exception.Description)
	}
	if out != nil && len(res.Result.Value) > 0 {
		if err := json.Unmarshal(res.Result.Value, out); err != nil {
			p.b.t.Fatalf("evaluating %s: decoding %s: %v", expr, res.Result.Value, err)
		}
	}
}

// waitFor polls a boolean expression until it holds. There is no deadline here: go test's
// -timeout bounds the test, and the last state seen is logged as it changes.
func (p *page) waitFor(what, expr string) {
	p.b.t.Helper()
	for {
		var ok bool
		p.eval(expr, &ok)
		if ok {
			return
		}
		select {
		case <-p.b.dead:
			p.b.t.Fatalf("waiting for %s: %v", what, p.b.deadErr)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// typeInto focuses an input and types text into it, as a user would.
func (p *page) typeInto(selector, text string) {
	p.b.t.Helper()
	p.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.focus(); e.select && e.select(); return true })()`, selector), nil)
	p.call("Input.insertText", map[string]any{"text": text}, nil)
	p.eval(fmt.Sprintf(`(() => { document.querySelector(%q).blur(); return true })()`, selector), nil)
}

// click presses the mouse on the middle of an element, scrolled into view.
func (p *page) click(selector string) {
	p.b.t.Helper()
	var pt struct{ X, Y float64 }
	p.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.scrollIntoView({block: "center"});
		const r = e.getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2} })()`, selector), &pt)
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		p.call("Input.dispatchMouseEvent", map[string]any{"type": typ, "x": pt.X, "y": pt.Y, "button": "left", "clickCount": 1}, nil)
	}
}

// setFiles sets the files of a file input, as choosing them in the file picker does.
func (p *page) setFiles(selector string, paths ...string) {
	p.b.t.Helper()
	var doc struct {
		Root struct {
			NodeID int `json:"nodeId"`
		} `json:"root"`
	}
	p.call("DOM.getDocument", map[string]any{"depth": 0}, &doc)
	var q struct {
		NodeID int `json:"nodeId"`
	}
	p.call("DOM.querySelector", map[string]any{"nodeId": doc.Root.NodeID, "selector": selector}, &q)
	if q.NodeID == 0 {
		p.b.t.Fatalf("no element %s", selector)
	}
	p.call("DOM.setFileInputFiles", map[string]any{"nodeId": q.NodeID, "files": paths}, nil)
}

// screenshot captures the whole page as PNG.
func (p *page) screenshot() []byte {
	p.b.t.Helper()
	var m struct {
		CSSContentSize struct {
			Width, Height float64
		} `json:"cssContentSize"`
	}
	p.call("Page.getLayoutMetrics", nil, &m)
	var shot struct {
		Data string `json:"data"`
	}
	p.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": m.CSSContentSize.Width, "height": m.CSSContentSize.Height, "scale": 1}}, &shot)
	data, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		p.b.t.Fatal(err)
	}
	return data
}

// problems are the page's script exceptions, console errors from scripts and security (CSP)
// messages so far; failed network requests the page reports to the user are not among them.
func (b *browser) problems() []string {
	b.evMu.Lock()
	defer b.evMu.Unlock()
	var out []string
	for _, m := range b.events {
		switch m.Method {
		case "Runtime.exceptionThrown":
			out = append(out, "exception: "+string(m.Params))
		case "Runtime.consoleAPICalled":
			var c struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(m.Params, &c)
			if c.Type == "error" || c.Type == "assert" {
				out = append(out, "console: "+string(m.Params))
			}
		case "Log.entryAdded":
			var e struct {
				Entry struct {
					Source, Level, Text string
				} `json:"entry"`
			}
			_ = json.Unmarshal(m.Params, &e)
			if e.Entry.Source == "security" || (e.Entry.Source == "javascript" && e.Entry.Level == "error") {
				out = append(out, e.Entry.Source+": "+e.Entry.Text)
			}
		}
	}
	return out
}

// drag presses the mouse at (x0, y0), moves it in steps to (x1, y1) and releases it there, as a
// hand does; the page sees pointer events.
func (p *page) drag(x0, y0, x1, y1 float64) {
	p.b.t.Helper()
	mouse := func(typ string, x, y float64, buttons int) {
		p.call("Input.dispatchMouseEvent", map[string]any{"type": typ, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1}, nil)
	}
	mouse("mouseMoved", x0, y0, 0)
	mouse("mousePressed", x0, y0, 1)
	const steps = 8
	for i := 1; i <= steps; i++ {
		f := float64(i) / steps
		mouse("mouseMoved", x0+(x1-x0)*f, y0+(y1-y0)*f, 1)
	}
	mouse("mouseReleased", x1, y1, 0)
}

// press sends one key (a DOM key name such as "ArrowDown") to the focused element.
func (p *page) press(key string) {
	p.b.t.Helper()
	for _, typ := range []string{"keyDown", "keyUp"} {
		p.call("Input.dispatchKeyEvent", map[string]any{"type": typ, "key": key, "code": key}, nil)
	}
}

// userID is the user ID the page is using.
func (p *page) userID(t *testing.T) string {
	t.Helper()
	var id string
	p.eval(`document.getElementById('user-id').value`, &id)
	return id
}
