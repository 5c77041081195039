package ocr

import (
	"context"
	"image"
	"strings"
	"sync"
	"testing"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/crops"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/job"
)

var (
	sharedOnce sync.Once
	shared     *Engine
	sharedErr  error
)

// testEngine is one engine for the package's tests, with the real Tesseract and Apertium.
func testEngine(t testing.TB) *Engine {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = New(Config{}) })
	if sharedErr != nil {
		t.Fatalf("New: %v", sharedErr)
	}
	return shared
}

func encode(t testing.TB, img image.Image, format string) []byte {
	t.Helper()
	data, err := imageio.EncodeBytes(img, format)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func translatePage(t testing.TB, e *Engine, img image.Image, format, mode, resolution string) (*engine.Response, image.Image) {
	t.Helper()
	var stages []string
	resp, err := e.Translate(context.Background(), engine.Request{
		Image: encode(t, img, format), Format: format, Filename: "page." + format,
		SourceLang: "en", TargetLang: "es", Mode: job.Mode(mode), Resolution: job.Resolution(resolution),
		Progress: func(s string) { stages = append(stages, s) },
	})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	dumpImage(t, "out"+imageio.Extension(resp.Format), resp.Image)
	out, info, err := imageio.Decode(resp.Image)
	if err != nil {
		t.Fatalf("decoding output: %v", err)
	}
	if info.Format != format || resp.Format != format {
		t.Errorf("output format %s/%s, want %s", resp.Format, info.Format, format)
	}
	if resp.Blocks > 0 && strings.Join(stages, ",") != "ocr,translate,render" {
		t.Errorf("progress stages %v", stages)
	}
	return resp, out
}

// readBack runs Tesseract on an output page, as a reader would see it.
func readBack(t testing.TB, e *Engine, img image.Image) string {
	t.Helper()
	return strings.ToLower(readBackAsLettered(t, e, img))
}

// readBackAsLettered is readBack with the case of the lettering kept.
func readBackAsLettered(t testing.TB, e *Engine, img image.Image) string {
	t.Helper()
	page := toRGBA(img, img.Bounds().Size())
	view := crops.Prepare(page, false)
	var words []string
	for _, g := range []*image.Gray{view.Gray, crops.Inverted(view.Gray)} {
		ws, err := e.tess.Words(context.Background(), g, "spa+eng", 11)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range ws {
			if w.Conf > 40 {
				words = append(words, w.Text)
			}
		}
	}
	return strings.Join(words, " ")
}

func decodeForTest(data []byte) (image.Image, imageio.Info, error) { return imageio.Decode(data) }

// colorDiff is how far apart two colours are, as the engine measures it.
var colorDiff = page.ColorDist
