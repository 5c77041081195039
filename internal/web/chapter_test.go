package web_test

import (
	"archive/zip"
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// chapter is a CBZ of the given pages in a folder, with the ComicInfo.xml and the macOS
// leftovers chapters carry, which are not pages.
func chapter(t *testing.T, pages map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	add := func(name string, data []byte) {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	add("ComicInfo.xml", []byte("<ComicInfo><PageCount>3</PageCount></ComicInfo>"))
	add("__MACOSX/ch1/._p01.png", []byte("resource fork"))
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range pages {
			if !yield(k) {
				return
			}
		}
	}) {
		add("ch1/"+name, pages[name])
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A scanlation team drops a chapter as a CBZ on the page: the page counts its pages and their
// cost before sending it, and the job translates them in reading order.
func TestBrowserUploadsAChapter(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	b := startBrowser(t)
	p := b.newPage(1200, 900)
	p.navigate(env.URL + "/")
	p.typeInto("#user-id", "team-"+strings.ReplaceAll(t.Name(), "/", "-"))
	p.until("the new user's account", func(s pageState) bool { return s.Plan == "Free" && s.Allowance == "10 credits" })

	cbz := chapter(t, map[string][]byte{
		"p10.png": apitest.PNG(t, 200, 280, 30),
		"p2.png":  apitest.PNG(t, 200, 280, 60),
		"p1.png":  apitest.PNG(t, 200, 280, 90),
	})
	p.setFiles("#files", writeFiles(t, map[string][]byte{"chapter-01.cbz": cbz})...)
	s := p.until("the chapter's pages counted", func(s pageState) bool { return strings.HasPrefix(s.Summary, "3 pages,") })
	if !strings.HasPrefix(s.Cost, "Cost: 3 credits") {
		t.Errorf("cost %q; want 3 credits for a 3-page chapter", s.Cost)
	}
	var label string
	p.eval(`document.querySelector('#thumbs .chapter .thumb-nopreview').textContent`, &label)
	if label != "Chapter, 3 pages" {
		t.Errorf("the chapter's tile reads %q", label)
	}

	p.click("#upload")
	s = p.until("the chapter translated", func(s pageState) bool {
		return s.Status == "completed" && s.Images == 3 && s.Loaded == 3 && s.Allowance == "7 credits"
	})
	var names []string
	p.eval(`[...document.querySelectorAll('#gallery .result-name')].map((e) => e.textContent)`, &names)
	if len(names) != 3 || !strings.HasSuffix(names[0], "p1.png") || !strings.HasSuffix(names[1], "p2.png") || !strings.HasSuffix(names[2], "p10.png") {
		t.Errorf("gallery %q, want the chapter's pages in reading order", names)
	}
	if s.DownloadCBZ == "" {
		t.Error("no CBZ download offered for the chapter")
	}
}
