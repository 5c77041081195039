package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/ocr"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/testkit/llmfake"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// editorState is what the tests read off the editor.
type editorState struct {
	Visible  bool       `json:"visible"`
	Title    string     `json:"title"`
	Image    string     `json:"image"`
	Loaded   bool       `json:"loaded"`
	Outlines []outline  `json:"outlines"`
	Items    []string   `json:"items"`
	Current  int        `json:"current"`
	Focused  int        `json:"focused"`
	Detail   string     `json:"detail"`
	Source   string     `json:"source"`
	Trans    string     `json:"translation"`
	Box      [4]float64 `json:"box"`
	Status   string     `json:"status"`
	Error    string     `json:"error"`
	Cost     string     `json:"cost"`
	SaveOff  bool       `json:"saveDisabled"`
	Stage    [4]float64 `json:"stage"` // the outlines' layer on screen: left, top, width, height
	Page     [2]float64 `json:"page"`  // the page's size in pixels
	Gallery  []string   `json:"gallery"`
}

type outline struct {
	Class string     `json:"class"`
	Box   [4]float64 `json:"box"`
}

const readEditor = `(() => {
	const $ = (id) => document.getElementById(id);
	const items = [...document.querySelectorAll('#editor-blocks .eb-item')];
	const svg = $('editor-svg');
	const r = svg.getBoundingClientRect();
	const vb = (svg.getAttribute('viewBox') || '0 0 0 0').split(' ').map(Number);
	const n = (id) => Number($(id).value);
	return {
		visible: $('editor').checkVisibility(),
		title: $('editor-title').textContent,
		image: $('editor-img').getAttribute('src') || '',
		loaded: $('editor-img').complete && $('editor-img').naturalWidth > 0,
		outlines: [...svg.querySelectorAll('g.ebox')].map((g) => {
			const b = g.querySelector('rect');
			return { class: g.getAttribute('class'), box: ['x', 'y', 'width', 'height'].map((a) => Number(b.getAttribute(a))) };
		}),
		items: items.map((b) => b.textContent),
		current: items.findIndex((b) => b.getAttribute('aria-current') === 'true'),
		focused: items.indexOf(document.activeElement),
		detail: $('editor-detail').hidden ? '' : $('editor-detail-title').textContent + ' | ' + $('editor-detail-meta').textContent,
		source: $('ed-source').value,
		translation: $('ed-translation').value,
		box: [n('ed-x'), n('ed-y'), n('ed-w'), n('ed-h')],
		status: $('editor-status').textContent,
		error: $('editor-error').hidden ? '' : $('editor-error').textContent,
		cost: $('editor-cost').textContent,
		saveDisabled: $('editor-save').disabled,
		stage: [r.left, r.top, r.width, r.height],
		page: [vb[2], vb[3]],
		gallery: [...document.querySelectorAll('#gallery img')].map((i) => i.getAttribute('src')),
	};
})()`

func (p *page) editor() editorState {
	p.b.t.Helper()
	return read[editorState](p, readEditor)
}

// untilEditor waits until cond holds and the editor stands still on the screen: opening it
// scrolls smoothly, and a point the test clicks is computed from where the page is drawn, which
// under load may still be moving when the blocks are in.
func (p *page) untilEditor(what string, cond func(editorState) bool) editorState {
	p.b.t.Helper()
	var before [4]float64
	return poll(p, what, readEditor, func(e editorState) bool {
		still := e.Stage == before
		before = e.Stage
		return still && cond(e)
	})
}

// screen is where a point of the page (in page pixels) is on the screen.
func (s editorState) screen(x, y float64) (float64, float64) {
	return s.Stage[0] + x*s.Stage[2]/s.Page[0], s.Stage[1] + y*s.Stage[3]/s.Page[1]
}

// near says whether two boxes agree within tol page pixels on every side.
func near(a, b [4]float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

func boxOf(r engine.Rect) [4]float64 {
	return [4]float64{float64(r.X), float64(r.Y), float64(r.W), float64(r.H)}
}

// edits records the bodies of the edit requests the page sends, and, in order, every request
// about a job (method and path), so that a test can tell how the page learnt of an edit's
// outcome: from the job's event stream, or by reading its state.
type edits struct {
	mu     sync.Mutex
	bodies []json.RawMessage
	paths  []string
	asked  []string
	// refuseStreams answers the job's event stream 503, as a proxy refusing streams would.
	refuseStreams atomic.Bool
}

func (e *edits) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/jobs/") {
			e.mu.Lock()
			e.asked = append(e.asked, r.Method+" "+r.URL.Path)
			e.mu.Unlock()
			if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/events") && e.refuseStreams.Load() {
				http.Error(w, "no streams here", http.StatusServiceUnavailable)
				return
			}
		}
		if r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/transcript") {
			body, _ := io.ReadAll(r.Body)
			e.mu.Lock()
			e.bodies = append(e.bodies, body)
			e.paths = append(e.paths, r.URL.EscapedPath())
			e.mu.Unlock()
			r.Body = io.NopCloser(strings.NewReader(string(body)))
		}
		next.ServeHTTP(w, r)
	})
}

func (e *edits) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.bodies)
}

// editBody is the edit request as the API reads it.
type editBody struct {
	UserID      string            `json:"userId"`
	Transcript  engine.Transcript `json:"transcript"`
	Retranslate []string          `json:"retranslate"`
}

// sinceLastEdit counts the requests for the job's event stream and for its state made since the
// last edit was sent.
func (e *edits) sinceLastEdit(jobID string) (streams, reads int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.asked) - 1; i >= 0 && !strings.HasPrefix(e.asked[i], http.MethodPut); i-- {
		switch e.asked[i] {
		case "GET /api/jobs/" + jobID + "/events":
			streams++
		case "GET /api/jobs/" + jobID:
			reads++
		}
	}
	return streams, reads
}

func (e *edits) last(t *testing.T) (string, editBody) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	var b editBody
	if err := json.Unmarshal(e.bodies[len(e.bodies)-1], &b); err != nil {
		t.Fatalf("the edit request is not the API's JSON: %v\n%s", err, e.bodies[len(e.bodies)-1])
	}
	return e.paths[len(e.paths)-1], b
}

// finishedJob uploads the named pages through the page as a reader does and waits until the
// job is complete with every page shown.
func finishedJob(t *testing.T, p *page, user string, files map[string][]byte) pageState {
	t.Helper()
	p.typeInto("#user-id", user)
	p.until("the new user's account", func(s pageState) bool { return s.Plan == "Free" })
	p.setFiles("#files", writeFiles(t, files)...)
	p.until("the thumbnails", func(s pageState) bool { return s.Thumbs == len(files) })
	p.click("#upload")
	return p.until("the job to complete", func(s pageState) bool {
		return s.Status == "completed" && s.Loaded == len(files) && s.Download != ""
	})
}

func shoot(t *testing.T, p *page, name string) {
	t.Helper()
	shot := filepath.Join(screenshotDir(t), name)
	if err := os.WriteFile(shot, p.screenshot(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", shot)
}

// The editor opens on a finished page with every block outlined where the transcript puts it
// and listed with its text; a block is chosen on the page, in the list or with the arrow keys;
// its translation and box change; a drag adds a block; and Save sends exactly that, as the
// API's edited transcript. The new version shows even when the job's stream is refused, and an
// edit that fails says why.
func TestEditorOutlinesSelectsAndSendsEdits(t *testing.T) {
	rec := &edits{}
	var refuseEdits atomic.Bool
	env := apitest.Start(t, apitest.Options{Wrap: rec.wrap,
		AroundActivity: func(ctx context.Context, activity, _ string, run func() (any, error)) (any, error) {
			if activity == "ApplyEdit" && refuseEdits.Load() {
				return nil, temporal.NewNonRetryableApplicationError("the lettering tool is down", activities.ErrTypePermanentPage, nil)
			}
			return run()
		}})
	b := startBrowser(t)
	p := b.newPage(1200, 900)
	p.navigate(env.URL + "/")
	const w, h = 600, 800
	s := finishedJob(t, p, "proof-"+uuid.NewString()[:8], map[string][]byte{"page1.png": apitest.PNG(t, w, h, 10)})

	p.click("#gallery li:nth-child(1) .result-edit")
	e := p.untilEditor("the editor with its blocks", func(e editorState) bool { return len(e.Items) == 2 && e.Loaded })
	if !e.Visible || e.Title != "Edit page1.png" || !strings.HasPrefix(e.Image, "/api/outputs/"+s.JobID+"/") || e.Page != [2]float64{w, h} {
		t.Errorf("editor: visible %v, title %q, image %q, page %v", e.Visible, e.Title, e.Image, e.Page)
	}
	// The test engine's two blocks, where it put them.
	bubble := [4]float64{w / 10, h / 10, w / 2, h / 5}
	caption := [4]float64{w * 3 / 4, h / 2, w / 8, h / 3}
	if len(e.Outlines) != 2 || e.Outlines[0].Box != bubble || e.Outlines[1].Box != caption {
		t.Fatalf("outlines %+v; want %v and %v", e.Outlines, bubble, caption)
	}
	if !strings.Contains(e.Items[0], "Hello from page1.png") || !strings.Contains(e.Items[0], "[en] Hello from page1.png") ||
		!strings.Contains(e.Items[0], "confidence 97%") || !strings.Contains(e.Items[1], "confidence 41% — low") {
		t.Errorf("listed blocks %q", e.Items)
	}
	if e.Current != 0 || e.Trans != "[en] Hello from page1.png" || e.Cost != "Saving is free." {
		t.Errorf("first block chosen %d, translation field %q, cost %q", e.Current, e.Trans, e.Cost)
	}

	// A click on the caption's outline chooses it.
	x, y := e.screen(caption[0]+caption[2]/2, caption[1]+caption[3]/2)
	p.drag(x, y, x, y)
	e = p.untilEditor("the caption chosen", func(e editorState) bool { return e.Current == 1 })
	if e.Source != "Goodbye" || e.Box != caption || !strings.Contains(e.Outlines[1].Class, "selected") || strings.Contains(e.Outlines[0].Class, "selected") {
		t.Errorf("after clicking the caption: source %q, box %v, outlines %+v", e.Source, e.Box, e.Outlines)
	}
	// The arrow keys move through the list, focus following.
	p.click("#editor-blocks li:nth-child(2) .eb-item")
	p.press("ArrowUp")
	e = p.untilEditor("the bubble chosen by keyboard", func(e editorState) bool { return e.Current == 0 && e.Focused == 0 })
	if e.Source != "Hello from page1.png" {
		t.Errorf("after ArrowUp the detail shows %q", e.Source)
	}

	// Its translation and its box change.
	p.typeInto("#ed-translation", "Hi there!")
	p.typeInto("#ed-x", "90")
	e = p.untilEditor("the edit shown", func(e editorState) bool {
		return strings.Contains(e.Items[0], "Hi there!") && e.Outlines[0].Box[0] == 90
	})
	if e.Outlines[0].Box != [4]float64{90, bubble[1], bubble[2], bubble[3]} {
		t.Errorf("the bubble's outline after x=90: %v", e.Outlines[0].Box)
	}

	// A drag on an empty part of the page adds a block there, ready for its text.
	x0, y0 := e.screen(100, 500)
	x1, y1 := e.screen(260, 620)
	p.drag(x0, y0, x1, y1)
	e = p.untilEditor("the new block", func(e editorState) bool { return len(e.Items) == 3 && e.Current == 2 })
	tol := 2 * e.Page[0] / e.Stage[2] // a screen pixel or two, in page pixels
	if added := [4]float64{100, 500, 160, 120}; !near(e.Outlines[2].Box, added, tol) || !strings.Contains(e.Outlines[2].Class, "new") {
		t.Errorf("the dragged block %+v; want about %v", e.Outlines[2], added)
	}
	var active string
	p.eval(`document.activeElement.id`, &active)
	if active != "ed-translation" || !strings.Contains(e.Status, "type its text") {
		t.Errorf("after the drag the focus is on %q, status %q", active, e.Status)
	}
	p.typeInto("#ed-source", "ドン")
	p.typeInto("#ed-translation", "BOOM")

	// The caption is removed.
	p.click("#editor-blocks li:nth-child(2) .eb-item")
	p.click("#ed-remove")
	e = p.untilEditor("the caption removed", func(e editorState) bool { return strings.Contains(e.Outlines[1].Class, "removed") })
	if !strings.Contains(e.Items[1], "removed") {
		t.Errorf("the removed caption is listed as %q", e.Items[1])
	}
	shoot(t, p, "editor.png")

	// Closing with unsaved edits asks first.
	p.click("#editor-close")
	var closeLabel string
	p.eval(`document.getElementById('editor-close').textContent`, &closeLabel)
	if e := p.editor(); !e.Visible || len(e.Items) != 3 || !strings.HasPrefix(closeLabel, "Discard the edits?") {
		t.Errorf("one click on Close with unsaved edits: visible %v, %d blocks, button %q", e.Visible, len(e.Items), closeLabel)
	}

	// The job's stream is refused from here on, as by a proxy that will not carry it.
	rec.refuseStreams.Store(true)
	p.click("#editor-save")
	p.untilEditor("the edit request", func(editorState) bool { return rec.count() == 1 })
	path, body := rec.last(t)
	if want := "/api/jobs/" + s.JobID + "/pages/page1.png/transcript"; path != want {
		t.Errorf("the edit went to %s, want %s", path, want)
	}
	blocks := body.Transcript.Blocks
	if body.UserID == "" || len(body.Retranslate) != 0 || len(blocks) != 3 || body.Transcript.Width != w || body.Transcript.Height != h {
		t.Fatalf("the edit request: %+v", body)
	}
	if blocks[0].Translation != "Hi there!" || blocks[0].Source != "Hello from page1.png" || boxOf(blocks[0].Box) != [4]float64{90, bubble[1], bubble[2], bubble[3]} ||
		blocks[0].Shape[0] != (engine.Point{X: 90, Y: int(bubble[1])}) {
		t.Errorf("the edited bubble: %+v", blocks[0])
	}
	if blocks[1].Status != "removed" || blocks[1].Source != "Goodbye" {
		t.Errorf("the removed caption: %+v", blocks[1])
	}
	if nb := blocks[2]; nb.ID != "" || nb.Source != "ドン" || nb.Translation != "BOOM" || !near(boxOf(nb.Box), [4]float64{100, 500, 160, 120}, tol) || len(nb.Shape) != 4 {
		t.Errorf("the added block: %+v", nb)
	}
	// Without its stream the page still learns of the new version: it reads the job's state.
	e = p.untilEditor("the re-lettered page, without a stream", func(e editorState) bool { return strings.HasPrefix(e.Status, "Saved") })
	if streams, reads := rec.sinceLastEdit(s.JobID); streams == 0 || reads == 0 || !strings.HasSuffix(e.Image, "?rev=1") || e.Gallery[0] != e.Image {
		t.Errorf("with the stream refused: %d stream requests, %d state reads; the editor shows %q, the gallery %q", streams, reads, e.Image, e.Gallery)
	}

	// An edit that fails is reported on the stream with why, and the page stays as it was.
	rec.refuseStreams.Store(false)
	refuseEdits.Store(true)
	p.click("#editor-blocks li:nth-child(1) .eb-item")
	p.typeInto("#ed-translation", "Once more")
	p.click("#editor-save")
	e = p.untilEditor("the failed edit", func(e editorState) bool { return e.Error != "" })
	if !strings.Contains(e.Error, "could not be re-lettered") || !strings.Contains(e.Error, "the lettering tool is down") ||
		!strings.HasSuffix(e.Image, "?rev=1") || e.SaveOff || e.Trans != "Once more" {
		t.Errorf("after a failed edit: error %q, image %q, save disabled %v, translation %q", e.Error, e.Image, e.SaveOff, e.Trans)
	}
	if streams, reads := rec.sinceLastEdit(s.JobID); streams != 1 || reads != 0 {
		t.Errorf("the failed edit was learnt of by %d streams and %d state reads; want the one stream alone", streams, reads)
	}

	// On a phone the page and the list stack, the page still fits the screen's width.
	p.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true}, nil)
	e = p.untilEditor("the narrow layout", func(e editorState) bool { return e.Stage[2] < 390 })
	if e.Stage[2] < 300 || math.Abs(e.Stage[3]/e.Stage[2]-float64(h)/w) > 0.01 {
		t.Errorf("on a phone the page is drawn %v×%v", e.Stage[2], e.Stage[3])
	}
	shoot(t, p, "editor-narrow.png")
	noProblems(t, b)
}

// mangaEngine is the real offline engine reading Japanese, with a language model that answers
// "Line 1 of call 1", "Line 2 of call 1"... over the real OpenAI wire format.
func mangaEngine(t *testing.T) *ocr.Engine {
	t.Helper()
	var calls atomic.Int64
	fake := llmfake.New(llmfake.Translations(func(_ llmfake.Request, sources []string) []string {
		call := calls.Add(1)
		out := make([]string, len(sources))
		for i := range sources {
			out[i] = fmt.Sprintf("Line %d of call %d", i+1, call)
		}
		return out
	}))
	t.Cleanup(fake.Close)
	tr, err := translator.NewOpenAI(translator.OpenAIConfig{BaseURL: fake.URL, Model: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := ocr.New(ocr.Config{Translator: tr, AdvancedTranslator: tr, Fallback: tr})
	if err != nil {
		t.Fatal(err)
	}
	return eng
}

// freeSpot is a w×h box of the page that overlaps none of the blocks, scanning from the bottom.
func freeSpot(t *testing.T, blocks []engine.TranscriptBlock, pw, ph, w, h int) [4]float64 {
	t.Helper()
	for y := ph - h - 20; y >= 20; y -= 20 {
		for x := 20; x+w < pw-20; x += 20 {
			free := true
			for _, b := range blocks {
				if x < b.Box.X+b.Box.W && b.Box.X < x+w && y < b.Box.Y+b.Box.H && b.Box.Y < y+h {
					free = false
					break
				}
			}
			if free {
				return [4]float64{float64(x), float64(y), float64(w), float64(h)}
			}
		}
	}
	t.Fatalf("no free %d×%d spot on the page", w, h)
	return [4]float64{}
}

func fetchTranscript(t *testing.T, env *apitest.Env, url string) engine.Transcript {
	t.Helper()
	r := env.Do("GET", url, nil, nil)
	var tr engine.Transcript
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &tr) != nil {
		t.Fatalf("GET %s: %d %.300s", url, r.Status, r.Body)
	}
	return tr
}

// The proofreading round trip on a real manga page: the editor shows what the engine found,
// a corrected translation is saved and the page comes back re-lettered at a new address, a
// block added by a drag is saved and named by the server while another is translated again for
// a credit, and a refused edit is explained.
func TestEditorRoundTripOnAMangaPage(t *testing.T) {
	rec := &edits{}
	env := apitest.Start(t, apitest.Options{Engine: mangaEngine(t), Wrap: rec.wrap})
	b := startBrowser(t)
	p := b.newPage(1200, 900)
	p.navigate(env.URL + "/")
	mp, err := mangapage.Generate(7, mangapage.Options{Lang: "ja", Width: 1000, Height: 1400, Format: "png", Pristine: true})
	if err != nil {
		t.Fatal(err)
	}
	job := finishedJob(t, p, "team-"+uuid.NewString()[:8], map[string][]byte{"p1.png": mp.Encoded})
	before, _ := env.Balance(p.userID(t))

	p.click("#gallery li:nth-child(1) .result-edit")
	e := p.untilEditor("the editor with its blocks", func(e editorState) bool { return len(e.Items) > 0 && e.Loaded })
	var page0 struct{ URL, Transcript string }
	p.eval(`(() => { const r = editor.page; return {URL: r.url, Transcript: r.transcript} })()`, &page0)
	tr := fetchTranscript(t, env, page0.Transcript)
	if len(tr.Blocks) < 2 || len(e.Outlines) != len(tr.Blocks) || len(e.Items) != len(tr.Blocks) {
		t.Fatalf("%d blocks in the transcript, %d outlined, %d listed", len(tr.Blocks), len(e.Outlines), len(e.Items))
	}
	for i, blk := range tr.Blocks {
		if e.Outlines[i].Box != boxOf(blk.Box) || !strings.Contains(e.Outlines[i].Class, blk.Status) {
			t.Errorf("block %s (%s) at %v is outlined %+v", blk.ID, blk.Status, blk.Box, e.Outlines[i])
		}
		if !strings.Contains(e.Items[i], blk.Source) {
			t.Errorf("block %s is listed as %q, without its source %q", blk.ID, e.Items[i], blk.Source)
		}
	}

	// A corrected translation, saved: the page is re-lettered and shown at its new address.
	machine := env.Do("GET", page0.URL, nil, nil)
	p.click("#editor-blocks li:nth-child(1) .eb-item")
	p.typeInto("#ed-translation", "We did it!")
	p.click("#editor-save")
	e = p.untilEditor("the re-lettered page", func(e editorState) bool { return strings.HasPrefix(e.Status, "Saved") && e.Loaded })
	if e.Image == page0.URL || !strings.HasSuffix(e.Image, "rev=1") || e.Gallery[0] != e.Image {
		t.Errorf("after the save the editor shows %q and the gallery %q; was %q", e.Image, e.Gallery, page0.URL)
	}
	// The new version came on the job's event stream: the page never read the job's state.
	if streams, reads := rec.sinceLastEdit(job.JobID); streams != 1 || reads != 0 {
		t.Errorf("after the save the page opened %d streams and read the job's state %d times; want the one stream alone", streams, reads)
	}
	var page1 struct{ URL, Transcript string }
	p.eval(`(() => { const r = editor.page; return {URL: r.url, Transcript: r.transcript} })()`, &page1)
	if got := fetchTranscript(t, env, page1.Transcript); got.Blocks[0].Translation != "We did it!" {
		t.Errorf("the saved transcript's first block: %+v", got.Blocks[0])
	}
	if cur := env.Do("GET", page1.URL, nil, nil); cur.Status != http.StatusOK || string(machine.Body) == string(cur.Body) {
		t.Errorf("the new revision answers %d, and differs from the machine's page: %v", cur.Status, string(machine.Body) != string(cur.Body))
	}
	if !strings.Contains(e.Items[0], "We did it!") {
		t.Errorf("the list after the save: %q", e.Items[0])
	}

	// A block the machine missed, added by a drag and saved.
	spot := freeSpot(t, tr.Blocks, tr.Width, tr.Height, 200, 120)
	x0, y0 := e.screen(spot[0], spot[1])
	x1, y1 := e.screen(spot[0]+spot[2], spot[1]+spot[3])
	p.drag(x0, y0, x1, y1)
	n := len(e.Items)
	p.untilEditor("the new block", func(e editorState) bool { return len(e.Items) == n+1 })
	p.typeInto("#ed-translation", "BANG")
	// And the second block translated again, which costs a credit.
	p.click("#editor-blocks li:nth-child(2) .eb-item")
	p.click("#ed-retranslate")
	if e := p.untilEditor("the cost", func(e editorState) bool { return strings.HasPrefix(e.Cost, "Saving costs 1 credit") }); !strings.Contains(e.Items[1], "to translate again") {
		t.Errorf("the block to translate again is listed as %q", e.Items[1])
	}
	p.click("#editor-save")
	e = p.untilEditor("the second revision", func(e editorState) bool {
		return strings.HasPrefix(e.Status, "Saved") && strings.HasSuffix(e.Image, "rev=2")
	})
	if streams, reads := rec.sinceLastEdit(job.JobID); streams != 1 || reads != 0 {
		t.Errorf("after the paid save the page opened %d streams and read the job's state %d times; want the one stream alone", streams, reads)
	}
	var page2 struct{ Transcript string }
	p.eval(`({Transcript: editor.page.transcript})`, &page2)
	got := fetchTranscript(t, env, page2.Transcript)
	added := got.Blocks[len(got.Blocks)-1]
	tol := 2 * e.Page[0] / e.Stage[2]
	if len(got.Blocks) != n+1 || added.Translation != "BANG" || added.ID == "" || !near(boxOf(added.Box), spot, tol) {
		t.Errorf("the added block as saved: %+v (of %d); want BANG at %v", added, len(got.Blocks), spot)
	}
	if _, body := rec.last(t); len(body.Transcript.Blocks) != n+1 || body.Transcript.Blocks[n].ID != "" || body.Transcript.Blocks[n].Translation != "BANG" {
		t.Errorf("the added block was sent as %+v", body.Transcript.Blocks[n:])
	}

	if _, body := rec.last(t); len(body.Retranslate) != 1 || body.Retranslate[0] != tr.Blocks[1].ID || tr.Blocks[1].ID == "" {
		t.Errorf("retranslate sent %q, want the second block %q", body.Retranslate, tr.Blocks[1].ID)
	}
	// The block alone was asked again: it is the first line of a later call.
	if tb := got.Blocks[1].Translation; !strings.HasPrefix(tb, "Line 1 of call ") || tb == tr.Blocks[1].Translation {
		t.Errorf("the block translated again reads %q (was %q)", tb, tr.Blocks[1].Translation)
	}
	for _, blk := range tr.Blocks {
		if blk.ID == added.ID {
			t.Errorf("the added block took the ID of %+v", blk)
		}
	}

	// A translation over the API's limit is refused, said in words, and nothing changes.
	p.click("#editor-blocks li:nth-child(1) .eb-item")
	p.typeInto("#ed-translation", strings.Repeat("a", 2001))
	p.click("#editor-save")
	e = p.untilEditor("the refusal", func(e editorState) bool { return e.Error != "" })
	if !strings.Contains(e.Error, "400") || !strings.Contains(e.Error, "2") || e.SaveOff || strings.Contains(e.Status, "Re-lettering") {
		t.Errorf("the refusal shows %q (status %q, save disabled %v)", e.Error, e.Status, e.SaveOff)
	}
	if !strings.HasSuffix(e.Image, "rev=2") {
		t.Errorf("after the refusal the editor shows %q", e.Image)
	}
	if after, _ := env.Balance(p.userID(t)); after != before-1 {
		t.Errorf("allowance %d after two edits and one retranslation, %d before: want one credit spent", after, before)
	}
	shoot(t, p, "editor-manga.png")
	p.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true}, nil)
	shoot(t, p, "editor-manga-narrow.png")
	noProblems(t, b)
}
