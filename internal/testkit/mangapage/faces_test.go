package mangapage

import (
	"slices"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/image/font/sfnt"
)

// Pages lettered in the faces the engines were never tuned on name the face in their notes, and
// every character of the Japanese dialogue, captions and shouts is in every one of those faces:
// a missing glyph would letter a blank or a box, and a figure measured on such a page would
// measure the face's gaps, not the engine.
func TestOtherFacesLetterEveryCharacter(t *testing.T) {
	var buf sfnt.Buffer
	for _, tf := range otherFaces {
		f, err := tf.load()
		if err != nil {
			t.Fatalf("%s: %v", tf.Name, err)
		}
		for _, d := range slices.Concat(japanese, captionsJA, shoutsJA) {
			for _, r := range d.Source {
				if strings.ContainsRune("/{|}", r) || unicode.IsSpace(r) {
					continue
				}
				if i, err := f.GlyphIndex(&buf, r); err != nil || i == 0 {
					t.Errorf("%s has no glyph for %q (in %q)", tf.Name, r, d.Source)
				}
			}
		}
	}
	names := map[string]bool{}
	for seed := int64(1); seed <= 8; seed++ {
		p, err := Generate(seed, Options{OtherFaces: true})
		if err != nil {
			t.Fatal(err)
		}
		face := ""
		for _, tf := range otherFaces {
			if strings.HasPrefix(p.Notes, tf.Name+" ") {
				face = tf.Name
			}
		}
		if face == "" {
			t.Errorf("seed %d: lettered in %q, none of the other faces", seed, p.Notes)
		}
		names[face] = true
	}
	if len(names) < 3 {
		t.Errorf("8 pages lettered in %d of the other faces", len(names))
	}
	if _, err := Generate(1, Options{Lang: "ko", OtherFaces: true}); err == nil {
		t.Error("Generate(ko, OtherFaces) succeeded")
	}
}
