// Package page is the engine's page model: the page image and its blocks of lettering, which
// every stage (find, read, detect, translate, clean, letter) reads and writes. The transcript
// (engine.Transcript) is its serialized form.
package page

import (
	"fmt"
	"image"
	"image/color"

	"github.com/vtsproject/vts/internal/engine"
)

// Kind is what a block of lettering is.
type Kind string

const (
	Bubble  Kind = "bubble"  // inside an enclosed balloon
	Caption Kind = "caption" // a boxed narration
	Free    Kind = "free"    // text on art
	SFX     Kind = "sfx"     // a sound effect
)

// Status is how far a block went through the stages.
type Status string

const (
	Found      Status = "found"
	Read       Status = "read"
	Translated Status = "translated"
	Lettered   Status = "lettered"
	Skipped    Status = "skipped" // Block.Reason says why
)

// Block is one bubble, caption or run of free text.
type Block struct {
	// ID is stable for the life of the page: "b1", "b2", … in reading order.
	ID  string
	Box image.Rectangle
	// Shape is the outline of the area lettered into, in page pixels; a box's corners for text
	// on art.
	Shape       []image.Point
	Kind        Kind
	Vertical    bool
	Lang        string
	Source      string
	Confidence  float64
	Translation string
	Status      Status
	Reason      string

	// What the finder saw, for reading, cleaning and lettering; empty for a block rebuilt from a
	// transcript.
	//
	// Lines are the columns (vertical) or rows (horizontal) of the main text, in reading order.
	Lines []image.Rectangle
	// Ruby are the furigana columns or rows: erased, not read.
	Ruby []image.Rectangle
	// Char is the size of one character: a column's width or a row's height.
	Char int
	// Ink marks, over Box, the pixels that belong to the lettering.
	Ink *Mask
	// Bubble is the paper area around the lettering with its holes filled, or nil for text that
	// no enclosed paper area holds (text on art, a page-wide gutter).
	Bubble *Mask
	// Paper is the page's paper colour where the block was found.
	Paper color.RGBA
	// InkColor is the colour to letter in, for text set in rows over its own box (a Latin
	// page): the original lettering's where it stood out from the paper, measured before
	// cleaning. Zero for lettering fitted into its bubble or shape in black or white.
	InkColor color.RGBA
}

// Page is one page on its way through the stages.
type Page struct {
	// Image is the page: the source while reading, the cleaned page once cleaned.
	Image      *image.RGBA
	Name       string
	SourceLang string
	TargetLang string
	Engine     string
	Detection  *engine.Detection
	// Lettering is "upper" for comic-style capitals, empty for mixed case.
	Lettering string
	Blocks    []Block
}

// ID is the stable name of the i-th block in reading order.
func ID(i int) string { return fmt.Sprintf("b%d", i+1) }

// FromTranscript rebuilds the page model from its serialized form, over img (the cleaned page
// when re-lettering). Blocks without an ID are named by their position.
func FromTranscript(img *image.RGBA, t *engine.Transcript) *Page {
	p := &Page{Image: img, Name: t.Page, SourceLang: t.SourceLang, TargetLang: t.TargetLang, Engine: t.Engine, Detection: t.Detection, Lettering: t.Lettering}
	for i, tb := range t.Blocks {
		b := Block{
			ID: tb.ID, Box: image.Rect(tb.Box.X, tb.Box.Y, tb.Box.X+tb.Box.W, tb.Box.Y+tb.Box.H),
			Kind: Kind(tb.Kind), Vertical: tb.Vertical, Lang: tb.Lang, Source: tb.Source,
			Confidence: tb.Confidence, Translation: tb.Translation, Status: Status(tb.Status), Reason: tb.Reason,
		}
		if b.ID == "" {
			b.ID = ID(i)
		}
		for _, pt := range tb.Shape {
			b.Shape = append(b.Shape, image.Pt(pt.X, pt.Y))
		}
		p.Blocks = append(p.Blocks, b)
	}
	return p
}

// Transcript is the page's serialized form.
func (p *Page) Transcript() *engine.Transcript {
	t := &engine.Transcript{Page: p.Name, SourceLang: p.SourceLang, TargetLang: p.TargetLang, Engine: p.Engine,
		Detection: p.Detection, Lettering: p.Lettering, Blocks: []engine.TranscriptBlock{}}
	if p.Image != nil {
		t.Width, t.Height = p.Image.Bounds().Dx(), p.Image.Bounds().Dy()
	}
	for i, b := range p.Blocks {
		id := b.ID
		if id == "" {
			id = ID(i)
		}
		tb := engine.TranscriptBlock{
			ID: id, Status: string(b.Status), Reason: b.Reason, Box: Rect(b.Box), Kind: string(b.Kind),
			Vertical: b.Vertical, Lang: b.Lang, Source: b.Source, Translation: b.Translation, Confidence: b.Confidence,
		}
		for _, pt := range b.Shape {
			tb.Shape = append(tb.Shape, engine.Point{X: pt.X, Y: pt.Y})
		}
		t.Blocks = append(t.Blocks, tb)
	}
	return t
}

// Rect is a box in the transcript's terms.
func Rect(r image.Rectangle) engine.Rect {
	return engine.Rect{X: r.Min.X, Y: r.Min.Y, W: r.Dx(), H: r.Dy()}
}

// Corners is a box as a shape.
func Corners(r image.Rectangle) []image.Point {
	return []image.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
}

// Luma is c's 8-bit luminance, as Gray computes it for every pixel.
func Luma(c color.RGBA) uint8 {
	return uint8((299*int(c.R) + 587*int(c.G) + 114*int(c.B)) / 1000)
}

// Gray converts the page to 8-bit luminance: the one conversion every stage uses.
func Gray(img *image.RGBA) *image.Gray {
	b := img.Bounds()
	g := image.NewGray(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		src := img.Pix[img.PixOffset(b.Min.X, y):]
		dst := g.Pix[g.PixOffset(b.Min.X, y):]
		for x := 0; x < b.Dx(); x++ {
			r, gg, bl := int(src[4*x]), int(src[4*x+1]), int(src[4*x+2])
			dst[x] = uint8((299*r + 587*gg + 114*bl) / 1000)
		}
	}
	return g
}
