// Package filename turns user-supplied filenames into names that are safe as blob keys, as ZIP
// entries and in URLs, and unique within a job.
package filename

import (
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxRunes bounds a sanitized name, extension included.
const MaxRunes = 120

// MaxBytes bounds a sanitized name in UTF-8 bytes: names become blob keys and, in a file bucket,
// file names, which most file systems cap at 255 bytes. 120 CJK characters are 360 bytes, so the
// rune bound alone does not hold that; 200 leaves room for a new extension, a " (12)" counter and
// the bucket's ".attrs" sidecar.
const MaxBytes = 200

// Sanitize keeps the last path element of name, drops control, format (bidi override) and
// path-significant characters, drops invalid UTF-8, trims dots and spaces at the ends, and
// bounds the length while keeping the extension. It never returns "", ".", ".." or a name with a
// slash. fallback is used when nothing printable is left.
func Sanitize(name, fallback string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case unicode.IsSpace(r):
			b.WriteRune(' ')
		case r == utf8.RuneError, r < 0x20, r == 0x7f:
			continue
		case unicode.Is(unicode.Cf, r): // bidi overrides, zero-width joiners: they disguise extensions
			continue
		case strings.ContainsRune(`<>:"|?*`, r):
			b.WriteRune('_')
		default:
			b.WriteRune(r)
		}
	}
	name = strings.Trim(b.String(), " .")
	for strings.Contains(name, "  ") {
		name = strings.ReplaceAll(name, "  ", " ")
	}
	if name == "" {
		name = fallback
	}
	if utf8.RuneCountInString(name) > MaxRunes || len(name) > MaxBytes {
		ext := path.Ext(name)
		if utf8.RuneCountInString(ext) > 16 {
			ext = ""
		}
		name = fit(strings.TrimSuffix(name, ext), ext)
	}
	return name
}

// fit returns base+suffix with base shortened, at a rune boundary, so that the whole stays within
// MaxRunes and MaxBytes; a shortened base loses trailing dots and spaces, as Sanitize would.
// suffix is an extension, perhaps after a counter, and is never longer than a few dozen bytes.
func fit(base, suffix string) string {
	maxRunes := MaxRunes - utf8.RuneCountInString(suffix)
	maxBytes := MaxBytes - len(suffix)
	if utf8.RuneCountInString(base) <= maxRunes && len(base) <= maxBytes {
		return base + suffix
	}
	n, i := 0, 0
	for i < len(base) && n < maxRunes {
		_, size := utf8.DecodeRuneInString(base[i:])
		if i+size > maxBytes {
			break
		}
		i += size
		n++
	}
	base = strings.TrimRight(base[:i], " .")
	if base == "" {
		base = "page"
	}
	return base + suffix
}

// WithExtension replaces name's extension by ext (".png"), so that the name tells the truth about
// the content. The result stays within MaxRunes and MaxBytes.
func WithExtension(name, ext string) string {
	old := path.Ext(name)
	switch strings.ToLower(old) {
	case ".png", ".jpg", ".jpeg", ".webp", ".jpe", ".jfif":
		name = strings.TrimSuffix(name, old)
	}
	if name == "" {
		name = "page"
	}
	return fit(name, ext)
}

// Deduper gives each name once: a repeated name gets " (2)", " (3)" before its extension, its
// base shortened if the counter would take it past MaxRunes or MaxBytes. Comparison ignores case,
// since ZIP tools on case-insensitive systems would collide otherwise.
type Deduper struct{ seen map[string]bool }

// Unique returns name, or name with the lowest free counter.
func (d *Deduper) Unique(name string) string {
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	ext := path.Ext(name)
	// "0 .png" again is "0 (2).png": the counter's own space replaces a trailing one, which
	// Sanitize would otherwise fold away, leaving a name that does not sanitize to itself.
	base := strings.TrimRight(strings.TrimSuffix(name, ext), " ")
	if base == "" {
		base = "page"
	}
	candidate := name
	for n := 2; d.seen[strings.ToLower(candidate)]; n++ {
		candidate = fit(base, fmt.Sprintf(" (%d)%s", n, ext))
	}
	d.seen[strings.ToLower(candidate)] = true
	return candidate
}

// Valid reports whether name can be a page's output name: one path segment of valid UTF-8,
// without control characters, not "", "." or "..". It is what the output endpoint accepts before
// looking the name up, so that no request reaches outside the job's folder.
func Valid(name string) bool {
	if name == "" || name == "." || name == ".." || !utf8.ValidString(name) {
		return false
	}
	return !strings.ContainsFunc(name, func(r rune) bool { return r == '/' || r == '\\' || r < 0x20 || r == 0x7f })
}
