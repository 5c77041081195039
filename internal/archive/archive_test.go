package archive

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestComparePathsReadingOrder(t *testing.T) {
	names := []string{"v2/p1.png", "v10/p1.png", "v1/ch10/p1.png", "v1/ch2/P10.png", "v1/ch2/p2.png",
		"v1/ch2/p02a.png", "cover.png", "v1/ch2/p1.png"}
	slices.SortFunc(names, ComparePaths)
	want := "cover.png|v1/ch2/p1.png|v1/ch2/p2.png|v1/ch2/p02a.png|v1/ch2/P10.png|v1/ch10/p1.png|v2/p1.png|v10/p1.png"
	if got := strings.Join(names, "|"); got != want {
		t.Errorf("order\n got %s\nwant %s", got, want)
	}
}

// A page over the chapter's limit stops one byte past it while inflating.
func TestOpenPageStopsAtLimit(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("p.png")
	_, _ = w.Write(make([]byte, 5000))
	_ = zw.Close()
	ch, err := Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), 10, 6000)
	if err != nil {
		t.Fatal(err)
	}
	ch.limit = 1000 // as if the header had passed
	rc, err := ch.OpenPage(ch.Pages[0])
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, rc)
	if !errors.Is(err, ErrEntryTooLarge) || n != 1001 {
		t.Errorf("read %d bytes, %v; want 1001 and ErrEntryTooLarge", n, err)
	}
}
