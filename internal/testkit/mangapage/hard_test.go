package mangapage

import (
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// hardPage draws the page of seed with the hard kinds of lettering, pristine on even seeds.
func hardPage(t *testing.T, seed int64) (Page, *generator) {
	t.Helper()
	p, g, err := generate(seed, Options{Hard: true, Pristine: seed%2 == 0, Format: "png"})
	if err != nil {
		t.Fatal(err)
	}
	return p, g
}

func TestHardPages(t *testing.T) {
	count := map[string]int{}
	halo := map[bool]int{}
	for seed := int64(1); seed <= 6; seed++ {
		p, g := hardPage(t, seed)
		checkPage(t, p)
		for i, b := range p.Bubbles {
			if b.Hard == "" {
				continue
			}
			count[b.Hard]++
			want := 0.97
			if seed%2 == 1 {
				want = 0.85 // blur and noise soften thin strokes
			}
			if hit, inked := inkOnPage(p, b); inked == 0 || float64(hit) < want*float64(inked) {
				t.Errorf("seed %d %s bubble %d %q: %d of %d ink pixels look like ink", seed, b.Hard, i, b.Text, hit, inked)
			}
			switch b.Hard {
			case HardShort:
				letters := 0
				for _, r := range b.Text {
					if !unicode.IsPunct(r) && !strings.ContainsRune("…！？。", r) {
						letters++
					}
				}
				if letters < 1 || letters > 4 || b.Kind != KindBubble || b.Balloon.Empty() {
					t.Errorf("seed %d: shout %q (%s, balloon %v) has %d letters", seed, b.Text, b.Kind, b.Balloon, letters)
				}
			case HardSquare:
				ratio := float64(b.Box.Dx()) / float64(b.Box.Dy())
				most := squareAspect
				if seed%2 == 1 {
					most *= 1.1 // resampling and rotation move the ink's box
				}
				if !b.Vertical || math.Abs(math.Log(ratio)) > math.Log(most) || len([]rune(b.Text)) < 7 {
					t.Errorf("seed %d: square block %q is %v (%.2f wide for 1 tall), vertical %v", seed, b.Text, b.Box, ratio, b.Vertical)
				}
			case HardOnArt:
				if b.Kind != KindFree {
					t.Errorf("seed %d: text on art %q is a %s", seed, b.Text, b.Kind)
				}
				if share := darkAround(p, b, p.Image.Bounds().Dx()/100); share < 0.05 {
					t.Errorf("seed %d: text on art %q has %.3f dark pixels around it, want tone or hatching", seed, b.Text, share)
				}
			case HardOpen:
				if b.Kind != KindBubble || !b.Box.In(b.Balloon) {
					t.Errorf("seed %d: open balloon %q: %s, box %v, balloon %v", seed, b.Text, b.Kind, b.Box, b.Balloon)
				}
			}
		}
		for _, it := range g.items {
			if it.Hard == HardOnArt {
				halo[it.Halo > 0]++
			}
		}
	}
	for _, k := range HardKinds {
		if count[k] < 4 {
			t.Errorf("%d pieces of %s lettering on six pages, want at least 4", count[k], k)
		}
	}
	if halo[true] == 0 || halo[false] == 0 {
		t.Errorf("text on art: %d with a white halo, %d without; want both", halo[true], halo[false])
	}
}

// inkOnPage counts the pixels of b's ink mask that are fully ink and those of them that are
// dark on the page.
func inkOnPage(p Page, b Bubble) (hit, inked int) {
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if b.Ink.AlphaAt(x, y).A < 230 {
				continue
			}
			inked++
			if luminance(p.Image, x, y) < 128 {
				hit++
			}
		}
	}
	return hit, inked
}

// darkAround is the share of dark pixels in a band from reach to twice reach around b's box,
// beyond any white halo.
func darkAround(p Page, b Bubble, reach int) float64 {
	outer, inner := b.Box.Inset(-2*reach).Intersect(p.Image.Bounds()), b.Box.Inset(-reach)
	n, dark := 0, 0
	for y := outer.Min.Y; y < outer.Max.Y; y++ {
		for x := outer.Min.X; x < outer.Max.X; x++ {
			if (image.Point{x, y}).In(inner) {
				continue
			}
			n++
			if luminance(p.Image, x, y) < 128 {
				dark++
			}
		}
	}
	return float64(dark) / float64(max(1, n))
}

// An open balloon's outline has a gap: along the middle of its outline, a run of paper a tenth
// of the way round or longer, where a closed balloon's outline is ink all round.
func TestOpenBalloonsAreOpen(t *testing.T) {
	open, closed := 0, 0
	for seed := int64(1); seed <= 6; seed++ {
		_, g := hardPage(t, seed)
		for _, it := range g.items {
			b := it.Balloon
			if b == nil || b.Line == 0 || len(b.Puffs) > 0 || b.Style == styleSpiky || b.Style == styleCaption {
				continue
			}
			gap := longestGap(g.page, b)
			switch {
			case it.Hard == HardOpen:
				open++
				if gap < 0.1 {
					t.Errorf("seed %d: open balloon %q (cut %v) has a gap of %.3f of its outline", seed, it.Text, b.Clip != nil, gap)
				}
			default:
				closed++
				if gap > 0.02 {
					t.Errorf("seed %d: closed balloon %q has a gap of %.3f of its outline", seed, it.Text, gap)
				}
			}
		}
	}
	if open < 4 || closed < 4 {
		t.Errorf("%d open and %d closed balloons measured, want 4 of each", open, closed)
	}
}

// longestGap is the longest run of paper along the middle of b's outline, as a share of the
// outline's length; off the page counts as paper, where a tail joins the body does not.
func longestGap(page *image.Gray, b *balloon) float64 {
	path := offset(b.Body, b.Line/2)
	tails := rasterize(page.Rect, b.Tails...)
	var samples []bool // paper?
	for i := range path {
		p, q := path[i], path[(i+1)%len(path)]
		n := max(1, int(q.sub(p).len()))
		for k := range n {
			s := lerp(p, q, float64(k)/float64(n))
			x, y := int(s.X), int(s.Y)
			if tails != nil && tails.AlphaAt(x, y).A > 0 {
				samples = append(samples, false)
				continue
			}
			samples = append(samples, !(image.Point{x, y}).In(page.Rect) || page.Pix[page.PixOffset(x, y)] > 200)
		}
	}
	best, run := 0, 0
	for i := range 2 * len(samples) { // twice round, for a run across the start
		if samples[i%len(samples)] {
			run++
			best = max(best, min(run, len(samples)))
		} else {
			run = 0
		}
	}
	return float64(best) / float64(len(samples))
}

func TestHardPagesRoundTrip(t *testing.T) {
	p, _ := hardPage(t, 3)
	dir := t.TempDir()
	if err := WritePage(dir, "h3", p); err != nil {
		t.Fatal(err)
	}
	q, err := ReadPage(filepath.Join(dir, "h3.json"))
	if err != nil {
		t.Fatal(err)
	}
	hard := 0
	for i, b := range p.Bubbles {
		if q.Bubbles[i].Hard != b.Hard || q.Bubbles[i].Balloon != b.Balloon || q.Bubbles[i].Box != b.Box {
			t.Errorf("bubble %d: read %q %v %v, wrote %q %v %v", i, q.Bubbles[i].Hard, q.Bubbles[i].Box, q.Bubbles[i].Balloon, b.Hard, b.Box, b.Balloon)
		}
		if b.Hard != "" {
			hard++
		}
	}
	if hard == 0 {
		t.Fatal("the hard page has no hard lettering")
	}
	// An unknown hard kind is refused, naming the kinds.
	data, err := os.ReadFile(filepath.Join(dir, "h3.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), `"hard": "`, `"hard": "x`, 1)
	if err := os.WriteFile(filepath.Join(dir, "h3.json"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPage(filepath.Join(dir, "h3.json")); err == nil || !strings.Contains(err.Error(), "on-art") {
		t.Errorf("ReadPage of an unknown hard kind: %v", err)
	}
}

func TestHardPagesAreJapanese(t *testing.T) {
	if _, err := Generate(1, Options{Lang: "ko", Hard: true}); err == nil {
		t.Error("Generate(ko, Hard) succeeded")
	}
}
