package glossary

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	in := "# names\r\n\r\n  Goku = Son Goku \r\nsenpai=senpai\n\t# honorifics stay\nx=a=b\n\nドラゴン=Dragon"
	got, err := Normalize(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Goku=Son Goku\nsenpai=senpai\nx=a=b\nドラゴン=Dragon"; got != want {
		t.Fatalf("normalised\n%q\nwant\n%q", got, want)
	}
	for _, empty := range []string{"", "\n\n", "# only a comment\n"} {
		if got, err := Normalize(empty); err != nil || got != "" {
			t.Errorf("Normalize(%q) = %q, %v", empty, got, err)
		}
	}
	// Normalised text parses to the same entries.
	entries, _ := Parse(in)
	again, err := Parse(Format(entries))
	if err != nil || fmt.Sprint(again) != fmt.Sprint(entries) {
		t.Fatalf("round trip: %v %v", again, err)
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	cases := []struct {
		text   string
		line   int
		reason string
	}{
		{"a=b\n\nno equals sign", 3, "expected source=target"},
		{"# c\n=target", 2, "source term"},
		{"src=  ", 1, "target term"},
		{"a=b\nb=c\na=d", 3, `"a" is already given on line 1`},
		{"a=b\x07", 1, "control character"},
		{"a=\xff", 1, "UTF-8"},
	}
	for _, c := range cases {
		_, err := Parse(c.text)
		var e *Error
		if !errors.As(err, &e) || e.Line != c.line || !strings.Contains(e.Reason, c.reason) {
			t.Errorf("Parse(%q) = %v; want line %d, %q", c.text, err, c.line, c.reason)
		}
		if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("line %d", c.line)) {
			t.Errorf("the message %q does not name line %d", err, c.line)
		}
	}
}

func TestParseBounds(t *testing.T) {
	var b strings.Builder
	for i := range MaxEntries {
		fmt.Fprintf(&b, "term%d=t%d\n", i, i)
	}
	if entries, err := Parse(b.String()); err != nil || len(entries) != MaxEntries {
		t.Fatalf("%d entries: %d, %v", MaxEntries, len(entries), err)
	}
	b.WriteString("# a comment does not count\nlast=one too many\n")
	var e *Error
	if _, err := Parse(b.String()); !errors.As(err, &e) || e.Line != MaxEntries+2 {
		t.Fatalf("%d entries: %v", MaxEntries+1, err)
	}
	big := strings.Repeat("#", MaxBytes+1)
	if _, err := Parse(big); !errors.As(err, &e) || e.Line != 0 || !strings.Contains(e.Reason, "16 KB") {
		t.Fatalf("over 16 KB: %v", err)
	}
}
