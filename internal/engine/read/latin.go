package read

import (
	"context"
	"fmt"
	"image"

	"github.com/vtsproject/vts/internal/engine/crops"
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
	var imgs []*image.Gray
	for i, b := range blocks {
		if !b.Vertical && b.WorthReading() {
			idx, imgs = append(idx, i), append(imgs, crops.LatinBlock(pa.Gray, b))
		}
	}
	if len(imgs) == 0 {
		return out, nil
	}
	rs, err := t.readMany(ctx, imgs, model, 6)
	if err != nil {
		return nil, fmt.Errorf("reading lettering as Latin: %w", err)
	}
	for k, i := range idx {
		out[i] = rs[k]
	}
	return out, nil
}
