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
	if utf8.RuneCountInString(name) > MaxRunes {
		ext := path.Ext(name)
		if utf8.RuneCountInString(ext) > 16 {
			ext = ""
		}
		base := []rune(strings.TrimSuffix(name, ext))
		name = strings.TrimRight(string(base[:MaxRunes-utf8.RuneCountInString(ext)]), " .") + ext
	}
	if len(name) > MaxBytes {
		ext := path.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		base := strings.TrimSuffix(name, ext)
		cut := MaxBytes - len(ext)
		for cut > 0 && !utf8.RuneStart(base[cut]) {
			cut--
		}
		name = strings.TrimRight(base[:cut], " .") + ext
	}
	return name
}

// WithExtension replaces name's extension by ext (".png"), so that the name tells the truth about
// the content.
func WithExtension(name, ext string) string {
	old := path.Ext(name)
	switch strings.ToLower(old) {
	case ".png", ".jpg", ".jpeg", ".webp", ".jpe", ".jfif":
		name = strings.TrimSuffix(name, old)
	}
	if name == "" {
		name = "page"
	}
	return name + ext
}

// Deduper gives each name once: a repeated name gets " (2)", " (3)" before its extension.
// Comparison ignores case, since ZIP tools on case-insensitive systems would collide otherwise.
type Deduper struct{ seen map[string]bool }

// Unique returns name, or name with the lowest free counter.
func (d *Deduper) Unique(name string) string {
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	ext := path.Ext(name)
	base := strings.TrimSuffix(name, ext)
	candidate := name
	for n := 2; d.seen[strings.ToLower(candidate)]; n++ {
		candidate = fmt.Sprintf("%s (%d)%s", base, n, ext)
	}
	d.seen[strings.ToLower(candidate)] = true
	return candidate
}
