package archive

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzOpen reads arbitrary bytes as a chapter and every page of it. Whatever the bytes, it
// answers pages or one of the package's refusals, and never inflates a page past its bounds.
// Seeds: testdata/fuzz/FuzzOpen (written by testdata/hostile/gen.go).
func FuzzOpen(f *testing.F) {
	const limit = 64 << 10
	f.Fuzz(func(t *testing.T, data []byte) {
		ch, err := Open(bytes.NewReader(data), int64(len(data)), 20, limit)
		if err != nil {
			if !refusal(err) {
				t.Fatalf("Open: an error outside the refusals: %v", err)
			}
			return
		}
		if len(ch.Pages) == 0 || len(ch.Pages) > 20 {
			t.Fatalf("%d pages", len(ch.Pages))
		}
		for _, p := range ch.Pages {
			if !localName(p.Name) {
				t.Fatalf("page %q escapes", p.Name)
			}
			rc, err := ch.OpenPage(p)
			if err != nil {
				if !refusal(err) {
					t.Fatalf("OpenPage: an error outside the refusals: %v", err)
				}
				continue
			}
			n, err := io.Copy(io.Discard, rc)
			_ = rc.Close()
			if n > limit+1 {
				t.Fatalf("%s inflated %d bytes past a %d bound", p.Name, n, limit)
			}
			if err != nil && !refusal(err) {
				t.Fatalf("reading %s: an error outside the refusals: %v", p.Name, err)
			}
		}
	})
}

func refusal(err error) bool {
	for _, e := range []error{ErrCorrupt, ErrEncrypted, ErrNested, ErrEscapingName, ErrNoPage, ErrTooManyPages, ErrBomb, ErrEntryTooLarge} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
