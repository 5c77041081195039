package mangapage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/jpeg" // decodes annotated JPEG pages
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"

	_ "golang.org/x/image/webp" // decodes annotated WebP pages
)

// Annotation is the JSON form of an annotated page, generated or real:
//
//	{
//	  "image": "0001.jpg",               // the page, relative to the JSON file
//	  "width": 1654, "height": 2339,     // the page's size in pixels
//	  "lang": "ja",                      // the page's main language
//	  "ink": "0001.ink.png",             // optional: 8-bit grey mask, 255 where source ink is
//	  "notes": "…",                      // optional, free text
//	  "bubbles": [{
//	    "box":     {"x": 812, "y": 140, "w": 96, "h": 310},  // the lettering's ink box
//	    "balloon": {"x": 760, "y": 96, "w": 200, "h": 400},  // optional: the balloon's box
//	    "kind": "bubble",                // "bubble", "caption", "free" or "sfx"
//	    "lang": "ja",                    // optional, defaults to the page's
//	    "vertical": true,
//	    "text": "田中先輩、おはようございます！", // as lettered, without furigana
//	    "translation": "Good morning, Tanaka-senpai!",
//	    "hard": "short"                  // optional: "short", "open", "on-art" or "square"
//	  }]
//	}
//
// Boxes are in the page's pixels, x and y their top-left corner.
type Annotation struct {
	Image   string             `json:"image"`
	Width   int                `json:"width"`
	Height  int                `json:"height"`
	Lang    string             `json:"lang,omitempty"`
	Ink     string             `json:"ink,omitempty"`
	Plate   string             `json:"plate,omitempty"`
	Notes   string             `json:"notes,omitempty"`
	Bubbles []BubbleAnnotation `json:"bubbles"`
}

// BubbleAnnotation is one Bubble in JSON.
type BubbleAnnotation struct {
	Box         Rect   `json:"box"`
	Balloon     *Rect  `json:"balloon,omitempty"`
	Kind        string `json:"kind"`
	Lang        string `json:"lang,omitempty"`
	Vertical    bool   `json:"vertical"`
	Text        string `json:"text"`
	Translation string `json:"translation,omitempty"`
	Hard        string `json:"hard,omitempty"`
}

// Rect is a box in page pixels, as the engine's transcripts write it.
type Rect struct {
	X int `json:"x"`
	Y int `json:"y"`
	W int `json:"w"`
	H int `json:"h"`
}

func toRect(r image.Rectangle) Rect { return Rect{X: r.Min.X, Y: r.Min.Y, W: r.Dx(), H: r.Dy()} }

// Rectangle is r as an image.Rectangle.
func (r Rect) Rectangle() image.Rectangle { return image.Rect(r.X, r.Y, r.X+r.W, r.Y+r.H) }

// WritePage writes p into dir as name.png or name.jpg, name.ink.png (the union of the
// lettering's ink masks) and name.json, the annotation ReadPage reads back.
func WritePage(dir, name string, p Page) error {
	ext := map[string]string{"png": ".png", "jpeg": ".jpg", "webp": ".webp"}[p.Format]
	if ext == "" {
		return fmt.Errorf("mangapage: page format %q", p.Format)
	}
	b := p.Image.Bounds()
	a := Annotation{Image: name + ext, Width: b.Dx(), Height: b.Dy(), Lang: p.Lang, Notes: p.Notes}
	ink := image.NewGray(b)
	hasInk := false
	for _, bb := range p.Bubbles {
		ba := BubbleAnnotation{Box: toRect(bb.Box), Kind: bb.Kind, Lang: bb.Lang, Vertical: bb.Vertical, Text: bb.Text, Translation: bb.Translation, Hard: bb.Hard}
		if !bb.Balloon.Empty() {
			r := toRect(bb.Balloon)
			ba.Balloon = &r
		}
		a.Bubbles = append(a.Bubbles, ba)
		if bb.Ink != nil {
			hasInk = true
			r := bb.Ink.Rect.Intersect(b)
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					i := ink.PixOffset(x, y)
					ink.Pix[i] = max(ink.Pix[i], bb.Ink.Pix[bb.Ink.PixOffset(x, y)])
				}
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, a.Image), p.Encoded, 0o644); err != nil {
		return fmt.Errorf("mangapage: %w", err)
	}
	if hasInk {
		a.Ink = name + ".ink.png"
		var buf bytes.Buffer
		if err := png.Encode(&buf, ink); err != nil {
			return fmt.Errorf("mangapage: encoding ink mask: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, a.Ink), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("mangapage: %w", err)
		}
	}
	if p.Plate != nil {
		a.Plate = name + ".plate.png"
		var buf bytes.Buffer
		if err := png.Encode(&buf, p.Plate); err != nil {
			return fmt.Errorf("mangapage: encoding plate: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, a.Plate), buf.Bytes(), 0o644); err != nil {
			return fmt.Errorf("mangapage: %w", err)
		}
	}
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return fmt.Errorf("mangapage: encoding annotation: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("mangapage: %w", err)
	}
	return nil
}

// ReadPage reads an annotation file and the page (and ink mask) it names. Bubbles have an Ink
// mask only when the annotation names one; each bubble's is the mask within its box.
func ReadPage(path string) (Page, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Page{}, fmt.Errorf("mangapage: %w", err)
	}
	var a Annotation
	if err := json.Unmarshal(data, &a); err != nil {
		return Page{}, fmt.Errorf("mangapage: %s: %w", path, err)
	}
	if a.Image == "" {
		return Page{}, fmt.Errorf("mangapage: %s names no image", path)
	}
	dir := filepath.Dir(path)
	enc, err := os.ReadFile(filepath.Join(dir, a.Image))
	if err != nil {
		return Page{}, fmt.Errorf("mangapage: %w", err)
	}
	img, format, err := image.Decode(bytes.NewReader(enc))
	if err != nil {
		return Page{}, fmt.Errorf("mangapage: decoding %s: %w", a.Image, err)
	}
	b := img.Bounds()
	if a.Width != 0 && (a.Width != b.Dx() || a.Height != b.Dy()) {
		return Page{}, fmt.Errorf("mangapage: %s says %d×%d but %s is %d×%d", path, a.Width, a.Height, a.Image, b.Dx(), b.Dy())
	}
	var ink *image.Gray
	if a.Ink != "" {
		f, err := os.Open(filepath.Join(dir, a.Ink))
		if err != nil {
			return Page{}, fmt.Errorf("mangapage: %w", err)
		}
		m, err := png.Decode(f)
		f.Close()
		if err != nil {
			return Page{}, fmt.Errorf("mangapage: decoding ink mask %s: %w", a.Ink, err)
		}
		if m.Bounds() != b {
			return Page{}, fmt.Errorf("mangapage: ink mask %s is %v, the page %v", a.Ink, m.Bounds(), b)
		}
		ink = image.NewGray(b)
		draw.Draw(ink, b, m, b.Min, draw.Src)
	}
	p := Page{Image: img, Encoded: enc, Format: format, Lang: a.Lang, Notes: a.Notes}
	if a.Plate != "" {
		if p.Plate, err = readPlate(filepath.Join(dir, a.Plate), b); err != nil {
			return Page{}, err
		}
	}
	for i, ba := range a.Bubbles {
		bb := Bubble{Box: ba.Box.Rectangle(), Kind: ba.Kind, Lang: ba.Lang, Vertical: ba.Vertical, Text: ba.Text, Translation: ba.Translation, Hard: ba.Hard}
		if bb.Lang == "" {
			bb.Lang = a.Lang
		}
		if ba.Balloon != nil {
			bb.Balloon = ba.Balloon.Rectangle()
		}
		if bb.Box.Empty() || !bb.Box.In(b) {
			return Page{}, fmt.Errorf("mangapage: %s: bubble %d's box %v is not inside the page", path, i, bb.Box)
		}
		switch bb.Kind {
		case KindBubble, KindCaption, KindFree, KindSFX:
		case "":
			bb.Kind = KindBubble
		default:
			return Page{}, fmt.Errorf("mangapage: %s: bubble %d has kind %q", path, i, bb.Kind)
		}
		if bb.Hard != "" && !slices.Contains(HardKinds, bb.Hard) {
			return Page{}, fmt.Errorf("mangapage: %s: bubble %d has hard kind %q (want one of %s)", path, i, bb.Hard, strings.Join(HardKinds, ", "))
		}
		if ink != nil {
			r := bb.Box.Inset(-2).Intersect(b)
			m := image.NewAlpha(r)
			for y := r.Min.Y; y < r.Max.Y; y++ {
				copy(m.Pix[m.PixOffset(r.Min.X, y):m.PixOffset(r.Max.X, y)], ink.Pix[ink.PixOffset(r.Min.X, y):ink.PixOffset(r.Max.X, y)])
			}
			bb.Ink = m
		}
		p.Bubbles = append(p.Bubbles, bb)
	}
	return p, nil
}

// Annotated lists the annotation files (*.json) of a directory, sorted.
func Annotated(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("mangapage: %w", err)
	}
	if len(paths) == 0 {
		return nil, errors.New("mangapage: no *.json annotation in " + dir)
	}
	var out []string
	for _, p := range paths {
		if !strings.HasSuffix(p, ".ink.json") {
			out = append(out, p)
		}
	}
	return out, nil
}

// readPlate reads a page's plate (any format the page may be in), which must be the page's size.
func readPlate(path string, page image.Rectangle) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("mangapage: %w", err)
	}
	defer f.Close()
	m, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("mangapage: decoding plate %s: %w", path, err)
	}
	if m.Bounds() != page {
		return nil, fmt.Errorf("mangapage: plate %s is %v, the page %v", path, m.Bounds(), page)
	}
	return m, nil
}
