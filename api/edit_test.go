package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vtsproject/vts/api"
	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/ocr"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/testkit/llmfake"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// editBench is a service translating Japanese manga with the real OCR engine and a language
// model on the OpenAI wire (the llm fake): it answers "<word> line N" for the N-th source of a
// request, and fails with a 500 while down is set.
type editBench struct {
	env  *apitest.Env
	llm  *llmfake.Server
	word atomic.Value
	down atomic.Bool
	// gate, when set, holds every answer until it is closed.
	gate atomic.Pointer[chan struct{}]
}

func newEditBench(t *testing.T) *editBench {
	t.Helper()
	b := &editBench{}
	b.word.Store("hello")
	b.llm = llmfake.New(func(ctx context.Context, req llmfake.Request) (string, error) {
		if g := b.gate.Load(); g != nil {
			<-*g
		}
		if b.down.Load() {
			return "", errors.New("the model is down")
		}
		return llmfake.Translations(func(_ llmfake.Request, src []string) []string {
			out := make([]string, len(src))
			for i := range src {
				out[i] = fmt.Sprintf("%s line %d", b.word.Load(), i+1)
			}
			return out
		})(ctx, req)
	})
	t.Cleanup(b.llm.Close)
	tr, err := translator.NewOpenAI(translator.OpenAIConfig{BaseURL: b.llm.URL, Model: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	eng, err := ocr.New(ocr.Config{Fallback: tr})
	if err != nil {
		t.Fatal(err)
	}
	b.env = apitest.Start(t, apitest.Options{Engine: eng})
	return b
}

// mangaFiles are n generated Japanese pages, p1.png….
func mangaFiles(t *testing.T, n int) []apitest.File {
	t.Helper()
	var files []apitest.File
	for i := range n {
		p, err := mangapage.Generate(int64(7+i), mangapage.Options{Lang: "ja", Width: 900, Height: 1200, Format: "png", Pristine: true})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, apitest.File{Name: fmt.Sprintf("p%d.png", i+1), Data: p.Encoded})
	}
	return files
}

// put sends an edit of page file of the job.
func put(env *apitest.Env, jobID, file string, body any) *apitest.Response {
	data, _ := json.Marshal(body)
	return env.Do(http.MethodPut, "/api/jobs/"+jobID+"/pages/"+file+"/transcript", bytes.NewReader(data),
		http.Header{"Content-Type": {"application/json"}})
}

// settled follows the job's stream, opened after an edit was accepted, to its end, and returns
// the page's result as the last message shows it.
func settled(t *testing.T, env *apitest.Env, jobID, file string) (api.Result, []sseEvent) {
	t.Helper()
	events, _ := readSSE(t, env, jobID)
	for _, r := range events[len(events)-1].State.Results {
		if strings.HasSuffix(strings.SplitN(r.URL, "?", 2)[0], "/"+file) {
			if r.Editing != 0 {
				t.Fatalf("the stream closed while %s was still being edited: %+v", file, r)
			}
			return r, events
		}
	}
	t.Fatalf("no result for %s", file)
	return api.Result{}, nil
}

func decodePage(t *testing.T, data []byte) *image.RGBA {
	t.Helper()
	img, _, err := imageio.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out
}

// differing counts the pixels of box where a and b differ.
func differing(a, b *image.RGBA, box engine.Rect) int {
	n := 0
	for y := box.Y; y < box.Y+box.H; y++ {
		for x := box.X; x < box.X+box.W; x++ {
			if a.RGBAAt(x, y) != b.RGBAAt(x, y) {
				n++
			}
		}
	}
	return n
}

func (b *editBench) balance(t *testing.T, user string) int64 {
	a, p := b.env.Balance(user)
	return a + p
}

// The proofreading round trip on the real stack: a person changes one translation, keeps a
// block as it was, removes one and adds one the machine missed; the page comes back lettered
// again as a new revision, reported on the stream, served under a new URL and in the ZIP, and
// free. Retranslating a block costs one credit, given back when the translator is down.
func TestEditPageRoundTrip(t *testing.T) {
	b := newEditBench(t)
	env := b.env
	files := mangaFiles(t, 2)
	if _, err := env.Store.GrantCredits(context.Background(), "editor", 20, "test", "grant:editor"); err != nil {
		t.Fatal(err)
	}
	a := env.UploadAccepted(t, [][2]string{{"userId", "editor"}, {"sourceLang", "ja"}, {"targetLang", "en"}}, files...)
	last := finished(t, env, a.JobID)
	if last.Status != "completed" || len(last.Results) != 2 {
		t.Fatalf("job ended %+v", last)
	}
	page := last.Results[0]
	if page.Revision != 0 || page.Cleaned == "" || page.Transcript == "" {
		t.Fatalf("machine result %+v", page)
	}
	var machine engine.Transcript
	env.Do("GET", page.Transcript, nil, nil).JSON(t, &machine)
	machine.Blocks = engine.NameBlocks(machine.Blocks) // the server names blocks without IDs by place
	if len(machine.Blocks) < 3 {
		t.Fatalf("want 3 blocks or more to edit, got %+v", machine.Blocks)
	}
	rev0 := decodePage(t, env.Do("GET", page.URL, nil, nil).Body)
	cleaned := decodePage(t, env.Do("GET", page.Cleaned, nil, nil).Body)
	source := decodePage(t, files[0].Data)
	before := b.balance(t, "editor")

	// The edit: b1 says new words, b2 is kept, b3 is removed (omitted), and a block is added.
	edited := machine
	edited.Blocks = nil
	for _, blk := range machine.Blocks {
		switch blk.ID {
		case "b1":
			blk.Translation = "Edited words here"
		case "b2":
			blk.Status = "keep"
		case "b3":
			continue
		}
		edited.Blocks = append(edited.Blocks, blk)
	}
	added := engine.Rect{X: 20, Y: machine.Height - 140, W: 260, H: 110}
	edited.Blocks = append(edited.Blocks, engine.TranscriptBlock{ID: "new", Box: added, Translation: "Added text"})

	t.Run("errors change nothing", func(t *testing.T) {
		tooMany := edited
		tooMany.Blocks = make([]engine.TranscriptBlock, 501)
		for i := range tooMany.Blocks {
			tooMany.Blocks[i] = engine.TranscriptBlock{Box: engine.Rect{X: 1, Y: 1, W: 5, H: 5}}
		}
		withBlock := func(f func(*engine.TranscriptBlock)) engine.Transcript {
			e := edited
			e.Blocks = append([]engine.TranscriptBlock(nil), edited.Blocks...)
			f(&e.Blocks[0])
			return e
		}
		cases := []struct {
			name, file, job, user string
			body                  any
			status                int
			code                  string
		}{
			{"bad json", "p1.png", a.JobID, "", "{", 400, "invalid_json"},
			{"no user", "p1.png", a.JobID, "", map[string]any{"transcript": edited}, 400, "missing_user_id"},
			{"box outside", "p1.png", a.JobID, "editor", withBlock(func(b *engine.TranscriptBlock) { b.Box.X = machine.Width - 2 }), 400, "box_outside_page"},
			{"unknown status", "p1.png", a.JobID, "editor", withBlock(func(b *engine.TranscriptBlock) { b.Status = "gone" }), 400, "invalid_status"},
			{"text too long", "p1.png", a.JobID, "editor", withBlock(func(b *engine.TranscriptBlock) { b.Translation = strings.Repeat("é", 2001) }), 400, "text_too_long"},
			{"too many blocks", "p1.png", a.JobID, "editor", tooMany, 400, "too_many_blocks"},
			{"unknown block", "p1.png", a.JobID, "editor", []string{"b99"}, 400, "unknown_block"},
			{"not the owner", "p1.png", a.JobID, "intruder", edited, 403, "forbidden"},
			{"not a page", "p9.png", a.JobID, "editor", edited, 404, "page_not_found"},
			{"not a job", "p1.png", "00000000-0000-4000-8000-000000000000", "editor", edited, 404, "job_not_found"},
		}
		for _, c := range cases {
			var body any = map[string]any{"userId": c.user, "transcript": c.body}
			switch v := c.body.(type) {
			case string:
				body = json.RawMessage(v)
			case map[string]any:
				body = v
			case []string:
				body = map[string]any{"userId": c.user, "transcript": edited, "retranslate": v}
			}
			var resp *apitest.Response
			if raw, ok := body.(json.RawMessage); ok {
				resp = env.Do(http.MethodPut, "/api/jobs/"+c.job+"/pages/"+c.file+"/transcript", bytes.NewReader(raw),
					http.Header{"Content-Type": {"application/json"}})
			} else {
				resp = put(env, c.job, c.file, body)
			}
			if resp.Status != c.status || resp.ErrorCode() != c.code {
				t.Errorf("%s: %d %s, want %d %s", c.name, resp.Status, resp.Body, c.status, c.code)
			}
		}
		var st api.State
		env.Do("GET", "/api/jobs/"+a.JobID, nil, nil).JSON(t, &st)
		if r := st.Results[0]; r.Revision != 0 || r.Editing != 0 || r.URL != page.URL {
			t.Errorf("after refused edits the page reads %+v", r)
		}
		if got := b.balance(t, "editor"); got != before {
			t.Errorf("refused edits moved credits: %d → %d", before, got)
		}
	})

	t.Run("edit, keep, remove, add", func(t *testing.T) {
		resp := put(env, a.JobID, "p1.png", map[string]any{"userId": "editor", "transcript": edited})
		if resp.Status != http.StatusAccepted {
			t.Fatalf("edit: %d %s", resp.Status, resp.Body)
		}
		var acc struct {
			JobID, File string
			Revision    int
		}
		resp.JSON(t, &acc)
		if acc.Revision != 1 || acc.File != "p1.png" || acc.JobID != a.JobID {
			t.Fatalf("accepted %+v", acc)
		}
		// A second edit while the first is applied is refused.
		if again := put(env, a.JobID, "p1.png", map[string]any{"userId": "editor", "transcript": edited}); again.Status != 409 || again.ErrorCode() != "edit_in_progress" {
			t.Errorf("a second edit in flight: %d %s", again.Status, again.Body)
		}
		res, events := settled(t, env, a.JobID, "p1.png")
		if res.Revision != 1 || res.EditError != "" || !strings.HasSuffix(res.URL, "/p1.png?rev=1") || !strings.HasSuffix(res.Transcript, "?rev=1") {
			t.Fatalf("after the edit the page reads %+v", res)
		}
		if events[len(events)-1].State.Status != "completed" {
			t.Errorf("the stream's last message says %s", events[len(events)-1].State.Status)
		}
		var ts engine.Transcript
		env.Do("GET", res.Transcript, nil, nil).JSON(t, &ts)
		byID := map[string]engine.TranscriptBlock{}
		for _, blk := range ts.Blocks {
			byID[blk.ID] = blk
		}
		next := fmt.Sprintf("b%d", len(machine.Blocks)+1)
		if byID["b1"].Translation != "Edited words here" || byID["b1"].Status != "lettered" || byID["b2"].Status != "keep" ||
			byID["b3"].Status != "removed" || byID[next].Translation != "Added text" || byID[next].Status != "lettered" {
			t.Fatalf("revision 1's transcript: %+v", ts.Blocks)
		}
		rev1 := decodePage(t, env.Do("GET", res.URL, nil, nil).Body)
		b1, b2, b3 := byID["b1"].Box, byID["b2"].Box, byID["b3"].Box
		if differing(rev1, rev0, b1) == 0 {
			t.Error("the edited block's lettering did not change")
		}
		if n := differing(rev1, source, b2); n != 0 {
			t.Errorf("the kept block differs from the source page in %d pixels", n)
		}
		if n := differing(rev1, cleaned, b3); n != 0 {
			t.Errorf("the removed block differs from the cleaned page in %d pixels", n)
		}
		if differing(rev1, cleaned, added) == 0 {
			t.Error("the added block was not lettered")
		}
		if got := b.balance(t, "editor"); got != before {
			t.Errorf("an edit moved credits: %d → %d", before, got)
		}
	})

	t.Run("retranslate costs one credit", func(t *testing.T) {
		asked := len(b.llm.Requests())
		b.word.Store("again")
		gate := make(chan struct{})
		b.gate.Store(&gate)
		defer b.gate.Store(nil)
		resp := put(env, a.JobID, "p1.png", map[string]any{"userId": "editor", "transcript": edited, "retranslate": []string{"b1"}})
		if resp.Status != http.StatusAccepted {
			t.Fatalf("retranslate: %d %s", resp.Status, resp.Body)
		}
		// The stream, opened while the translator holds the edit, shows it being applied, then
		// its new revision, and only then closes.
		type stream struct {
			res    api.Result
			events []sseEvent
		}
		done := make(chan stream, 1)
		go func() {
			res, events := settled(t, env, a.JobID, "p1.png")
			done <- stream{res, events}
		}()
		for env.Jobs.Hub().Watchers(a.JobID) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		close(gate)
		s := <-done
		res := s.res
		if first := s.events[0].State.Results[0]; first.Editing != 2 || first.Revision != 1 {
			t.Errorf("the stream's first message shows %+v, want revision 2 being applied", first)
		}
		if res.Revision != 2 || res.EditError != "" || !strings.HasSuffix(res.URL, "/p1.png?rev=2") {
			t.Fatalf("after retranslating the stream's last message shows the page %+v", res)
		}
		var ts engine.Transcript
		env.Do("GET", res.Transcript, nil, nil).JSON(t, &ts)
		if ts.Blocks[0].Translation != "again line 1" {
			t.Errorf("b1 retranslated as %q", ts.Blocks[0].Translation)
		}
		if n := len(b.llm.Requests()) - asked; n != 1 {
			t.Errorf("the translator was asked %d times", n)
		}
		if got := b.balance(t, "editor"); got != before-1 {
			t.Errorf("balance %d after a retranslation, want %d", got, before-1)
		}
	})

	t.Run("translator down: refunded", func(t *testing.T) {
		b.down.Store(true)
		defer b.down.Store(false)
		resp := put(env, a.JobID, "p1.png", map[string]any{"userId": "editor", "transcript": edited, "retranslate": []string{"b1"}})
		if resp.Status != http.StatusAccepted {
			t.Fatalf("retranslate: %d %s", resp.Status, resp.Body)
		}
		res, _ := settled(t, env, a.JobID, "p1.png")
		if res.Revision != 2 || !strings.Contains(res.EditError, "refunded") || !strings.HasSuffix(res.URL, "?rev=2") {
			t.Fatalf("after a failed retranslation the page reads %+v", res)
		}
		if got := b.balance(t, "editor"); got != before-1 {
			t.Errorf("balance %d after a refunded retranslation, want %d", got, before-1)
		}
	})

	t.Run("concurrent retranslations charge once each", func(t *testing.T) {
		start := b.balance(t, "editor")
		var wg sync.WaitGroup
		var accepted, refused atomic.Int32
		for range 6 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := put(env, a.JobID, "p2.png", map[string]any{"userId": "editor",
					"transcript": json.RawMessage(env.Do("GET", last.Results[1].Transcript, nil, nil).Body), "retranslate": []string{"b1"}})
				switch {
				case r.Status == http.StatusAccepted:
					accepted.Add(1)
				case r.Status == 409 && r.ErrorCode() == "edit_in_progress":
					refused.Add(1)
				default:
					t.Errorf("concurrent edit: %d %s", r.Status, r.Body)
				}
			}()
		}
		wg.Wait()
		res, _ := settled(t, env, a.JobID, "p2.png")
		if accepted.Load() < 1 || int(accepted.Load()) != res.Revision {
			t.Fatalf("%d edits accepted, %d refused, revision %d", accepted.Load(), refused.Load(), res.Revision)
		}
		if got := b.balance(t, "editor"); got != start-int64(accepted.Load()) {
			t.Errorf("balance %d after %d retranslations from %d", got, accepted.Load(), start)
		}
	})

	t.Run("the ZIP holds the latest revisions", func(t *testing.T) {
		var st api.State
		env.Do("GET", "/api/jobs/"+a.JobID, nil, nil).JSON(t, &st)
		zr := env.Do("GET", "/api/download/"+a.JobID, nil, nil)
		if zr.Status != 200 {
			t.Fatalf("download: %d %s", zr.Status, zr.Body)
		}
		z := openZip(t, zr)
		want := map[string][]byte{}
		for _, r := range st.Results {
			name := strings.TrimPrefix(strings.SplitN(r.URL, "?", 2)[0], "/api/outputs/"+a.JobID+"/")
			want[name] = env.Do("GET", r.URL, nil, nil).Body
			want["transcripts/"+name+".json"] = env.Do("GET", r.Transcript, nil, nil).Body
		}
		found := 0
		for _, f := range z.File {
			w, ok := want[f.Name]
			if !ok {
				continue
			}
			rc, _ := f.Open()
			got, _ := io.ReadAll(rc)
			rc.Close()
			if !bytes.Equal(got, w) {
				t.Errorf("the ZIP's %s is not the latest revision", f.Name)
			}
			found++
		}
		if found != len(want) {
			t.Errorf("the ZIP holds %d of the %d latest files", found, len(want))
		}
	})

	t.Run("running, expired and deleted jobs", func(t *testing.T) {
		other := env.UploadAccepted(t, [][2]string{{"userId", "editor"}, {"sourceLang", "ja"}, {"targetLang", "en"}}, files[1])
		if r := put(env, other.JobID, "p2.png", map[string]any{"userId": "editor", "transcript": edited}); r.Status != 409 || r.ErrorCode() != "job_not_finished" {
			t.Errorf("edit of a running job: %d %s", r.Status, r.Body)
		}
		finished(t, env, other.JobID)
		if _, err := env.Store.MarkExpired(context.Background(), other.JobID); err != nil {
			t.Fatal(err)
		}
		if r := put(env, other.JobID, "p2.png", map[string]any{"userId": "editor", "transcript": edited}); r.Status != 410 || r.ErrorCode() != "expired" {
			t.Errorf("edit of an expired job: %d %s", r.Status, r.Body)
		}

		// A delete racing a paid edit: the credit is charged or refunded, once, and every file goes.
		start := b.balance(t, "editor")
		r := put(env, a.JobID, "p1.png", map[string]any{"userId": "editor", "transcript": edited, "retranslate": []string{"b1"}})
		if r.Status != http.StatusAccepted {
			t.Fatalf("edit: %d %s", r.Status, r.Body)
		}
		del, _ := json.Marshal(map[string]string{"userId": "editor"})
		if d := env.Do(http.MethodDelete, "/api/projects/"+a.JobID, bytes.NewReader(del), http.Header{"Content-Type": {"application/json"}}); d.Status != 204 {
			t.Fatalf("delete: %d %s", d.Status, d.Body)
		}
		if r := put(env, a.JobID, "p1.png", map[string]any{"userId": "editor", "transcript": edited}); r.Status != 404 || r.ErrorCode() != "job_not_found" {
			t.Errorf("edit of a deleted job: %d %s", r.Status, r.Body)
		}
		deadline := time.Now().Add(3 * time.Minute) // generous: the machine is shared
		for {
			j, err := env.Store.GetJob(context.Background(), a.JobID)
			if err != nil {
				t.Fatal(err)
			}
			editing := 0
			for _, r := range j.Results {
				if r.Editing > 0 {
					editing++
				}
			}
			if editing == 0 && env.Blobs(a.JobID) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("three minutes after the delete: %d edits in flight, %d blobs", editing, env.Blobs(a.JobID))
			}
			time.Sleep(100 * time.Millisecond)
		}
		if got := b.balance(t, "editor"); got != start && got != start-1 {
			t.Errorf("balance %d after an edit raced by a delete, from %d", got, start)
		}
	})
}

// A page from an engine that keeps no transcript (an image-to-image model, as Gemini) cannot be
// edited: a 409 that says so, and nothing is claimed.
func TestEditPageNotEditable(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{ImageOnly: true}})
	a := upload(t, env, "artist", 1)
	last := finished(t, env, a.JobID)
	if last.Status != "completed" || last.Results[0].Transcript != "" {
		t.Fatalf("job ended %+v", last)
	}
	ts := engine.Transcript{Blocks: []engine.TranscriptBlock{{Box: engine.Rect{X: 1, Y: 1, W: 5, H: 5}, Translation: "Hi"}}}
	r := put(env, a.JobID, "page1.png", map[string]any{"userId": "artist", "transcript": ts})
	if r.Status != http.StatusConflict || r.ErrorCode() != "page_not_editable" {
		t.Fatalf("edit of an image-only page: %d %s", r.Status, r.Body)
	}
	var st api.State
	env.Do("GET", "/api/jobs/"+a.JobID, nil, nil).JSON(t, &st)
	if st.Results[0].Revision != 0 || st.Results[0].Editing != 0 {
		t.Errorf("the refused edit shows: %+v", st.Results[0])
	}
}
