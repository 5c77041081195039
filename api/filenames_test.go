package api_test

import (
	"bytes"
	"image"
	_ "image/png"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vtsproject/vts/api"
	"github.com/vtsproject/vts/internal/filename"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// Every name the upload accepts comes back: at its results[].url and as its ZIP entry, with the
// page that was uploaded under it. Each page has its own width, so a URL that decodes to another
// page's name (a second unescaping of "%41" is "A") is caught, not only a 404.
func TestAwkwardFilenamesComeBack(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	const user = "namer"
	env.SetPlan(user, "pro")
	longCJK := strings.Repeat("長", 1000) + ".png"
	longASCII := strings.Repeat("x", 300) + ".png"
	names := []string{
		"e%f.png",                         // the reported case: its URL holds %25
		"100%.png",                        // a % that is no escape at all
		"%41.png",                         // decoded twice it would be A.png, which exists too
		"A.png",                           //
		"%2F.png",                         // decoded twice it would hold a slash
		"..%2F..%2Fsecret.png",            //
		"%00.png",                         // decoded twice it would hold a NUL
		"a b  c.png",                      // spaces (and a doubled one)
		"c#d.png",                         // # would end the path
		"e&f.png",                         //
		"g+h.png",                         // + is not a space in a path
		"what?.png",                       // ? would start the query; sanitized to _
		"semi;colon,=@$!'().png",          //
		"[brackets] {braces}.png",         //
		"ünïcødé.png",                     // NFC
		"e\u0301.png",                     // NFD: another name than é.png
		"é.png",                           //
		"ページ 1.png",                       //
		"한국어 페이지.png",                     //
		"emoji 😀.png",                     //
		longCJK,                           // bounded to 200 bytes
		longCJK,                           // the same again: a counter on a name already at the bound
		longASCII,                         // bounded to 120 runes
		longASCII,                         //
		strings.Repeat("y", 300) + ".txt", // a new extension on a name already at the bound
		"a?.png",                          // a?, a* and a_ all sanitize to a_.png
		"a*.png",                          //
		"a_.png",                          //
		"Case.png",                        // names differing in case only
		"case.png",                        //
		"scan.PNG",                        // the extension follows the content
		"noext",                           //
	}
	var files []apitest.File
	for i, n := range names { // page i is 20+i pixels wide
		files = append(files, apitest.File{Name: n, Data: apitest.PNG(t, 20+i, 10, byte(i))})
	}
	a := env.UploadAccepted(t, [][2]string{{"userId", user}}, files...)
	j := terminal(t, env, a.JobID)
	if j.Status != job.Completed || len(j.Results) != len(names) || len(j.Errors) != 0 {
		t.Fatalf("job = %s, %d results, errors %+v", j.Status, len(j.Results), j.Errors)
	}
	resp := env.Do("GET", "/api/download/"+a.JobID, nil, nil)
	if resp.Status != http.StatusOK {
		t.Fatalf("download: %d %s", resp.Status, resp.Body)
	}
	zr := openZip(t, resp)
	// Pages come first; their transcripts and cleaned copies follow in folders of their own.
	pages := 0
	for _, f := range zr.File {
		if !strings.HasPrefix(f.Name, "transcripts/") && !strings.HasPrefix(f.Name, "cleaned/") {
			pages++
		}
	}
	if pages != len(names) {
		t.Fatalf("zip has %d pages for %d uploads", pages, len(names))
	}
	seen := map[string]bool{}
	var st api.State // the results as clients read them, with their URLs
	env.Do("GET", "/api/jobs/"+a.JobID, nil, nil).JSON(t, &st)
	for i, res := range st.Results {
		name := names[i]
		label := name // for messages
		if utf8.RuneCountInString(label) > 40 {
			label = string([]rune(label)[:40]) + "…"
		}
		prefix := "/api/outputs/" + a.JobID + "/"
		if !strings.HasPrefix(res.URL, prefix) {
			t.Errorf("%q: url %q", label, res.URL)
			continue
		}
		outName, err := url.PathUnescape(strings.TrimPrefix(res.URL, prefix))
		if err != nil {
			t.Errorf("%q: url %q does not unescape: %v", label, res.URL, err)
			continue
		}
		// The output name: one safe segment, within the bounds, unique in the job ignoring case.
		if !filename.Valid(outName) || utf8.RuneCountInString(outName) > filename.MaxRunes || len(outName) > filename.MaxBytes {
			t.Errorf("%q: output name %q (%d bytes, %d runes) is not a valid bounded name", label, outName, len(outName),
				utf8.RuneCountInString(outName))
		}
		if seen[strings.ToLower(outName)] {
			t.Errorf("%q: output name %q given twice", label, outName)
		}
		seen[strings.ToLower(outName)] = true
		if res.SourceFilename != filename.Sanitize(name, "") {
			t.Errorf("%q: sourceFilename %q", label, res.SourceFilename)
		}

		if res.Transcript != "" {
			if tr := env.Do("GET", res.Transcript, nil, nil); tr.Status != http.StatusOK {
				t.Errorf("%q: GET %s = %d %s", label, res.Transcript, tr.Status, tr.Body)
			}
		}
		page := env.Do("GET", res.URL, nil, nil)
		if page.Status != http.StatusOK {
			t.Errorf("%q: GET %s = %d %s", label, res.URL, page.Status, page.Body)
			continue
		}
		if w := pngWidth(t, page.Body); w != 20+i {
			t.Errorf("%q: GET %s served a page %d wide, want %d (another page's file)", label, res.URL, w, 20+i)
		}
		if cd := page.Header.Get("Content-Disposition"); !strings.Contains(cd, "filename*=UTF-8''"+url.PathEscape(outName)) {
			t.Errorf("%q: Content-Disposition %q", label, cd)
		}

		entry := zr.File[i]
		if entry.Name != outName {
			t.Errorf("%q: ZIP entry %d is %q, its URL names %q", label, i, entry.Name, outName)
			continue
		}
		rc, err := entry.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(body, page.Body) {
			t.Errorf("%q: the ZIP entry and the URL differ", label)
		}
	}
	// A name no page has: 404 (and no path escapes the job's folder).
	for _, p := range []string{"nothere.png", "%25252F.png", "..%2F..%2Fpages.zip", "%2E%2E", "a%00b.png"} {
		if r := env.Do("GET", "/api/outputs/"+a.JobID+"/"+p, nil, nil); r.Status != http.StatusNotFound {
			t.Errorf("GET output %s = %d", p, r.Status)
		}
	}
}

func pngWidth(t *testing.T, b []byte) int {
	t.Helper()
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not an image: %v", err)
	}
	return cfg.Width
}
