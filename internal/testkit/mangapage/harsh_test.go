package mangapage

import (
	"fmt"
	"image/color"
	"strings"
	"testing"
)

// A harsh page is a JPEG of quality 60–80 on tinted, textured paper, and some of its balloons
// carry a tone: the scans where erasing leaves ghosts.
func TestHarshPagesAreScansSharedAsJPEG(t *testing.T) {
	toned := 0
	for seed := int64(1); seed <= 3; seed++ {
		p, g, err := generate(seed, Options{Harsh: true, Width: 900, Height: 1300})
		if err != nil {
			t.Fatal(err)
		}
		if p.Format != "jpeg" {
			t.Errorf("seed %d: format %s, want jpeg", seed, p.Format)
		}
		q := 0
		if _, err := fmt.Sscanf(p.Notes[strings.Index(p.Notes, "jpeg q"):], "jpeg q%d", &q); err != nil || q < 60 || q > 80 {
			t.Errorf("seed %d: notes %q, want jpeg quality 60–80", seed, p.Notes)
		}
		if !strings.Contains(p.Notes, "paper texture") {
			t.Errorf("seed %d: notes %q name no paper texture", seed, p.Notes)
		}
		// The paper is tinted: at the page's corner, blue is well below red.
		r, _, b, _ := p.Image.At(2, 2).RGBA()
		if r>>8 < b>>8+5 {
			t.Errorf("seed %d: corner %v is not tinted paper", seed, color.RGBAModel.Convert(p.Image.At(2, 2)))
		}
		for _, it := range g.items {
			if it.Balloon == nil {
				continue
			}
			// A toned balloon's interior, away from its lettering, has dots darker than paper.
			box := bounds(it.Balloon.Body).Intersect(g.page.Rect)
			near := dilate(it.Mask, g.s/2)
			dark := 0
			for y := box.Min.Y + box.Dy()/4; y < box.Max.Y-box.Dy()/4; y++ {
				for x := box.Min.X + box.Dx()/4; x < box.Max.X-box.Dx()/4; x++ {
					if near.AlphaAt(x, y).A == 0 && g.page.GrayAt(x, y).Y < 200 {
						dark++
					}
				}
			}
			if dark > box.Dx()*box.Dy()/200 {
				toned++
			}
		}
	}
	if toned == 0 {
		t.Error("no balloon of three harsh pages has a tone")
	}
}
