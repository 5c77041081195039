package api_test

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/vtsproject/vts/api"
	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// finished follows a job to its end over SSE and returns its last state.
func finished(t *testing.T, env *apitest.Env, jobID string) api.State {
	t.Helper()
	events, _ := readSSE(t, env, jobID)
	if len(events) == 0 {
		t.Fatal("no events")
	}
	return events[len(events)-1].State
}

// A glossary sent with the upload reaches the engine normalised (comments, blank lines and
// blanks around terms gone), and its terms show in the translation the engine returns.
func TestGlossaryReachesTheEngine(t *testing.T) {
	eng := &testengine.Engine{}
	env := apitest.Start(t, apitest.Options{Engine: eng})
	g := "# characters\r\n\r\nHello = Hola\r\n  from=de\r\n# end\r\n"
	a := upload(t, env, "lexicographer", 2, [2]string{"targetLang", "es"}, [2]string{"glossary", g})
	last := finished(t, env, a.JobID)
	if last.Status != "completed" || len(last.Results) != 2 {
		t.Fatalf("job ended %+v", last)
	}
	reqs := eng.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d engine requests", len(reqs))
	}
	for _, r := range reqs {
		if r.Glossary != "Hello=Hola\nfrom=de" {
			t.Errorf("the engine got the glossary %q for %s", r.Glossary, r.Filename)
		}
	}
	var tr engine.Transcript
	resp := env.Do("GET", last.Results[0].Transcript, nil, nil)
	resp.JSON(t, &tr)
	if got := tr.Blocks[0].Translation; got != "[es] Hola de page1.png" {
		t.Errorf("translation %q; want the glossary's terms in it", got)
	}
	// Without a glossary, the engine gets none.
	b := upload(t, env, "lexicographer", 1)
	finished(t, env, b.JobID)
	if reqs := eng.Requests(); reqs[len(reqs)-1].Glossary != "" {
		t.Errorf("an upload without a glossary sent %q", reqs[len(reqs)-1].Glossary)
	}
}

// lettering=upper reaches the engine and is kept with the job (for lettering a page again after
// an edit); an upload that names none is lettered in mixed case.
func TestLetteringReachesTheEngineAndIsKept(t *testing.T) {
	eng := &testengine.Engine{}
	env := apitest.Start(t, apitest.Options{Engine: eng})
	for _, c := range []struct {
		extra [][2]string
		want  string
	}{{[][2]string{{"lettering", "upper"}}, "upper"}, {nil, "mixed"}} {
		a := upload(t, env, "letterer", 1, c.extra...)
		if last := finished(t, env, a.JobID); last.Status != "completed" {
			t.Fatalf("job ended %+v", last)
		}
		reqs := eng.Requests()
		if got := reqs[len(reqs)-1].Lettering; string(got) != c.want {
			t.Errorf("the engine got lettering %q, want %q", got, c.want)
		}
		j, err := env.Store.GetJob(context.Background(), a.JobID)
		if err != nil {
			t.Fatal(err)
		}
		if string(j.Lettering) != c.want {
			t.Errorf("the job keeps lettering %q, want %q", j.Lettering, c.want)
		}
	}
}

// A glossary that cannot be used is refused at upload with the line at fault, before anything
// is charged or kept.
func TestInvalidGlossaryRefused(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	page := apitest.File{Name: "p.png", Data: apitest.PNG(t, 20, 20, 1)}
	var many strings.Builder
	for i := range 201 {
		fmt.Fprintf(&many, "term%d=t%d\n", i, i)
	}
	cases := []struct {
		name, glossary string
		line           int
		message        string
	}{
		{"no equals sign", "# names\nGoku=Son Goku\nVegeta", 3, "line 3"},
		{"empty target", "Goku=", 1, "line 1"},
		{"repeated source", "a=b\n\nx=y\na=c", 4, "line 4"},
		{"201 entries", many.String(), 201, "at most 200 entries"},
		{"over 16 KB", strings.Repeat("# padding\n", 1700), 0, "16 KB"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The glossary after the page, so that the page is in storage when it is refused.
			body, ct := apitest.Form([][2]string{{"userId", "careless"}}, page)
			form := strings.Replace(body.String(), "--"+boundary(ct)+"--",
				"--"+boundary(ct)+"\r\nContent-Disposition: form-data; name=\"glossary\"\r\n\r\n"+c.glossary+"\r\n--"+boundary(ct)+"--", 1)
			resp := env.Do("POST", "/api/translate", strings.NewReader(form), http.Header{"Content-Type": {ct}})
			if resp.Status != http.StatusBadRequest || resp.ErrorCode() != "invalid_glossary" {
				t.Fatalf("got %d %s", resp.Status, resp.Body)
			}
			var e struct {
				Error struct {
					Message string
					Details struct{ Line int }
				}
			}
			resp.JSON(t, &e)
			if !strings.Contains(e.Error.Message, c.message) || e.Error.Details.Line != c.line {
				t.Errorf("message %q, line %d; want %q and line %d", e.Error.Message, e.Error.Details.Line, c.message, c.line)
			}
		})
	}
	if n := env.Blobs(""); n != 0 {
		t.Errorf("%d blobs orphaned by refused glossaries", n)
	}
	if al, _ := env.Balance("careless"); al != 10 {
		t.Errorf("refused glossaries moved credits: allowance %d", al)
	}
}

// Each translated page comes with its transcript and cleaned page: linked from the results,
// served as JSON and as an image, and in the ZIP after the pages. With one page at a time, every
// page is translated with its predecessor's transcript as context.
func TestTranscriptsAndCleanedPages(t *testing.T) {
	eng := &testengine.Engine{}
	env := apitest.Start(t, apitest.Options{Engine: eng, Parallelism: 1})
	a := upload(t, env, "proofreader", 3)
	last := finished(t, env, a.JobID)
	if last.Status != "completed" || len(last.Results) != 3 {
		t.Fatalf("job ended %+v", last)
	}
	for i, r := range last.Results {
		name := fmt.Sprintf("page%d.png", i+1)
		if r.SourceFilename != name || r.URL != "/api/outputs/"+a.JobID+"/"+name {
			t.Errorf("result %d changed shape: %+v", i, r)
		}
		if r.SourceLang != testengine.DetectedLang {
			t.Errorf("result %d: sourceLang %q, want the detected %q", i, r.SourceLang, testengine.DetectedLang)
		}
		if r.Transcript != "/api/outputs/"+a.JobID+"/transcripts/"+name+".json" || r.Cleaned != "/api/outputs/"+a.JobID+"/cleaned/"+name {
			t.Errorf("result %d: transcript %q, cleaned %q", i, r.Transcript, r.Cleaned)
		}
	}
	// The same, by their JSON names, from the job record once it is settled.
	resp := env.Do("GET", "/api/jobs/"+a.JobID, nil, nil)
	var raw struct{ Results []map[string]any }
	resp.JSON(t, &raw)
	if r := raw.Results[1]; r["sourceLang"] != "ja" || r["transcript"] != last.Results[1].Transcript || r["cleaned"] != last.Results[1].Cleaned {
		t.Errorf("job record result: %v", r)
	}

	// The transcript, as JSON.
	resp = env.Do("GET", last.Results[1].Transcript, nil, nil)
	if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("transcript: %d %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	var tr engine.Transcript
	resp.JSON(t, &tr)
	if tr.Page != "page2.png" || tr.SourceLang != "ja" || tr.Width != 40 || tr.Height != 30 || len(tr.Blocks) != 2 ||
		tr.Blocks[0].Source != "Hello from page2.png" || tr.Blocks[0].Translation != "[en] Hello from page2.png" ||
		tr.Blocks[1].Confidence != testengine.LowConfidence {
		t.Errorf("transcript = %+v", tr)
	}
	// The cleaned page: the test engine removes nothing, so it is the source page.
	resp = env.Do("GET", last.Results[0].Cleaned, nil, nil)
	if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("cleaned: %d %v", resp.Status, resp.Header)
	}
	cleaned, err := png.Decode(bytes.NewReader(resp.Body))
	if err != nil {
		t.Fatal(err)
	}
	src, _ := png.Decode(bytes.NewReader(apitest.PNG(t, 40, 30, 0)))
	if r1, g1, b1, _ := cleaned.At(5, 5).RGBA(); !sameRGB(src.At(5, 5), r1, g1, b1) {
		t.Errorf("the cleaned page is not the engine's cleaned page")
	}

	// Context: each page after the first saw its predecessor's transcript.
	reqs := eng.Requests()
	if len(reqs) != 3 || reqs[0].Previous != nil {
		t.Fatalf("%d requests; the first had context %+v", len(reqs), reqs[0].Previous)
	}
	for i, r := range reqs[1:] {
		if want := fmt.Sprintf("page%d.png", i+1); r.Previous == nil || r.Previous.Page != want ||
			len(r.Previous.Blocks) != 2 || r.Previous.Blocks[0].Source != "Hello from "+want {
			t.Errorf("page %d was translated with context %+v, want %s's transcript", i+2, r.Previous, want)
		}
	}

	// Names that are not a page's: 404, never another file.
	for _, path := range []string{
		"/api/outputs/" + a.JobID + "/transcripts/page9.png.json",
		"/api/outputs/" + a.JobID + "/transcripts/page1.png",
		"/api/outputs/" + a.JobID + "/transcripts/.json",
		"/api/outputs/" + a.JobID + "/transcripts/..%2Fpage1.png.json",
		"/api/outputs/" + a.JobID + "/cleaned/page9.png",
		"/api/outputs/" + a.JobID + "/cleaned/..%2F..%2Fpages.zip",
		"/api/outputs/" + a.JobID + "/page1.png.json",
		"/api/outputs/" + a.JobID + "/transcripts",
		"/api/outputs/" + a.JobID + "/transcripts/",
		"/api/outputs/" + a.JobID + "/cleaned",
		"/api/outputs/" + a.JobID + "/cleaned/",
	} {
		if r := env.Do("GET", path, nil, nil); r.Status != http.StatusNotFound || r.ErrorCode() == "" {
			t.Errorf("GET %s: %d %s", path, r.Status, r.Body)
		}
	}

	// Expired: 410, as for the pages.
	if _, err := env.Store.MarkExpired(context.Background(), a.JobID); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{last.Results[0].Transcript, last.Results[0].Cleaned} {
		if r := env.Do("GET", path, nil, nil); r.Status != http.StatusGone || r.ErrorCode() != "expired" {
			t.Errorf("GET %s after expiry: %d %s", path, r.Status, r.Body)
		}
	}
}

// Transcripts and cleaned pages live under the job's files: deleting the project removes them
// with the rest.
func TestDeleteRemovesTranscripts(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	a := upload(t, env, "tidy", 2)
	last := finished(t, env, a.JobID)
	if last.Status != "completed" {
		t.Fatalf("job ended %+v", last)
	}
	// Two inputs, two pages, two transcripts, two cleaned pages and the ZIP.
	if n := env.Blobs(a.JobID); n != 9 {
		t.Fatalf("%d blobs for the job, want 9", n)
	}
	r := env.Do("DELETE", "/api/projects/"+a.JobID, strings.NewReader(`{"userId":"tidy"}`), http.Header{"Content-Type": {"application/json"}})
	if r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if n := env.Blobs(a.JobID); n != 0 {
		t.Errorf("%d blobs left after delete", n)
	}
	for _, path := range []string{last.Results[0].Transcript, last.Results[0].Cleaned} {
		if r := env.Do("GET", path, nil, nil); r.Status != http.StatusNotFound {
			t.Errorf("GET %s after delete: %d", path, r.Status)
		}
	}
}

// An engine that keeps no transcript (an image-to-image model): the results carry the upload's
// language and no transcript or cleaned link, and the ZIP holds the pages alone.
func TestImageOnlyEngineResults(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{ImageOnly: true}})
	a := upload(t, env, "painter", 2, [2]string{"sourceLang", "fr"})
	last := finished(t, env, a.JobID)
	if last.Status != "completed" || len(last.Results) != 2 {
		t.Fatalf("job ended %+v", last)
	}
	resp := env.Do("GET", "/api/jobs/"+a.JobID, nil, nil)
	var raw struct{ Results []map[string]any }
	resp.JSON(t, &raw)
	for i, r := range raw.Results {
		_, hasTranscript := r["transcript"]
		_, hasCleaned := r["cleaned"]
		if r["sourceLang"] != "fr" || hasTranscript || hasCleaned {
			t.Errorf("result %d = %v", i, r)
		}
	}
	if r := env.Do("GET", "/api/outputs/"+a.JobID+"/transcripts/page1.png.json", nil, nil); r.Status != http.StatusNotFound || r.ErrorCode() != "transcript_not_found" {
		t.Errorf("a transcript the engine never kept: %d %s", r.Status, r.Body)
	}
	resp = env.Do("GET", "/api/download/"+a.JobID, nil, nil)
	zr := openZip(t, resp)
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	if strings.Join(names, "|") != "page1.png|page2.png" {
		t.Errorf("zip entries %q", names)
	}
	j, err := env.Store.GetJob(context.Background(), a.JobID)
	if err != nil || j.Status != job.Completed {
		t.Fatalf("job record: %v %v", j, err)
	}
}

func sameRGB(c color.Color, r, g, b uint32) bool {
	cr, cg, cb, _ := c.RGBA()
	return cr == r && cg == g && cb == b
}
