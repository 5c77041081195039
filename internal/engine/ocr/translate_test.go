package ocr

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/job"
)

// assertReads checks that Tesseract reads the translation on out and not the original words.
func assertReads(t *testing.T, e *Engine, out image.Image, spanish, english []string) {
	t.Helper()
	got := readBack(t, e, out)
	for _, w := range spanish {
		if !strings.Contains(got, w) {
			t.Errorf("output does not read %q; read %q", w, got)
		}
	}
	words := strings.FieldsFunc(got, func(r rune) bool { return !('a' <= r && r <= 'z') })
	for _, w := range english {
		for _, g := range words {
			if g == w {
				t.Errorf("output still reads English %q; read %q", w, got)
			}
		}
	}
}

// assertUntouched checks that pixels outside the lettering regions kept their colour.
func assertUntouched(t *testing.T, in *image.RGBA, out image.Image, regions []image.Rectangle, tol int) {
	t.Helper()
	b := in.Bounds()
	bad, total := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
	pixels:
		for x := b.Min.X; x < b.Max.X; x++ {
			for _, r := range regions {
				if (image.Point{x, y}).In(r) {
					continue pixels
				}
			}
			total++
			r1, g1, b1, _ := out.At(x, y).RGBA()
			c := in.RGBAAt(x, y)
			if colorDiff(color.RGBA{uint8(r1 >> 8), uint8(g1 >> 8), uint8(b1 >> 8), 255}, c) > tol {
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d pixels outside the lettering changed by more than %d", bad, total, tol)
	}
}

func TestTranslateEnglishToSpanish(t *testing.T) {
	e := testEngine(t)
	cases := []struct {
		name    string
		page    testPage
		mode    string
		blocks  int
		spanish []string
		english []string
	}{
		{"speech bubbles on a gradient", bubblePage(t), "standard", 2,
			[]string{"tengo", "encontrar", "hermano", "casa", "grande"},
			[]string{"have", "find", "brother", "where", "house", "big"}},
		{"light on dark and dark on light", captionPage(t), "standard", 2,
			[]string{"noche", "casa", "verde"},
			[]string{"night", "cold", "house", "green"}},
		{"paragraph", paragraphPage(t), "fast", 1,
			[]string{"niños", "jardín", "mañana", "ciudad", "padre", "libros"},
			[]string{"children", "garden", "morning", "mother", "city", "father", "books"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, out := translatePage(t, e, tc.page.img, "png", tc.mode, "original")
			if resp.Blocks != tc.blocks {
				t.Errorf("Blocks = %d, want %d", resp.Blocks, tc.blocks)
			}
			if out.Bounds() != tc.page.img.Bounds() {
				t.Errorf("size %v, want %v", out.Bounds(), tc.page.img.Bounds())
			}
			assertReads(t, e, out, tc.spanish, tc.english)
			assertUntouched(t, tc.page.img, out, tc.page.text, 2)
			assertShapes(t, e, resp.Transcript, out)
		})
	}
}

// assertShapes checks the transcript names each block in reading order, says it was lettered, and
// keeps as its shape the area the translation was lettered into (so that lettering again lands
// there): most of the translation's words read back inside it.
func assertShapes(t *testing.T, e *Engine, ts *engine.Transcript, out image.Image) {
	t.Helper()
	for i, b := range ts.Blocks {
		if b.ID != fmt.Sprintf("b%d", i+1) || b.Status != "lettered" || len(b.Shape) != 4 {
			t.Errorf("block %d: %s, %s, shape %v", i, b.ID, b.Status, b.Shape)
			continue
		}
		area := image.Rectangle{Min: image.Pt(b.Shape[0].X, b.Shape[0].Y), Max: image.Pt(b.Shape[2].X, b.Shape[2].Y)}
		got := readBack(t, e, out.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(area.Inset(-4)))
		words, inside := 0, 0
		for _, w := range strings.Fields(strings.ToLower(b.Translation)) {
			if w = strings.Trim(w, "!?.,¡¿"); len([]rune(w)) > 3 {
				words++
				if strings.Contains(got, w) {
					inside++
				}
			}
		}
		t.Logf("block %d: box %v shape %v: %d of %d words inside", i, b.Box, area, inside, words)
		if inside*2 < words {
			t.Errorf("block %d: %q not read back inside its shape %v (read %q)", i, b.Translation, area, got)
		}
	}
}

// A whole page of light lettering on black goes through the single-pass fast mode inverted.
func TestTranslateDarkPageFast(t *testing.T) {
	e := testEngine(t)
	img := image.NewRGBA(image.Rect(0, 0, 1100, 600))
	fillRect(img, img.Bounds(), color.RGBA{10, 10, 10, 255})
	drawLettering(t, img, lettering{Lines: []string{"I have to find", "my brother."}, Font: notoBold, Size: 60,
		Ink: color.RGBA{255, 240, 120, 255}, Center: image.Pt(550, 300)})
	resp, out := translatePage(t, e, img, "png", "fast", "original")
	if resp.Blocks != 1 {
		t.Fatalf("Blocks = %d, want 1", resp.Blocks)
	}
	assertReads(t, e, out, []string{"tengo", "hermano"}, []string{"brother", "find"})
	// The lettering keeps its colour: yellow on black is still legible.
	if !hasColor(out, color.RGBA{255, 240, 120, 255}, 30) {
		t.Error("the translation is not lettered in the original yellow")
	}
}

func hasColor(img image.Image, c color.RGBA, tol int) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if colorDiff(color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}, c) <= tol {
				return true
			}
		}
	}
	return false
}

func TestOutputKeepsSourceFormat(t *testing.T) {
	e := testEngine(t)
	p := captionPage(t)
	for _, format := range []string{"png", "jpeg", "webp"} {
		t.Run(format, func(t *testing.T) {
			resp, out := translatePage(t, e, p.img, format, "standard", "original")
			if resp.Blocks != 2 {
				t.Errorf("Blocks = %d, want 2", resp.Blocks)
			}
			assertReads(t, e, out, []string{"noche", "verde"}, []string{"night", "green"})
			tol := 2
			if format == "jpeg" {
				tol = 40 // JPEG re-encoding moves pixels near the panel's edges a little anyway
			}
			assertUntouched(t, p.img, out, p.text, tol)
		})
	}
}

func TestResolutionScalesLongEdge(t *testing.T) {
	e := testEngine(t)
	p := captionPage(t) // 1200×900, landscape
	for res, want := range map[string]image.Point{
		"original": {1200, 900},
		"1K":       {1024, 768},
		"2K":       {2048, 1536},
	} {
		t.Run(res, func(t *testing.T) {
			resp, out := translatePage(t, e, p.img, "png", "fast", res)
			if out.Bounds().Size() != want {
				t.Fatalf("size %v, want %v", out.Bounds().Size(), want)
			}
			if resp.Blocks != 2 {
				t.Errorf("Blocks = %d, want 2", resp.Blocks)
			}
			assertReads(t, e, out, []string{"casa", "verde"}, []string{"house", "green"})
		})
	}
	t.Run("4K portrait without text", func(t *testing.T) {
		img := image.NewRGBA(image.Rect(0, 0, 600, 900))
		gradient(img)
		resp, out := translatePage(t, e, img, "jpeg", "fast", "4K")
		if out.Bounds().Size() != (image.Point{2731, 4096}) {
			t.Fatalf("size %v, want 2731×4096", out.Bounds().Size())
		}
		if resp.Blocks != 0 {
			t.Errorf("Blocks = %d on a page without text", resp.Blocks)
		}
	})
}

func TestPageWithoutText(t *testing.T) {
	e := testEngine(t)
	img := image.NewRGBA(image.Rect(0, 0, 800, 600))
	gradient(img)
	fillEllipse(img, image.Pt(400, 300), 200, 120, color.RGBA{255, 255, 255, 255}, color.RGBA{0, 0, 0, 255})
	resp, out := translatePage(t, e, img, "webp", "standard", "original")
	if resp.Blocks != 0 {
		t.Fatalf("Blocks = %d, want 0", resp.Blocks)
	}
	assertUntouched(t, img, out, nil, 0)
}

func TestAutoDetectsSpanishSource(t *testing.T) {
	e := testEngine(t)
	img := image.NewRGBA(image.Rect(0, 0, 1100, 500))
	fillRect(img, img.Bounds(), color.RGBA{255, 255, 255, 255})
	drawLettering(t, img, lettering{Lines: []string{"Tengo que encontrar", "a mi hermano."}, Font: notoBold, Size: 56,
		Ink: color.RGBA{0, 0, 0, 255}, Center: image.Pt(550, 250)})
	resp, err := e.Translate(context.Background(), engine.Request{
		Image: encode(t, img, "png"), Format: "png", SourceLang: "auto", TargetLang: "en", Mode: "standard", Resolution: "original",
	})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	dumpImage(t, "out.png", resp.Image)
	out, _, _ := decodeForTest(resp.Image)
	assertReads(t, e, out, []string{"have", "find", "brother"}, []string{"tengo", "encontrar", "hermano"})
}

func TestSupports(t *testing.T) {
	e := testEngine(t)
	for _, ok := range [][3]string{{"en", "es", "standard"}, {"es", "en", "fast"}, {"auto", "es", "advanced"}, {"auto", "en", ""}} {
		if err := e.Supports(ok[0], ok[1], job.Mode(ok[2])); err != nil {
			t.Errorf("Supports%v = %v", ok, err)
		}
	}
	for _, bad := range []struct {
		src, dst, mode string
		lists          string
	}{
		{"en", "ja", "standard", "en→es"}, // no eng-jpn pair installed
		{"fr", "es", "standard", "en"},    // no French OCR data installed
		{"auto", "de", "fast", "en→es"},   // nothing installed translates to German
		{"en", "es", "turbo", "advanced"}, // no such mode
	} {
		err := e.Supports(bad.src, bad.dst, job.Mode(bad.mode))
		var ue *engine.UnsupportedError
		if !errors.As(err, &ue) {
			t.Errorf("Supports(%s,%s,%s) = %v, want *UnsupportedError", bad.src, bad.dst, bad.mode, err)
			continue
		}
		if !strings.Contains(ue.Error(), bad.lists) {
			t.Errorf("Supports(%s,%s,%s) = %q, want the supported list to name %q", bad.src, bad.dst, bad.mode, ue, bad.lists)
		}
	}
	// Translate refuses the same requests for good, without reading the image.
	_, err := e.Translate(context.Background(), engine.Request{Image: []byte("x"), SourceLang: "en", TargetLang: "ja", Mode: "fast"})
	if !engine.IsPermanent(err) {
		t.Errorf("unsupported Translate: %v, want permanent", err)
	}
}

func TestUnreadableImageIsPermanent(t *testing.T) {
	e := testEngine(t)
	_, err := e.Translate(context.Background(), engine.Request{
		Image: []byte("\x89PNG\r\n\x1a\nthis is not a png"), Format: "png", SourceLang: "en", TargetLang: "es", Mode: "fast",
	})
	if !engine.IsPermanent(err) {
		t.Fatalf("err = %v, want permanent", err)
	}
}

func TestCancelledContext(t *testing.T) {
	e := testEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := e.Translate(ctx, engine.Request{
		Image: encode(t, captionPage(t).img, "png"), Format: "png", SourceLang: "en", TargetLang: "es", Mode: "fast",
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestNewNamesMissingTesseract(t *testing.T) {
	_, err := New(Config{TesseractPath: "/nonexistent/tesseract"})
	if err == nil || !strings.Contains(err.Error(), "apt-get install tesseract-ocr") {
		t.Fatalf("err = %v, want a hint to install tesseract-ocr", err)
	}
}

// lettering=upper letters a Latin page's translation in capitals, as it does a manga page's: the
// page reads the Spanish in capitals, the transcript keeps the translation as the translator gave
// it and says the page was lettered in capitals, so that lettering it again keeps them.
func TestLatinPageLetteredUpper(t *testing.T) {
	e := testEngine(t)
	p := bubblePage(t)
	resp, err := e.Translate(context.Background(), engine.Request{Image: encode(t, p.img, "png"), Format: "png", Filename: "page.png",
		SourceLang: "en", TargetLang: "es", Mode: "standard", Lettering: "upper"})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	if resp.Transcript == nil || resp.Transcript.Lettering != "upper" || resp.Blocks != 2 {
		t.Fatalf("want 2 lettered blocks and a transcript that keeps lettering upper, got %d blocks, %+v", resp.Blocks, resp.Transcript)
	}
	out, _, err := decodeForTest(resp.Image)
	if err != nil {
		t.Fatal(err)
	}
	got := " " + readBackAsLettered(t, e, out) + " "
	words, upper := 0, 0
	for _, b := range resp.Transcript.Blocks {
		if b.Translation == strings.ToUpper(b.Translation) {
			t.Errorf("block %s: the transcript keeps %q, want the translation as given", b.ID, b.Translation)
		}
		for _, w := range strings.Fields(b.Translation) {
			if w = strings.Trim(w, "!?.,¡¿"); len([]rune(w)) > 3 {
				words++
				if strings.Contains(got, strings.ToUpper(w)) {
					upper++
				}
				if strings.Contains(got, w) {
					t.Errorf("%q is lettered in mixed case; read %q", w, got)
				}
			}
		}
	}
	if words == 0 || upper*2 < words {
		t.Errorf("%d of %d words of the translation read back in capitals; read %q", upper, words, got)
	}
}
