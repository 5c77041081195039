package clean

import (
	"image"
	"image/draw"
	"strings"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/page"
)

// ForEdit readies a cleaned page for an edited transcript: every kept block gets source's pixels
// back (its box and its shape's bounds, which hold the lettering the machine erased), and every
// block to letter that the machine did not erase (added by a person, or skipped) is painted over
// with the paper around it. It returns the blocks to letter, and where each sits in blocks.
// source may be nil when no block is kept; machine is the transcript the cleaned page was made
// with, nil when unknown (then nothing is painted over).
func ForEdit(img, source *image.RGBA, machine *engine.Transcript, blocks []engine.TranscriptBlock) ([]engine.TranscriptBlock, []int) {
	erased := map[string]bool{}
	if machine != nil {
		// A block the machine translated was erased; one it skipped, or found and could not
		// read, was left as it was (a transcript without statuses says so by its translation).
		for _, b := range engine.NameBlocks(machine.Blocks) {
			erased[b.ID] = b.Status != string(page.Skipped) && b.Status != string(page.Found) &&
				(b.Status != "" || b.Translation != "")
		}
	}
	var out []engine.TranscriptBlock
	var at []int
	for i, b := range blocks {
		box := image.Rect(b.Box.X, b.Box.Y, b.Box.X+b.Box.W, b.Box.Y+b.Box.H)
		switch {
		case b.Status == engine.StatusKeep && source != nil:
			for _, pt := range b.Shape {
				box = box.Union(image.Rect(pt.X, pt.Y, pt.X+1, pt.Y+1))
			}
			r := box.Inset(-2).Intersect(img.Bounds())
			draw.Draw(img, r, source, r.Min, draw.Src)
			continue
		case b.Status == engine.StatusKeep || b.Status == engine.StatusRemoved || strings.TrimSpace(b.Translation) == "":
			continue
		}
		if machine != nil && !erased[b.ID] && !box.Intersect(img.Bounds()).Empty() {
			inner, paper := page.Background(img, box.Intersect(img.Bounds()))
			draw.Draw(img, inner, image.NewUniform(paper), image.Point{}, draw.Src)
		}
		if b.Status == string(page.Skipped) {
			b.Status = string(page.Translated) // a person filled it in
		}
		out, at = append(out, b), append(at, i)
	}
	return out, at
}
