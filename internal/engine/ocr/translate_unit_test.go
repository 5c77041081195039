package ocr

import (
	"image"
	"testing"
)

func TestUnshout(t *testing.T) {
	got, ok := unshout("WHERE IS HE? I DON'T KNOW.")
	if !ok || got != "Where is he? I don't know." {
		t.Fatalf("got %q %v", got, ok)
	}
	if got, ok := unshout("Hello NASA"); ok || got != "Hello NASA" {
		t.Fatalf("mixed case changed: %q", got)
	}
}

func TestTargetSize(t *testing.T) {
	for _, c := range []struct {
		w, h int
		res  string
		want image.Point
	}{
		{1600, 2400, "1K", image.Pt(683, 1024)},
		{1600, 2400, "4K", image.Pt(2731, 4096)},
		{3000, 1000, "2K", image.Pt(2048, 683)},
		{123, 45, "original", image.Pt(123, 45)},
	} {
		got, err := targetSize(image.Rect(0, 0, c.w, c.h), c.res)
		if err != nil || got != c.want {
			t.Errorf("%dx%d %s: %v %v, want %v", c.w, c.h, c.res, got, err, c.want)
		}
	}
	if _, err := targetSize(image.Rect(0, 0, 10, 10), "8K"); err == nil {
		t.Error("8K accepted")
	}
}
