package api_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"image"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/plans"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// A CBZ of PNG and JPEG pages in nested folders, between two loose pages, becomes one job with
// its pages in reading order, charged per page; its CBZ download opens as a comic.
func TestChapterUploadAndCBZDownload(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	const user = "reader"
	env.SetPlan(user, "pro")
	page := hostile(t, "page.png")
	a := env.UploadAccepted(t, [][2]string{{"userId", user}, {"targetLang", "es"}, {"mode", "fast"}},
		apitest.File{Name: "cover.png", Data: page},
		apitest.File{Name: "chapter.cbz", Data: hostile(t, "chapter.cbz"), Type: "application/octet-stream"},
		apitest.File{Name: "afterword.png", Data: page})
	need, _ := plans.Cost(5, job.Fast, job.DefaultResolution)
	if a.CreditsNeeded != need {
		t.Errorf("creditsNeeded = %d, want %d (five pages)", a.CreditsNeeded, need)
	}
	j := terminal(t, env, a.JobID)
	var got []string
	for _, res := range j.Results {
		got = append(got, res.SourceFilename)
	}
	want := []string{"cover.png", "page2.png", "page10.jpg", "page1.png", "afterword.png"}
	if j.Status != job.Completed || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("job %s with pages %q, want %q", j.Status, got, want)
	}
	if al, _ := env.Balance(user); al != 1000-int64(need) {
		t.Errorf("allowance = %d after 5 pages", al)
	}

	resp := env.Do("GET", "/api/download/"+a.JobID+"?format=cbz", nil, nil)
	if resp.Status != 200 || resp.Header.Get("Content-Type") != "application/vnd.comicbook+zip" ||
		!strings.Contains(resp.Header.Get("Content-Disposition"), ".cbz") {
		t.Fatalf("cbz download: %d %q %q", resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"))
	}
	zr := openZip(t, resp)
	var names []string
	var info struct {
		PageCount   int
		LanguageISO string
	}
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, _ := f.Open()
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if f.Name == "ComicInfo.xml" {
			if err := xml.Unmarshal(data, &info); err != nil {
				t.Fatalf("ComicInfo.xml: %v", err)
			}
			continue
		}
		if _, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil {
			t.Errorf("%s is not an image: %v", f.Name, err)
		}
	}
	wantNames := "001-cover.png|002-page2.png|003-page10.jpg|004-page1.png|005-afterword.png|ComicInfo.xml"
	if strings.Join(names, "|") != wantNames {
		t.Errorf("CBZ entries %q, want %q", names, wantNames)
	}
	if info.PageCount != 5 || info.LanguageISO != "es" {
		t.Errorf("ComicInfo = %+v", info)
	}
	// The ZIP is unchanged: it still carries the transcripts and cleaned pages.
	if z := env.Do("GET", "/api/download/"+a.JobID, nil, nil); z.Status != 200 ||
		!strings.HasSuffix(strings.TrimSuffix(z.Header.Get("Content-Disposition"), `"`), ".zip") ||
		!bytes.Contains(z.Body, []byte("transcripts/")) {
		t.Errorf("zip download: %d %q", z.Status, z.Header.Get("Content-Disposition"))
	}
	if z := env.Do("GET", "/api/download/"+a.JobID+"?format=rar", nil, nil); z.Status != 400 || z.ErrorCode() != "invalid_format" {
		t.Errorf("format=rar: %d %s", z.Status, z.Body)
	}
}

// Every hostile archive is refused with its 4xx JSON error, quickly, leaving no blob, no job and
// no credit moved.
func TestHostileArchivesRefused(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	const user = "hostile-archives"
	env.SetPlan(user, "pro")
	cases := []struct {
		corpus string
		status int
		code   string
	}{
		{"zip-bomb.cbz", 413, "archive_bomb"},
		// Its headers declare 4 KB: inflating stops one byte past that, and the lie is corruption.
		{"zip-bomb-lying.cbz", 422, "corrupt_archive"},
		{"zip-too-many.cbz", 413, "too_many_pages"},
		{"zip-nested.cbz", 422, "nested_archive"},
		{"zip-nested-renamed.cbz", 422, "nested_archive"},
		{"zip-escaping.cbz", 422, "unsafe_archive_entry"},
		{"zip-absolute.cbz", 422, "unsafe_archive_entry"},
		{"zip-encrypted.cbz", 422, "encrypted_archive"},
		{"zip-truncated.cbz", 422, "corrupt_archive"},
		{"zip-corrupt.cbz", 422, "corrupt_archive"},
		{"zip-no-page.cbz", 422, "empty_archive"},
	}
	page := hostile(t, "page.png")
	for _, c := range cases {
		t.Run(c.corpus, func(t *testing.T) {
			// A good page first: it is stored, and must go with the refusal.
			checkRefused(t, env, env.Upload([][2]string{{"userId", user}}, apitest.File{Name: "ok.png", Data: page},
				apitest.File{Name: c.corpus, Data: hostile(t, c.corpus)}), c.status, c.code)
		})
	}
	checkNothingMoved(t, env, user, 1000)
}

// A chapter is charged by its pages: 30 pages are more than a Free user's 10 credits cover, and
// the upload is refused before any page of it is stored.
func TestChapterChargedByPages(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	const user = "free-reader"
	if _, err := env.Store.EnsureUser(context.Background(), user); err != nil {
		t.Fatal(err)
	}
	page := hostile(t, "page.png")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range 30 {
		w, _ := zw.Create(fmt.Sprintf("p%d.png", i+1))
		_, _ = w.Write(page)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	checkRefused(t, env, env.Upload([][2]string{{"userId", user}, {"mode", "fast"}}, apitest.File{Name: "ch.cbz", Data: buf.Bytes()}),
		http.StatusPaymentRequired, "insufficient_credits")
	checkNothingMoved(t, env, user, 10)
}
