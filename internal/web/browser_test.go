package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vtsproject/vts/api"
	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/identity"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/testkit/oidctest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// pageState is what the tests read off the page.
type pageState struct {
	Status       string   `json:"status"`
	ProgressText string   `json:"progressText"`
	Images       int      `json:"images"`
	Loaded       int      `json:"loaded"`
	Download     string   `json:"download"`
	DownloadCBZ  string   `json:"downloadCbz"`
	JobID        string   `json:"jobId"`
	Allowance    string   `json:"allowance"`
	Plan         string   `json:"plan"`
	Error        string   `json:"error"`
	Summary      string   `json:"summary"`
	Cost         string   `json:"cost"`
	Thumbs       int      `json:"thumbs"`
	Recent       []string `json:"recent"`
	JobHidden    bool     `json:"jobHidden"`
}

const readState = `(() => {
	const $ = (id) => document.getElementById(id);
	const imgs = [...document.querySelectorAll('#gallery img')];
	return {
		status: $('job-status').textContent,
		progressText: $('job-progress-text').textContent,
		images: imgs.length,
		loaded: imgs.filter((i) => i.complete && i.naturalWidth > 0).length,
		download: $('job-actions').hidden || $('download').hidden ? '' : $('download').getAttribute('href'),
		downloadCbz: $('job-actions').hidden || $('download-cbz').hidden ? '' : $('download-cbz').getAttribute('href'),
		jobId: $('job-id').textContent,
		allowance: $('acct-allowance').textContent,
		plan: $('acct-plan').textContent,
		error: $('error').hidden ? '' : $('error').textContent,
		summary: $('file-summary').textContent,
		cost: $('cost').textContent,
		thumbs: document.querySelectorAll('#thumbs img').length,
		recent: [...document.querySelectorAll('#recent .recent-item')].map((li) => li.textContent),
		jobHidden: $('job').hidden,
	};
})()`

func (p *page) state() pageState {
	p.b.t.Helper()
	return read[pageState](p, readState)
}

// read evaluates expr, an object of what the page shows, into a T.
func read[T any](p *page, expr string) T {
	p.b.t.Helper()
	var s T
	p.eval(expr, &s)
	return s
}

// until polls the page's state until cond holds.
func (p *page) until(what string, cond func(pageState) bool) pageState {
	p.b.t.Helper()
	return poll(p, what, readState, cond)
}

// poll reads expr until cond holds, logging each new reading, so that a test stopped by go
// test's -timeout shows where it stood.
func poll[T any](p *page, what, expr string, cond func(T) bool) T {
	p.b.t.Helper()
	last := ""
	for {
		s := read[T](p, expr)
		if cond(s) {
			return s
		}
		if j, _ := json.Marshal(s); string(j) != last {
			last = string(j)
			p.b.t.Logf("waiting for %s: %s", what, last)
		}
		p.waitFor("a moment", `new Promise((r) => setTimeout(() => r(true), 100))`)
	}
}

// screenshotDir is where screenshots go for a person to look at; they are never committed.
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("VTS_SCREENSHOT_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "vts-web-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFiles(t *testing.T, files map[string][]byte) []string {
	dir := t.TempDir()
	var paths []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// transcriptPanel is what the viewer shows once the transcript of the named page is in.
type transcriptPanel struct {
	Title        string   `json:"title"`
	Visible      bool     `json:"visible"`
	ImageLoaded  bool     `json:"imageLoaded"`
	Meta         string   `json:"meta"`
	Blocks       []string `json:"blocks"`
	Sources      []string `json:"sources"`
	Translations []string `json:"translations"`
	Low          []bool   `json:"low"`
	Transcript   string   `json:"transcript"`
	Cleaned      string   `json:"cleaned"`
}

func (p *page) transcriptPanel(name string) transcriptPanel {
	p.b.t.Helper()
	p.waitFor(name+"'s transcript", fmt.Sprintf(`document.getElementById('viewer-title').textContent === %q &&
		document.querySelectorAll('#transcript-blocks li').length > 0 && document.getElementById('viewer-img').complete`, name))
	var panel transcriptPanel
	p.eval(`(() => {
		const $ = (id) => document.getElementById(id);
		const blocks = [...document.querySelectorAll('#transcript-blocks li')];
		const link = (id) => $(id).hidden ? '' : $(id).getAttribute('href');
		return {
			title: $('viewer-title').textContent,
			visible: $('viewer').checkVisibility(),
			imageLoaded: $('viewer-img').naturalWidth > 0,
			meta: $('transcript-meta').textContent,
			blocks: blocks.map((b) => b.textContent),
			sources: blocks.map((b) => b.querySelector('.block-source').textContent),
			translations: blocks.map((b) => b.querySelector('.block-translation').textContent),
			low: blocks.map((b) => b.classList.contains('low')),
			transcript: link('transcript-download'),
			cleaned: link('cleaned-download'),
		};
	})()`, &panel)
	return panel
}

func noProblems(t *testing.T, b *browser) {
	t.Helper()
	for _, p := range b.problems() {
		t.Errorf("the page reported a problem: %s", p)
	}
}

// A reader uploads two pages with a glossary, watches them being translated, sees both, reads a
// page's transcript beside it, can download the ZIP, the transcript and the cleaned page, sees
// the credits spent, and deletes the project.
func TestBrowserTranslatesPages(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	b := startBrowser(t)
	p := b.newPage(1200, 900)
	p.navigate(env.URL + "/")

	user := "reader-" + uuid.NewString()[:8]
	p.typeInto("#user-id", user)
	p.until("the new user's account", func(s pageState) bool { return s.Plan == "Free" && s.Allowance == "10 credits" })

	paths := writeFiles(t, map[string][]byte{
		"page1.png": apitest.PNG(t, 300, 420, 10),
		"page2.png": apitest.PNG(t, 300, 420, 90),
	})
	p.setFiles("#files", paths...)
	s := p.until("two thumbnails", func(s pageState) bool { return s.Thumbs == 2 })
	if !strings.HasPrefix(s.Summary, "2 pages,") || !strings.HasPrefix(s.Cost, "Cost: 2 credits") {
		t.Errorf("summary %q, cost %q; want 2 pages costing 2 credits", s.Summary, s.Cost)
	}
	// The cost follows the spec's formula as the options change: 2 pages × 4K (4) × fast (0.5).
	p.eval(`(() => { for (const [id, v] of [['mode', 'fast'], ['resolution', '4K']]) {
		const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event('change')); } return true })()`, nil)
	if s := p.state(); !strings.HasPrefix(s.Cost, "Cost: 4 credits") {
		t.Errorf("cost for 2 pages, 4K, fast: %q; want 4 credits", s.Cost)
	}
	p.eval(`(() => { for (const [id, v] of [['mode', 'standard'], ['resolution', 'original']]) {
		const e = document.getElementById(id); e.value = v; e.dispatchEvent(new Event('change')); } return true })()`, nil)
	// The glossary is tucked away until asked for.
	var glossaryShown bool
	p.eval(`document.getElementById('glossary').checkVisibility()`, &glossaryShown)
	if glossaryShown {
		t.Error("the glossary is open before the reader asks for it")
	}
	p.click("#glossary-box summary")
	p.waitFor("the glossary to open", `document.getElementById('glossary').checkVisibility()`)
	p.typeInto("#glossary", "# the cast\nHello=Hi")

	p.click("#upload")
	s = p.until("the job to complete with both pages shown", func(s pageState) bool {
		return s.Status == "completed" && s.Images == 2 && s.Loaded == 2 && s.Allowance == "8 credits" && s.Download != ""
	})
	if _, err := uuid.Parse(s.JobID); err != nil {
		t.Fatalf("job ID on the page %q: %v", s.JobID, err)
	}
	if want := "/api/download/" + s.JobID; s.Download != want {
		t.Errorf("download link %q, want %q", s.Download, want)
	}
	if !strings.HasPrefix(s.ProgressText, "2 of 2 pages") {
		t.Errorf("progress text %q", s.ProgressText)
	}
	if len(s.Recent) != 1 || !strings.Contains(s.Recent[0], "completed") || !strings.Contains(s.Recent[0], s.JobID[:8]) {
		t.Errorf("recent jobs %q; want this job, completed", s.Recent)
	}
	var names []string
	p.eval(`[...document.querySelectorAll('#gallery .result-name')].map((e) => e.textContent)`, &names)
	if !slices.Equal(names, []string{"page1.png", "page2.png"}) {
		t.Errorf("gallery %q, want the upload order", names)
	}
	var srcs []string
	p.eval(`[...document.querySelectorAll('#gallery img')].map((i) => i.getAttribute('src'))`, &srcs)
	for _, src := range srcs {
		if !strings.HasPrefix(src, "/api/outputs/"+s.JobID+"/") {
			t.Errorf("result image %q is not one of the job's outputs", src)
		}
	}

	// Choosing a page shows it beside its transcript: blocks in reading order, each with its
	// source, translation (the glossary applied), language and confidence, the doubtful one
	// flagged; and the downloads of the transcript and the cleaned page.
	p.click("#gallery li:nth-child(1) .result-open")
	panel := p.transcriptPanel("page1.png")
	if panel.Title != "page1.png" || !panel.Visible || !panel.ImageLoaded {
		t.Errorf("the viewer shows %q (visible %v, image loaded %v)", panel.Title, panel.Visible, panel.ImageLoaded)
	}
	if !slices.Equal(panel.Sources, []string{"Hello from page1.png", "Goodbye"}) ||
		!slices.Equal(panel.Translations, []string{"[en] Hi from page1.png", "[en] Goodbye"}) {
		t.Errorf("blocks: sources %q, translations %q", panel.Sources, panel.Translations)
	}
	if !slices.Equal(panel.Low, []bool{false, true}) || !strings.Contains(panel.Blocks[1], "41%") || !strings.Contains(panel.Blocks[0], "97%") {
		t.Errorf("confidences: low %v, blocks %q", panel.Low, panel.Blocks)
	}
	if !strings.Contains(panel.Meta, "Detected language: Japanese (ja)") || !strings.Contains(panel.Blocks[0], "Japanese (ja)") {
		t.Errorf("detected language: meta %q, block %q", panel.Meta, panel.Blocks[0])
	}
	if want := "/api/outputs/" + s.JobID + "/transcripts/page1.png.json"; panel.Transcript != want {
		t.Errorf("transcript download %q, want %q", panel.Transcript, want)
	} else if r := env.Do("GET", panel.Transcript, nil, nil); r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/json" ||
		!strings.Contains(string(r.Body), `"source": "Hello from page1.png"`) {
		t.Errorf("the transcript download: %d %s %.200s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	if want := "/api/outputs/" + s.JobID + "/cleaned/page1.png"; panel.Cleaned != want {
		t.Errorf("cleaned page download %q, want %q", panel.Cleaned, want)
	} else if r := env.Do("GET", panel.Cleaned, nil, nil); r.Status != http.StatusOK || r.Header.Get("Content-Type") != "image/png" {
		t.Errorf("the cleaned page download: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	p.click("#gallery li:nth-child(2) .result-open")
	if panel := p.transcriptPanel("page2.png"); len(panel.Sources) != 2 || panel.Sources[0] != "Hello from page2.png" ||
		panel.Translations[0] != "[en] Hi from page2.png" || !strings.HasSuffix(panel.Transcript, "/page2.png.json") {
		t.Errorf("the second page's panel: %+v", panel)
	}
	if a, _ := env.Balance(user); a != 8 {
		t.Errorf("allowance in the database %d, want 8", a)
	}
	if r := env.Do("GET", s.Download, nil, nil); r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/zip" {
		t.Errorf("download: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	if want := "/api/download/" + s.JobID + "?format=cbz"; s.DownloadCBZ != want {
		t.Errorf("CBZ download link %q, want %q", s.DownloadCBZ, want)
	} else if r := env.Do("GET", s.DownloadCBZ, nil, nil); r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/vnd.comicbook+zip" {
		t.Errorf("CBZ download: %d %s", r.Status, r.Header.Get("Content-Type"))
	}

	shot := filepath.Join(screenshotDir(t), "completed.png")
	if err := os.WriteFile(shot, p.screenshot(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)
	p.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true}, nil)
	narrow := filepath.Join(screenshotDir(t), "completed-narrow.png")
	if err := os.WriteFile(narrow, p.screenshot(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", narrow)
	p.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1200, "height": 900, "deviceScaleFactor": 1, "mobile": false}, nil)

	// Delete asks for a second click, then the project is gone on the server too.
	p.click("#delete")
	p.waitFor("the delete button to ask again", `document.getElementById('delete').textContent.startsWith('Really')`)
	p.click("#delete")
	s = p.until("the project to be deleted", func(s pageState) bool {
		return s.JobHidden && len(s.Recent) == 1 && strings.Contains(s.Recent[0], "deleted")
	})
	if r := env.Do("GET", "/api/jobs/"+s.JobID, nil, nil); r.Status != http.StatusNotFound {
		t.Errorf("the deleted job answers %d", r.Status)
	}

	// A reload remembers the user and the job, and reads the job's state from the server.
	p.navigate(env.URL + "/")
	s = p.until("the reloaded page", func(s pageState) bool {
		return s.Allowance == "8 credits" && len(s.Recent) == 1 && strings.Contains(s.Recent[0], "deleted")
	})
	var remembered string
	p.eval(`document.getElementById('user-id').value`, &remembered)
	if remembered != user {
		t.Errorf("user ID after reload %q, want %q", remembered, user)
	}
	noProblems(t, b)
}

// A page that fails is listed with its message, the others are shown, the progress is
// followed as it goes, and the failed page's credit comes back.
func TestBrowserShowsFailedPages(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{FailSubstring: "bad", Latency: 300 * time.Millisecond}, Parallelism: 1})
	b := startBrowser(t)
	p := b.newPage(1000, 900)
	p.navigate(env.URL + "/")
	p.typeInto("#user-id", "team-"+uuid.NewString()[:8])
	p.setFiles("#files", writeFiles(t, map[string][]byte{
		"a-good.png": apitest.PNG(t, 60, 80, 1),
		"b-bad.png":  apitest.PNG(t, 60, 80, 2),
		"c-good.png": apitest.PNG(t, 60, 80, 3),
	})...)
	p.until("three thumbnails", func(s pageState) bool { return s.Thumbs == 3 })
	p.click("#upload")
	sawProgress := false
	s := p.until("the job to complete", func(s pageState) bool {
		if s.Status == "processing" && strings.Contains(s.ProgressText, "now: ") {
			sawProgress = true
		}
		return s.Status == "completed" && s.Loaded == 2 && s.Allowance == "8 credits"
	})
	if !sawProgress {
		t.Error("never saw the job processing with its current file")
	}
	var failures []string
	p.eval(`[...document.querySelectorAll('#failure-list li')].map((e) => e.textContent)`, &failures)
	if len(failures) != 1 || !strings.HasPrefix(failures[0], "b-bad.png: ") || len(failures[0]) <= len("b-bad.png: ") {
		t.Errorf("failed pages shown: %q", failures)
	}
	if s.Download != "/api/download/"+s.JobID {
		t.Errorf("download link %q", s.Download)
	}
	if s.ProgressText != "3 of 3 pages — completed — 1 could not be translated" {
		t.Errorf("progress text %q", s.ProgressText)
	}
	shot := filepath.Join(screenshotDir(t), "failed-page.png")
	if err := os.WriteFile(shot, p.screenshot(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)
	noProblems(t, b)
}

// An upload the API refuses shows the API's error; names are shown as text, never as markup.
func TestBrowserShowsErrors(t *testing.T) {
	var mu sync.Mutex
	auth := map[string]string{} // method and path → the last Authorization header
	var idemKeys []string       // the Idempotency-Key of each upload
	// A deployment with an identity provider: the page sends the user's ID token with every request.
	iss := oidctest.New(t)
	verifier, err := identity.New(identity.Options{Issuer: iss.URL, Audience: iss.Audience, Client: iss.Client(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	user := "scanlator-" + uuid.NewString()[:8]
	token := iss.Token(t, user)
	env := apitest.Start(t, apitest.Options{
		Configure: func(s *api.Server) { s.Tokens = verifier },
		Wrap: func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				auth[r.Method+" "+r.URL.Path] = r.Header.Get("Authorization")
				if r.Method == http.MethodPost && r.URL.Path == "/api/translate" {
					idemKeys = append(idemKeys, r.Header.Get("Idempotency-Key"))
				}
				mu.Unlock()
				next.ServeHTTP(w, r)
			})
		}})
	b := startBrowser(t)
	p := b.newPage(1200, 900)
	p.navigate(env.URL + "/")

	// Without a user ID the page says so before sending anything.
	paths := writeFiles(t, map[string][]byte{"x.png": []byte("this is not an image, whatever its name says\n")})
	p.setFiles("#files", paths...)
	p.until("the thumbnail", func(s pageState) bool { return s.Thumbs == 1 })
	p.click("#upload")
	s := p.until("the missing user ID", func(s pageState) bool { return s.Error != "" })
	if !strings.Contains(s.Error, "user ID") {
		t.Errorf("error without a user ID: %q", s.Error)
	}

	p.typeInto("#user-id", user)
	// The ID token, when given, goes with every request.
	p.typeInto("#token", token)
	p.until("the account read with the token", func(pageState) bool {
		mu.Lock()
		defer mu.Unlock()
		return auth["GET /api/account"] == "Bearer "+token
	})
	p.click("#upload")
	s = p.until("the 415", func(s pageState) bool { return strings.Contains(s.Error, "415") })
	if !strings.Contains(s.Error, "unsupported_media_type") || !strings.Contains(s.Error, "Unsupported file") {
		t.Errorf("error shown: %q", s.Error)
	}
	if !s.JobHidden {
		t.Error("a refused upload shows a job")
	}
	shot := filepath.Join(screenshotDir(t), "error.png")
	if err := os.WriteFile(shot, p.screenshot(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)

	// Too many credits: 3 pages at 4K (12 credits) for a Free user's 10 is a 402 with the numbers.
	var many = map[string][]byte{}
	for i := range 3 {
		many[fmt.Sprintf("p%d.png", i)] = apitest.PNG(t, 40, 40, byte(i))
	}
	p.click("#clear-files")
	p.setFiles("#files", writeFiles(t, many)...)
	p.eval(`(() => { const e = document.getElementById('resolution'); e.value = '4K'; e.dispatchEvent(new Event('change')); return true })()`, nil)
	p.click("#upload")
	s = p.until("the 402", func(s pageState) bool { return strings.Contains(s.Error, "402") })
	if !strings.Contains(s.Error, "needs 12 credits") || !strings.Contains(s.Error, "you have 10") {
		t.Errorf("error shown: %q", s.Error)
	}
	mu.Lock()
	if len(idemKeys) < 2 || idemKeys[0] == idemKeys[1] || !strings.HasPrefix(idemKeys[0], "web-") || len(idemKeys[0]) != 36 {
		t.Errorf("each upload needs its own Idempotency-Key: %q", idemKeys)
	}
	if got := auth["POST /api/translate"]; got != "Bearer "+token {
		t.Errorf("the upload's Authorization header: %q", got)
	}
	mu.Unlock()

	// A file name with markup in it stays text.
	p.click("#clear-files")
	p.setFiles("#files", writeFiles(t, map[string][]byte{`<b id="injected">bold<i>.png`: apitest.PNG(t, 20, 20, 1)})...)
	p.until("the thumbnail", func(s pageState) bool { return s.Thumbs == 1 })
	var injected bool
	p.eval(`document.getElementById('injected') !== null || document.querySelector('#thumbs b') !== null`, &injected)
	var name string
	p.eval(`document.querySelector('#thumbs .thumb-name').textContent`, &name)
	if injected || name != `<b id="injected">bold<i>.png` {
		t.Errorf("a file name became markup (injected %v, shown %q)", injected, name)
	}
	noProblems(t, b)
}
