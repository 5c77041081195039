package ocr

import (
	"context"
	"image"
	"slices"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/imageio"
)

// A translated page is lettered again from its cleaned version and an edited transcript alone:
// the edited block says the new words, a block whose translation was removed stays clean, the
// rest is lettered as before, and nothing lands outside the bubbles. No translator is asked.
func TestLetterAgainFromEditedTranscript(t *testing.T) {
	img, _ := sampleMangaPage(t)
	o, llm := newOracle(t, sampleTranslations)
	e, err := New(Config{Fallback: llm})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.Translate(context.Background(), engine.Request{Image: encode(t, img, "png"), Format: "png", Filename: "p1.png",
		SourceLang: "ja", TargetLang: "en", Mode: "standard"})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	if resp.Cleaned == nil || resp.Transcript == nil || len(resp.Transcript.Blocks) != 3 {
		t.Fatalf("want a cleaned page and 3 blocks, got %+v", resp.Transcript)
	}
	asked := len(o.seen)
	edited := *resp.Transcript
	edited.Blocks = append(edited.Blocks[:0:0], resp.Transcript.Blocks...)
	edited.Blocks[0].Translation = "Stop right there, thief!"
	edited.Blocks[2].Translation = ""

	data, ts, err := e.Letter(context.Background(), resp.Cleaned, &edited)
	if err != nil {
		t.Fatalf("Letter: %v", err)
	}
	if len(o.seen) != asked {
		t.Fatal("lettering again asked the translator")
	}
	if ts.Blocks[0].ID != "b1" || ts.Blocks[0].Status != "lettered" || ts.Blocks[1].Status != "lettered" || ts.Blocks[2].Status == "lettered" {
		t.Fatalf("transcript blocks %+v", ts.Blocks)
	}
	out, info, err := imageio.Decode(data)
	if err != nil || info.Format != "png" {
		t.Fatalf("decoding the lettered page: %v (%s)", err, info.Format)
	}
	cleaned, _, err := imageio.Decode(resp.Cleaned)
	if err != nil {
		t.Fatal(err)
	}
	sub := func(b engine.TranscriptBlock) image.Image {
		bb := image.Rect(b.Box.X, b.Box.Y, b.Box.X+b.Box.W, b.Box.Y+b.Box.H).Inset(-120).Intersect(out.Bounds())
		return out.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(bb)
	}
	if got := readBack(t, e, sub(ts.Blocks[0])); !strings.Contains(got, "thief") || !strings.Contains(got, "right") {
		t.Errorf("the edited bubble reads %q, want the edited translation", got)
	}
	if got := readBack(t, e, sub(ts.Blocks[1])); !strings.Contains(got, "tanaka") {
		t.Errorf("the unedited bubble reads %q, want its translation", got)
	}
	changed, spilled := 0, 0
	b := out.Bounds()
	third := ts.Blocks[2].Box
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if out.At(x, y) == cleaned.At(x, y) {
				continue
			}
			changed++
			if !inBubble(image.Pt(x, y)) {
				spilled++
			}
			if (image.Point{x, y}).In(image.Rect(third.X, third.Y, third.X+third.W, third.Y+third.H).Inset(-40)) {
				t.Fatalf("the bubble without translation was lettered at (%d,%d)", x, y)
			}
		}
	}
	for i, b := range ts.Blocks {
		if !slices.Equal(b.Shape, resp.Transcript.Blocks[i].Shape) {
			t.Errorf("block %d's shape changed from %v to %v", i, resp.Transcript.Blocks[i].Shape, b.Shape)
		}
	}
	if changed == 0 || spilled > 0 {
		t.Errorf("%d pixels lettered, %d outside the bubbles", changed, spilled)
	}
}
