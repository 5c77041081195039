package mangapage

import (
	"bytes"
	"image"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestGenerateIsDeterministic(t *testing.T) {
	for _, opt := range []Options{{}, {Lang: "zh-Hans", Width: 900, Height: 1300}} {
		for _, seed := range []int64{3, 17} {
			a, err := Generate(seed, opt)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Generate(seed, opt)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Encoded, b.Encoded) {
				t.Errorf("seed %d %+v: two runs encode different pages", seed, opt)
			}
			if !reflect.DeepEqual(a.Bubbles, b.Bubbles) {
				t.Errorf("seed %d %+v: two runs annotate differently", seed, opt)
			}
			if a.Notes != b.Notes {
				t.Errorf("seed %d: notes %q then %q", seed, a.Notes, b.Notes)
			}
		}
	}
	a, _ := Generate(1, Options{Width: 800, Height: 1100})
	b, _ := Generate(2, Options{Width: 800, Height: 1100})
	if bytes.Equal(a.Encoded, b.Encoded) {
		t.Error("seeds 1 and 2 draw the same page")
	}
}

// checkPage verifies the annotations of p against its image.
func checkPage(t *testing.T, p Page) {
	t.Helper()
	bounds := p.Image.Bounds()
	dialogue, hard := 0, 0
	for i, b := range p.Bubbles {
		switch b.Kind {
		case KindBubble, KindCaption, KindFree:
			if b.Hard == "" {
				dialogue++
			} else {
				hard++
			}
			if b.Translation == "" {
				t.Errorf("seed %d bubble %d %q has no translation", p.Seed, i, b.Text)
			}
		case KindSFX:
		default:
			t.Errorf("seed %d bubble %d: kind %q", p.Seed, i, b.Kind)
		}
		if b.Box.Empty() || !b.Box.In(bounds) {
			t.Errorf("seed %d bubble %d %q: box %v not inside the page %v", p.Seed, i, b.Text, b.Box, bounds)
		}
		if b.Text == "" || strings.ContainsAny(b.Text, "/{}|") {
			t.Errorf("seed %d bubble %d: text %q", p.Seed, i, b.Text)
		}
		if (b.Lang == "ja" || b.Lang == "zh-Hans") && strings.ContainsRune(b.Text, ' ') {
			t.Errorf("seed %d bubble %d: %s text %q has spaces", p.Seed, i, b.Lang, b.Text)
		}
		if b.Kind == KindBubble || b.Kind == KindCaption {
			if b.Balloon.Empty() || !b.Balloon.In(bounds) {
				t.Errorf("seed %d bubble %d: balloon %v not inside the page", p.Seed, i, b.Balloon)
			} else if !b.Box.In(b.Balloon) {
				t.Errorf("seed %d bubble %d %q: text %v outside its balloon %v", p.Seed, i, b.Text, b.Box, b.Balloon)
			}
		}
		if b.Ink == nil || !b.Box.In(b.Ink.Rect) {
			t.Errorf("seed %d bubble %d: ink mask does not cover the box", p.Seed, i)
		}
		for j, o := range p.Bubbles[:i] {
			if b.Box.Overlaps(o.Box) {
				t.Errorf("seed %d: bubbles %d %v and %d %v overlap", p.Seed, j, o.Box, i, b.Box)
			}
		}
	}
	if dialogue+hard < 2 || dialogue > 11 {
		t.Errorf("seed %d: %d pieces of dialogue, want 3–9 and a caption or free text", p.Seed, dialogue)
	}
}

func TestAnnotationsLieInsidePage(t *testing.T) {
	for seed := int64(1); seed <= 8; seed++ {
		p, err := Generate(seed, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkPage(t, p)
	}
	for _, lang := range []string{"ko", "zh-Hans"} {
		p, err := Generate(5, Options{Lang: lang})
		if err != nil {
			t.Fatal(err)
		}
		checkPage(t, p)
		for _, b := range p.Bubbles {
			if b.Lang != lang {
				t.Errorf("%s page has a %s bubble", lang, b.Lang)
			}
		}
	}
}

// The ink masks must sit on the lettering's pixels, also after rotation and resampling: where
// a mask says ink, the page must differ from its paper.
func TestInkMasksMatchPixels(t *testing.T) {
	for seed := int64(1); seed <= 10; seed++ {
		opt := Options{Pristine: seed%2 == 0, Format: "png"}
		p, err := Generate(seed, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range p.Bubbles {
			if !b.Dialogue() {
				continue
			}
			paper := luminance(p.Image, b.Box.Min.X, b.Box.Min.Y)
			for _, c := range [][2]int{{b.Box.Max.X - 1, b.Box.Min.Y}, {b.Box.Min.X, b.Box.Max.Y - 1}, {b.Box.Max.X - 1, b.Box.Max.Y - 1}} {
				paper = max(paper, luminance(p.Image, c[0], c[1]))
			}
			dark := paper > 128 // black lettering on white, unless a dark caption
			inked, hit := 0, 0
			for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
				for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
					if b.Ink.AlphaAt(x, y).A < 230 {
						continue
					}
					inked++
					v := luminance(p.Image, x, y)
					if (dark && v < 128) || (!dark && v >= 128) {
						hit++
					}
				}
			}
			want := 0.97
			if !opt.Pristine {
				want = 0.85 // blur and noise soften thin strokes
			}
			if inked == 0 || float64(hit) < want*float64(inked) {
				t.Errorf("seed %d bubble %d %q: %d of %d ink pixels look like ink", seed, i, b.Text, hit, inked)
			}
		}
	}
}

func luminance(img image.Image, x, y int) int {
	r, g, b, _ := img.At(x, y).RGBA()
	return int((299*r + 587*g + 114*b) / 1000 >> 8)
}

func TestTextsComeFromTheTable(t *testing.T) {
	var known []string
	for _, d := range slices.Concat(japanese, captionsJA, sfxJA) {
		known = append(known, parseJA(d.Source).text())
	}
	for seed := int64(20); seed < 24; seed++ {
		p, err := Generate(seed, Options{Width: 900, Height: 1300})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range p.Bubbles {
			if !slices.Contains(known, b.Text) {
				t.Errorf("seed %d: text %q is not a line of the table", seed, b.Text)
			}
		}
	}
}

func TestColumns(t *testing.T) {
	s := parseJA("田中{先輩|せんぱい}、/おはよう/ございます！")
	if got := s.text(); got != "田中先輩、おはようございます！" {
		t.Fatalf("text = %q", got)
	}
	if len(s.Rubies) != 1 || s.Rubies[0] != (ruby{Start: 2, End: 4, Kana: "せんぱい"}) {
		t.Fatalf("rubies = %+v", s.Rubies)
	}
	cols := columns(s, 6, false)
	var got []string
	for _, c := range cols {
		got = append(got, string(s.Glyphs[c[0]:c[1]]))
	}
	if want := []string{"田中先輩、", "おはよう", "ございます！"}; !slices.Equal(got, want) {
		t.Errorf("columns = %q, want %q", got, want)
	}
	// A phrase longer than a column is cut, but never before a mark that may not start one.
	s = parseJA("ちょっとまってってば！！")
	for _, c := range columns(s, 4, false) {
		if c[1]-c[0] > 4 {
			t.Errorf("column %q longer than 4", string(s.Glyphs[c[0]:c[1]]))
		}
		if strings.ContainsRune(noStart, s.Glyphs[c[0]]) {
			t.Errorf("column %q starts with a closing mark", string(s.Glyphs[c[0]:c[1]]))
		}
	}
}

func TestUnknownLanguage(t *testing.T) {
	if _, err := Generate(1, Options{Lang: "fr"}); err == nil {
		t.Error("Generate(fr) succeeded")
	}
}

func TestWriteReadPage(t *testing.T) {
	p, err := Generate(7, Options{Width: 800, Height: 1150, Plate: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := WritePage(dir, "p7", p); err != nil {
		t.Fatal(err)
	}
	paths, err := Annotated(dir)
	if err != nil || len(paths) != 1 {
		t.Fatalf("Annotated = %v, %v", paths, err)
	}
	q, err := ReadPage(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(q.Encoded, p.Encoded) || q.Format != p.Format || q.Lang != p.Lang {
		t.Errorf("page read back differs: %s %s", q.Format, q.Lang)
	}
	if len(q.Bubbles) != len(p.Bubbles) {
		t.Fatalf("%d bubbles read back, wrote %d", len(q.Bubbles), len(p.Bubbles))
	}
	if q.Plate == nil {
		t.Fatal("the plate was not read back")
	}
	for y := 0; y < p.Image.Bounds().Dy(); y += 7 {
		for x := 0; x < p.Image.Bounds().Dx(); x += 7 {
			if luminance(q.Plate, x, y) != luminance(p.Plate, x, y) {
				t.Fatalf("plate at (%d,%d) read back as %d, wrote %d", x, y, luminance(q.Plate, x, y), luminance(p.Plate, x, y))
			}
		}
	}
	for i, b := range p.Bubbles {
		r := q.Bubbles[i]
		if r.Box != b.Box || r.Balloon != b.Balloon || r.Kind != b.Kind || r.Text != b.Text || r.Translation != b.Translation || r.Vertical != b.Vertical {
			t.Errorf("bubble %d: read %+v, wrote %+v", i, r, b)
		}
		// The mask read back holds the bubble's own ink where no other bubble's lies.
		for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
			for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
				if b.Ink.AlphaAt(x, y).A > r.Ink.AlphaAt(x, y).A {
					t.Fatalf("bubble %d: ink at (%d,%d) lost", i, x, y)
				}
			}
		}
	}
}

func TestLinesDoNotStartWithClosingMarks(t *testing.T) {
	for _, d := range chinese {
		s := parsePlain(d.Source, true)
		for _, maxLen := range []int{3, 4, 5, 6} {
			for _, c := range columns(s, maxLen, false) {
				if strings.ContainsRune(noStart, s.Glyphs[c[0]]) {
					t.Errorf("%q at %d: line %q starts with a closing mark", d.Source, maxLen, string(s.Glyphs[c[0]:c[1]]))
				}
			}
		}
	}
}
