package mangapage

import "testing"

// Options.SFX adds sound effects to the page in several faces and looks, each annotated as kind
// sfx with its ink, while the default page of the same seed keeps its own.
func TestSFXOptionAddsSoundEffectsInManyLooks(t *testing.T) {
	looks := map[sfxLook]int{}
	for seed := int64(1); seed <= 6; seed++ {
		plain, _, err := generate(seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		p, g, err := generate(seed, Options{SFX: true})
		if err != nil {
			t.Fatal(err)
		}
		count := func(p Page) int {
			n := 0
			for _, b := range p.Bubbles {
				if b.Kind == KindSFX {
					n++
					if b.Ink == nil || b.Box.Empty() || b.Dialogue() {
						t.Errorf("seed %d: sound effect %q annotated without ink or as dialogue", seed, b.Text)
					}
				}
			}
			return n
		}
		if extra := count(p) - count(plain); extra < 1 {
			t.Errorf("seed %d: %d sound effects with Options.SFX against %d without", seed, count(p), count(plain))
		}
		for _, it := range g.items {
			if it.Kind == KindSFX {
				looks[it.SFXLook]++
			}
		}
	}
	for _, l := range []sfxLook{sfxHalo, sfxWhite, sfxBare, sfxOutline} {
		if looks[l] == 0 {
			t.Errorf("no sound effect drawn in look %d over six pages: %v", l, looks)
		}
	}
}
