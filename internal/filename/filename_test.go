package filename

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	cases := map[string]string{
		"page1.png":             "page1.png",
		"../../etc/passwd":      "passwd",
		"/abs/path/p.jpg":       "p.jpg",
		`C:\Users\x\p.webp`:     "p.webp",
		"a\x00b.png":            "ab.png",
		"..":                    "page",
		"":                      "page",
		"evil\u202egnp.exe":     "evilgnp.exe",
		"  spaced   name .png ": "spaced name .png",
		"ページ 1.png":             "ページ 1.png",
		"bad\xffutf8.png":       "badutf8.png",
		"what?.png":             "what_.png",
		"tab\there.png":         "tab here.png",
		"...hidden.png":         "hidden.png",
	}
	for in, want := range cases {
		if got := Sanitize(in, "page"); got != want {
			t.Errorf("Sanitize(%q) = %q, want %q", in, got, want)
		}
	}
	wide := Sanitize(strings.Repeat("長", 1000)+".png", "page")
	if len(wide) > MaxBytes || wide != strings.Repeat("長", (MaxBytes-4)/3)+".png" {
		t.Errorf("long CJK name = %q (%d bytes)", wide, len(wide))
	}
	long := strings.Repeat("x", 1000) + ".png"
	got := Sanitize(long, "page")
	if utf8.RuneCountInString(got) != MaxRunes || !strings.HasSuffix(got, ".png") {
		t.Errorf("long name = %q (%d runes)", got, utf8.RuneCountInString(got))
	}
}

func TestDeduper(t *testing.T) {
	var d Deduper
	got := []string{d.Unique("a.png"), d.Unique("a.png"), d.Unique("A.png"), d.Unique("a (2).png"), d.Unique("b.png")}
	want := []string{"a.png", "a (2).png", "A (3).png", "a (2) (2).png", "b.png"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Unique #%d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestWithExtension(t *testing.T) {
	if got := WithExtension("scan.png", ".jpg"); got != "scan.jpg" {
		t.Errorf("got %q", got)
	}
	if got := WithExtension("notes.txt", ".png"); got != "notes.txt.png" {
		t.Errorf("got %q", got)
	}
	// A name already at the bound keeps within it with its new extension.
	long := Sanitize(strings.Repeat("y", 300)+".txt", "page")
	if got := WithExtension(long, ".png"); utf8.RuneCountInString(got) != MaxRunes || !strings.HasSuffix(got, "y.png") {
		t.Errorf("long name with a new extension = %q (%d runes)", got, utf8.RuneCountInString(got))
	}
}

// A counter on a name already at the bound shortens the name instead of passing the bound.
func TestDeduperKeepsBounds(t *testing.T) {
	var d Deduper
	for _, name := range []string{strings.Repeat("長", 1000) + ".png", strings.Repeat("x", 1000) + ".png"} {
		name = Sanitize(name, "page")
		first, second := d.Unique(name), d.Unique(name)
		if first != name || second == first || !strings.HasSuffix(second, " (2).png") {
			t.Errorf("Unique = %q, %q", first, second)
		}
		if utf8.RuneCountInString(second) > MaxRunes || len(second) > MaxBytes || Sanitize(second, "page") != second {
			t.Errorf("counted name %q is %d bytes, %d runes", second, len(second), utf8.RuneCountInString(second))
		}
	}
}

func TestValid(t *testing.T) {
	for name, want := range map[string]bool{"a.png": true, "e%f.png": true, "ページ.png": true, "a b#&+.png": true,
		"": false, ".": false, "..": false, "a/b.png": false, `a\b.png`: false, "a\x00.png": false, "bad\xff.png": false} {
		if got := Valid(name); got != want {
			t.Errorf("Valid(%q) = %v", name, got)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"a.png", "../x", "\x00", "\u202e", strings.Repeat("é", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in, "page")
		if out == "" || out == "." || out == ".." || strings.ContainsAny(out, "/\\\x00") || !utf8.ValidString(out) {
			t.Fatalf("Sanitize(%q) = %q", in, out)
		}
		if utf8.RuneCountInString(out) > MaxRunes || len(out) > MaxBytes {
			t.Fatalf("too long: %q", out)
		}
		if Sanitize(out, "page") != out {
			t.Fatalf("not idempotent: %q -> %q", out, Sanitize(out, "page"))
		}
		// What the upload makes of it, twice (the second gets a counter), is a valid, bounded
		// name that sanitizes to itself.
		var d Deduper
		for range 2 {
			o := d.Unique(WithExtension(out, ".png"))
			if !Valid(o) || utf8.RuneCountInString(o) > MaxRunes || len(o) > MaxBytes || Sanitize(o, "page") != o {
				t.Fatalf("output name of %q = %q", in, o)
			}
		}
	})
}
