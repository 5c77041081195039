package main

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// TestMain runs the tests, or, when a test starts this binary with VTS_TEST_RUN_MAIN=1, is the
// vts command itself (so that a test can run `vts worker` as a process and signal it).
func TestMain(m *testing.M) {
	if os.Getenv("VTS_TEST_RUN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	apitest.Main(m)
}

// The command-line client uploads with a glossary and comic-style capitals, follows the progress
// stream and saves the ZIP: the pages, then their transcripts and cleaned versions.
func TestTranslateCommand(t *testing.T) {
	eng := &testengine.Engine{}
	env := apitest.Start(t, apitest.Options{Engine: eng})
	dir := t.TempDir()
	glossary := filepath.Join(dir, "names.txt")
	if err := os.WriteFile(glossary, []byte("# the cast\nHello=Hola\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var pages []string
	for i, name := range []string{"one.png", "two.png"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, apitest.PNG(t, 30, 20, byte(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
	}
	out := filepath.Join(dir, "out.zip")
	args := append([]string{"-server", env.URL, "-user", "cli-user", "-to", "es", "-mode", "fast", "-lettering", "upper", "-glossary", glossary, "-o", out}, pages...)
	if err := runTranslate(context.Background(), args); err != nil {
		t.Fatal(err)
	}
	names := zipNames(t, out)
	if want := "one.png,two.png,transcripts/one.png.json,transcripts/two.png.json,cleaned/one.png,cleaned/two.png"; strings.Join(names, ",") != want {
		t.Fatalf("zip holds %v, want %s", names, want)
	}
	for _, r := range eng.Requests() {
		if r.Glossary != "Hello=Hola" {
			t.Errorf("%s was translated with the glossary %q", r.Filename, r.Glossary)
		}
		if r.Lettering != job.Upper {
			t.Errorf("%s was lettered %q, want upper", r.Filename, r.Lettering)
		}
	}
	if al, _ := env.Balance("cli-user"); al != 9 { // 2 pages × 0.5
		t.Fatalf("allowance = %d, want 9", al)
	}
}

// A refused upload surfaces the API's message, not a generic failure.
func TestTranslateCommandShowsAPIErrors(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{}})
	p := filepath.Join(t.TempDir(), "notes.png")
	if err := os.WriteFile(p, []byte("just text"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := runTranslate(context.Background(), []string{"-server", env.URL, "-user", "u", p})
	if err == nil || !strings.Contains(err.Error(), "unsupported_media_type") || !strings.Contains(err.Error(), "415") {
		t.Fatalf("err = %v", err)
	}
	page := filepath.Join(t.TempDir(), "page.png")
	bad := filepath.Join(t.TempDir(), "glossary.txt")
	if err := os.WriteFile(page, apitest.PNG(t, 20, 20, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("Hello=Hola\nGoodbye\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = runTranslate(context.Background(), []string{"-server", env.URL, "-user", "u", "-glossary", bad, page})
	if err == nil || !strings.Contains(err.Error(), "invalid_glossary") || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("a malformed glossary: err = %v", err)
	}
}

// `vts translate chapter.cbz -o chapter.en.cbz` sends the chapter and saves a CBZ: the pages in
// reading order and a ComicInfo.xml, without the ZIP's transcripts and cleaned pages.
func TestTranslateCommandCBZ(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{}})
	dir := t.TempDir()
	chapter := filepath.Join(dir, "chapter.cbz")
	f, err := os.Create(chapter)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for i, name := range []string{"p10.png", "p2.png", "ComicInfo.xml"} {
		w, _ := zw.Create(name)
		if name == "ComicInfo.xml" {
			_, _ = w.Write([]byte("<ComicInfo/>"))
			continue
		}
		_, _ = w.Write(apitest.PNG(t, 30, 20, byte(i)))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	out := filepath.Join(dir, "chapter.en.cbz")
	if err := runTranslate(context.Background(), []string{"-server", env.URL, "-user", "cli-cbz", "-to", "es", "-mode", "fast", "-o", out, chapter}); err != nil {
		t.Fatal(err)
	}
	if names := zipNames(t, out); strings.Join(names, ",") != "001-p2.png,002-p10.png,ComicInfo.xml" {
		t.Fatalf("cbz holds %v, want the pages in order and ComicInfo.xml", names)
	}
}

// zipNames lists the entries of the archive at path.
func zipNames(t *testing.T, path string) []string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	return names
}
