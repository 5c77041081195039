package read

import (
	"context"
	"fmt"
	"image"
	"image/color"

	"golang.org/x/image/draw"

	"github.com/vtsproject/vts/internal/engine/page"
)

// Latin reads the page's horizontal blocks with model in one pass (Latin is never set in
// columns, and a page that is Latin reads well the first time). Each block is read whole, as a
// uniform block of text (page segmentation 6), at its own size or larger: the finder's rows are
// cut for square CJK glyphs, and on a photographed page a slight tilt can run a paragraph's
// lines into one "row" that Tesseract, given the block, still reads line by line.
func (t *Tesseract) Latin(ctx context.Context, pa *page.Analysis, blocks []*page.Block, model string) ([]page.Reading, error) {
	out := make([]page.Reading, len(blocks))
	var idx []int
	var crops []*image.Gray
	for i, b := range blocks {
		if !b.Vertical && b.WorthReading() {
			idx, crops = append(idx, i), append(crops, latinCrop(pa.Gray, b))
		}
	}
	if len(crops) == 0 {
		return out, nil
	}
	rs, err := t.readMany(ctx, crops, model, 6)
	if err != nil {
		return nil, fmt.Errorf("reading lettering as Latin: %w", err)
	}
	for k, i := range idx {
		out[i] = rs[k]
	}
	return out, nil
}

// latinLinePx is the least line height a Latin crop is read at; smaller lettering is enlarged.
const latinLinePx = 32

// latinCrop renders b's lettering black on white, enlarged when its lines are small, padded.
func latinCrop(g *image.Gray, b *page.Block) *image.Gray {
	src := image.NewGray(b.Box)
	for i := range src.Pix {
		src.Pix[i] = 255
	}
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if b.InkAt(x, y) {
				src.SetGray(x, y, color.Gray{})
			}
		}
	}
	scale := max(1, float64(latinLinePx)/float64(max(b.Char, 1)))
	w, h := int(float64(b.Box.Dx())*scale), int(float64(b.Box.Dy())*scale)
	pad := latinLinePx
	out := image.NewGray(image.Rect(0, 0, w+2*pad, h+2*pad))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	draw.CatmullRom.Scale(out, image.Rect(pad, pad, pad+w, pad+h), src, src.Bounds(), draw.Src, nil)
	return out
}
