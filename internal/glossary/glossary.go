// Package glossary reads a job's fixed translations: one "source=target" per line, as an upload
// sends them. The API validates a glossary with it and hands the engines its normalised text;
// engines that want the pairs back parse that text with it too.
package glossary

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of one glossary.
const (
	MaxEntries = 200
	MaxBytes   = 16 << 10
)

// Entry is one fixed translation.
type Entry struct {
	Source string
	Target string
}

// Error says what is wrong with a glossary, and on which line (counted from 1) when one line is
// at fault; Line is 0 when the glossary as a whole is.
type Error struct {
	Line   int
	Reason string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return "glossary: " + e.Reason
	}
	return fmt.Sprintf("glossary line %d: %s", e.Line, e.Reason)
}

// Parse reads text. Blank lines and lines whose first non-blank character is # are ignored;
// every other line is source=target, split at its first "=" (so a target may contain "=", a
// source may not), with blanks around either side trimmed. A line without "=", with an empty
// side, with a control character, or repeating an earlier source is an *Error naming it, as is
// a glossary of more than MaxBytes or MaxEntries. Lines may end in \n or \r\n.
func Parse(text string) ([]Entry, error) {
	if len(text) > MaxBytes {
		return nil, &Error{Reason: fmt.Sprintf("a glossary is limited to %d KB", MaxBytes>>10)}
	}
	var entries []Entry
	first := map[string]int{} // source → the line that gave it
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		line = strings.TrimSuffix(line, "\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if !utf8.ValidString(line) {
			return nil, &Error{Line: n, Reason: "it is not valid UTF-8"}
		}
		if strings.ContainsFunc(line, func(r rune) bool { return r != '\t' && unicode.IsControl(r) }) {
			return nil, &Error{Line: n, Reason: "it contains a control character"}
		}
		src, dst, ok := strings.Cut(trimmed, "=")
		if !ok {
			return nil, &Error{Line: n, Reason: "expected source=target"}
		}
		src, dst = strings.TrimSpace(src), strings.TrimSpace(dst)
		switch {
		case src == "":
			return nil, &Error{Line: n, Reason: "the source term (left of =) is empty"}
		case dst == "":
			return nil, &Error{Line: n, Reason: "the target term (right of =) is empty"}
		}
		if prev, dup := first[src]; dup {
			return nil, &Error{Line: n, Reason: fmt.Sprintf("%q is already given on line %d", src, prev)}
		}
		if len(entries) == MaxEntries {
			return nil, &Error{Line: n, Reason: fmt.Sprintf("a glossary holds at most %d entries", MaxEntries)}
		}
		first[src] = n
		entries = append(entries, Entry{Source: src, Target: dst})
	}
	return entries, nil
}

// Format writes entries in the normalised form: one source=target per line, in order, with no
// comments, blank lines or trailing newline. Format of no entries is "".
func Format(entries []Entry) string {
	var b strings.Builder
	for i, e := range entries {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Source)
		b.WriteByte('=')
		b.WriteString(e.Target)
	}
	return b.String()
}

// Normalize parses text and formats it again: what the workflow carries and engines receive.
func Normalize(text string) (string, error) {
	entries, err := Parse(text)
	if err != nil {
		return "", err
	}
	return Format(entries), nil
}
