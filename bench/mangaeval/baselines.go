package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// referenceEngine cheats: it answers from the page's annotations, erasing each piece of
// dialogue's annotated ink (or giving the page without its lettering, where that is known) and
// lettering its known translation in its balloon. It is the
// ceiling of the metrics on a corpus (-engine reference), which shows what the harness itself
// loses (Tesseract misreading good English, ink the annotation and the pixels disagree on),
// and the harness's own tests use it.
type referenceEngine struct {
	oracle *oracle
	font   *opentype.Font
}

func newReferenceEngine(o *oracle) (*referenceEngine, error) {
	f, err := opentype.Parse(gobold.TTF)
	if err != nil {
		return nil, fmt.Errorf("parsing Go Bold: %w", err)
	}
	return &referenceEngine{oracle: o, font: f}, nil
}

// Supports implements engine.Engine.
func (r *referenceEngine) Supports(src, dst string, mode job.Mode) error { return nil }

// Translate implements engine.Engine.
func (r *referenceEngine) Translate(ctx context.Context, req engine.Request) (*engine.Response, error) {
	src, _, err := image.Decode(bytes.NewReader(req.Image))
	if err != nil {
		return nil, engine.Permanent("the image could not be read", err)
	}
	b := src.Bounds()
	cleaned := image.NewRGBA(b)
	draw.Draw(cleaned, b, src, b.Min, draw.Src)
	r.oracle.mu.Lock()
	bubbles, plate := r.oracle.bubbles, r.oracle.plate
	r.oracle.mu.Unlock()
	// Where the page without its lettering is known, that is the perfect erase.
	if plate != nil && plate.Bounds() == b {
		draw.Draw(cleaned, b, plate, b.Min, draw.Src)
	}
	tr := &engine.Transcript{Page: req.Filename, Width: b.Dx(), Height: b.Dy(), SourceLang: req.SourceLang, TargetLang: req.TargetLang, Engine: "reference"}
	for _, bb := range bubbles {
		if !bb.Dialogue() {
			continue
		}
		if plate == nil {
			paper := paperColour(src, bb)
			mask := inkMask(src, bb)
			for y := mask.Rect.Min.Y; y < mask.Rect.Max.Y; y++ {
				for x := mask.Rect.Min.X; x < mask.Rect.Max.X; x++ {
					if mask.Pix[mask.PixOffset(x, y)] > 0 {
						cleaned.Set(x, y, paper)
					}
				}
			}
		}
		kind := "bubble"
		if bb.Balloon.Empty() {
			kind = "free"
		}
		tr.Blocks = append(tr.Blocks, engine.TranscriptBlock{
			Box: engine.Rect{X: bb.Box.Min.X, Y: bb.Box.Min.Y, W: bb.Box.Dx(), H: bb.Box.Dy()}, Kind: kind,
			Vertical: bb.Vertical, Lang: bb.Lang, Source: bb.Text, Translation: bb.Translation, Confidence: 1,
		})
	}
	out := image.NewRGBA(b)
	copy(out.Pix, cleaned.Pix)
	for _, bb := range bubbles {
		if bb.Dialogue() {
			area := readCrop(balloonBoxes{Box: bb.Box}, b, b)
			if !bb.Balloon.Empty() {
				// The largest box inside an ellipse is its bounding box scaled by 1/√2.
				c := bb.Balloon.Min.Add(bb.Balloon.Max).Div(2)
				hw, hh := int(float64(bb.Balloon.Dx())/2/math.Sqrt2), int(float64(bb.Balloon.Dy())/2/math.Sqrt2)
				area = image.Rect(c.X-hw, c.Y-hh, c.X+hw, c.Y+hh).Union(bb.Box)
			}
			if err := r.letter(out, area, bb.Translation, inkColour(paperColour(src, bb))); err != nil {
				return nil, err
			}
		}
	}
	format := req.Format
	if format != "jpeg" {
		format = "png"
	}
	img, err := encode(out, format)
	if err != nil {
		return nil, err
	}
	cl, err := encode(cleaned, format)
	if err != nil {
		return nil, err
	}
	return &engine.Response{Image: img, Format: format, Blocks: len(tr.Blocks), Transcript: tr, Cleaned: cl}, nil
}

func encode(img image.Image, format string) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	if format == "jpeg" {
		err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92})
	} else {
		err = png.Encode(&buf, img)
	}
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", format, err)
	}
	return buf.Bytes(), nil
}

// paperColour is the median colour around a bubble's lettering.
func paperColour(src image.Image, b mangapage.Bubble) color.Color {
	vals := localPaper(src, b, inkMask(src, b))
	if len(vals) == 0 {
		return color.White
	}
	return color.Gray{Y: uint8(math.Round(median(vals)))}
}

func inkColour(paper color.Color) color.Color {
	if lum(paper) < 128 {
		return color.White
	}
	return color.Black
}

// letter wraps text into area at the largest size that fits, centred.
func (r *referenceEngine) letter(dst *image.RGBA, area image.Rectangle, text string, ink color.Color) error {
	words := strings.Fields(text)
	if len(words) == 0 || area.Empty() {
		return nil
	}
	for size := math.Min(float64(area.Dy())/2, 48); size >= 6; size *= 0.9 {
		face, err := opentype.NewFace(r.font, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
		if err != nil {
			return fmt.Errorf("opening Go Bold: %w", err)
		}
		lines, ok := wrap(face, words, area.Dx())
		lh := size * 1.15
		if ok && lh*float64(len(lines)) <= float64(area.Dy()) {
			y := float64(area.Min.Y) + (float64(area.Dy())-lh*float64(len(lines)))/2 + size*0.85
			for _, l := range lines {
				w := font.MeasureString(face, l).Round()
				d := font.Drawer{Dst: dst, Src: image.NewUniform(ink), Face: face,
					Dot: fixed.P(area.Min.X+(area.Dx()-w)/2, int(y))}
				d.DrawString(l)
				y += lh
			}
			face.Close()
			return nil
		}
		face.Close()
	}
	return nil
}

func wrap(face font.Face, words []string, width int) ([]string, bool) {
	var lines []string
	cur := ""
	for _, w := range words {
		next := strings.TrimSpace(cur + " " + w)
		if font.MeasureString(face, next).Round() <= width {
			cur = next
			continue
		}
		if cur == "" {
			return nil, false // one word wider than the area
		}
		lines = append(lines, cur)
		cur = w
		if font.MeasureString(face, cur).Round() > width {
			return nil, false
		}
	}
	return append(lines, cur), true
}

// nullEngine hands the page back untouched and keeps no transcript: the floor of the metrics.
type nullEngine struct{}

// Supports implements engine.Engine.
func (nullEngine) Supports(src, dst string, mode job.Mode) error { return nil }

// Translate implements engine.Engine.
func (nullEngine) Translate(_ context.Context, req engine.Request) (*engine.Response, error) {
	return &engine.Response{Image: req.Image, Format: req.Format}, nil
}
