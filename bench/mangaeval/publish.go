package main

import (
	"image"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// What a reader sees on a finished page, beyond "was it read": ghosts of the erased glyphs, and
// how much of its bubble the lettering fills.

const (
	// residueReach is how far around the former glyphs ghosts are looked for, in pixels: the
	// anti-aliased edge and the JPEG halo of a glyph lie within it.
	residueReach = 3
	// visiblyDarker is how much darker than the paper a pixel must be to show, in grey levels:
	// on white paper, 24 levels is a grey a reader sees as a mark.
	visiblyDarker = 24
	// otherInk is the contrast above which a pixel near a glyph that is not the glyph's own is
	// another drawing (the bubble's outline, art crossing it), which a clean erase keeps.
	otherInk = 100
	// maxCleanResidue is the residue under which a bubble counts as clean of ghost glyphs.
	maxCleanResidue = 0.01
	// maxOutside is the share of a balloon's lettering outside it above which a reader sees the
	// translation spill out of its balloon (a letter's serif past the outline is not that).
	maxOutside = 0.1
)

// residue is, on the cleaned page out, the share of the pixels on and around bubble b's former
// glyphs that are still visibly darker than the paper around them on src; ok is false when it
// cannot be measured (no ink, no paper). With a plate (src without its lettering), it is the
// share visibly darker, or lighter, than anything the plate shows around them (see
// plateRange): a ghost on the art, or the white silhouette of a halo left on it.
func residue(src, plate, out image.Image, b mangapage.Bubble) (float64, bool) {
	mask := inkMask(src, b)
	paperVals := localPaper(src, b, mask)
	if len(paperVals) == 0 && plate == nil {
		return 0, false
	}
	paper := median(paperVals)
	sb := src.Bounds()
	at := lumOn(sb, out)
	r := mask.Rect.Inset(-residueReach).Intersect(sb)
	w, h := r.Dx(), r.Dy()
	if w <= 0 || h <= 0 {
		return 0, false
	}
	glyph := func(x, y int) bool {
		return (image.Point{x, y}).In(mask.Rect) && mask.Pix[mask.PixOffset(x, y)] > 0
	}
	// The glyphs grown by residueReach, separably (a square).
	rows := make([]bool, w*h)
	for y := range h {
		for x := range w {
			for dx := -residueReach; dx <= residueReach; dx++ {
				if glyph(r.Min.X+x+dx, r.Min.Y+y) {
					rows[y*w+x] = true
					break
				}
			}
		}
	}
	total, dark := 0, 0
	for y := range h {
		for x := range w {
			near := false
			for dy := -residueReach; dy <= residueReach && !near; dy++ {
				near = y+dy >= 0 && y+dy < h && rows[(y+dy)*w+x]
			}
			px, py := r.Min.X+x, r.Min.Y+y
			switch {
			case !near:
			case plate != nil:
				total++
				if lo, hi := plateRange(plate, px, py); outside(at(px, py), lo, hi) > visiblyDarker {
					dark++
				}
			case glyph(px, py) || paper-lum(src.At(px, py)) <= otherInk:
				total++
				if paper-at(px, py) > visiblyDarker {
					dark++
				}
			}
		}
	}
	if total == 0 {
		return 0, false
	}
	return float64(dark) / float64(total), true
}

// minLettering is the fewest pixels of lettering worth measuring against a balloon.
const minLettering = 20

// lettered reports whether the translated page out differs from the cleaned one at (x, y) as
// lettering does.
func lettered(out, cleaned image.Image, x, y int) bool {
	return math.Abs(lum(out.At(x, y))-lum(cleaned.At(x, y))) > 64
}

// balloonOn is bubble b's balloon in out's pixels (out may be another size than the source
// page src); ok is false for text without a balloon, or no cleaned page to tell the lettering by.
func balloonOn(src, out, cleaned image.Image, b mangapage.Bubble) (image.Rectangle, bool) {
	if b.Balloon.Empty() || out == nil || cleaned == nil || out.Bounds() != cleaned.Bounds() {
		return image.Rectangle{}, false
	}
	sb, ob := src.Bounds(), out.Bounds()
	return scaleRect(b.Balloon, float64(ob.Dx())/float64(sb.Dx()), float64(ob.Dy())/float64(sb.Dy())), true
}

// letteringFill is how much of its balloon the lettering fills on the translated page out: the
// lettering's extent (where out differs from the cleaned page) as a share of the balloon's
// width and height. ok is false for text without a balloon or a balloon with no lettering.
func letteringFill(src, out, cleaned image.Image, b mangapage.Bubble) (w, h float64, ok bool) {
	balloon, ok := balloonOn(src, out, cleaned, b)
	if !ok {
		return 0, 0, false
	}
	balloon = balloon.Intersect(out.Bounds())
	var ext image.Rectangle
	n := 0
	for y := balloon.Min.Y; y < balloon.Max.Y; y++ {
		for x := balloon.Min.X; x < balloon.Max.X; x++ {
			if lettered(out, cleaned, x, y) {
				ext = ext.Union(image.Rect(x, y, x+1, y+1))
				n++
			}
		}
	}
	if n < minLettering || balloon.Dx() == 0 || balloon.Dy() == 0 {
		return 0, 0, false
	}
	return float64(ext.Dx()) / float64(balloon.Dx()), float64(ext.Dy()) / float64(balloon.Dy()), true
}

// letteringOutside is the share of the lettering set into shape (a transcript block's outline,
// in out's pixels) that lies outside bubble b's balloon on the translated page out: a balloon's
// translation set out on the art or the panel's white beside it, where the balloon's paper ran
// on. ok is false for text without a balloon or no lettering to measure.
func letteringOutside(src, out, cleaned image.Image, b mangapage.Bubble, shape []engine.Point) (share float64, ok bool) {
	balloon, ok := balloonOn(src, out, cleaned, b)
	if !ok || len(shape) == 0 {
		return 0, false
	}
	balloon = balloon.Inset(-2)
	var area image.Rectangle
	for _, p := range shape {
		area = area.Union(image.Rect(p.X, p.Y, p.X+1, p.Y+1))
	}
	n, outside := 0, 0
	area = area.Intersect(out.Bounds())
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			if lettered(out, cleaned, x, y) {
				n++
				if !image.Pt(x, y).In(balloon) {
					outside++
				}
			}
		}
	}
	if n < minLettering {
		return 0, false
	}
	return float64(outside) / float64(n), true
}

// kindOf is the kind recall is reported by: the annotated kind, with short lettering (shouts of
// one to four characters, the commonest miss) apart.
func kindOf(b bubbleResult) string {
	if b.Kind != mangapage.KindSFX && utf8.RuneCountInString(b.Text) <= 4 {
		return "short"
	}
	return b.Kind
}

// publishTally adds up what a reader of the finished page sees.
type publishTally struct {
	Erased, Clean int       // emptied bubbles whose residue could be measured; those under maxCleanResidue
	Residues      []float64 // over every measured bubble
	FillW, FillH  []float64
	// Lettered counts the bubbles whose lettering could be placed against their balloon, and
	// Outside those with more than maxOutside of it outside the balloon.
	Lettered, Outside int
	KindTotal         map[string]int
	KindRead          map[string]int
	// HardTotal and HardRead count dialogue by its hard kind (mangapage.HardKinds), ordinary
	// dialogue under "".
	HardTotal, HardRead map[string]int
	// SFXMarked counts the sound effects whose block the engine marked kind sfx (read or not):
	// found, and known for art to be left in place.
	SFXMarked int
	// Blocks and Skipped count the transcripts' blocks and those kept as skipped (found, left
	// untouched for a person).
	Blocks, Skipped int
}

func (t *publishTally) add(r pageResult) {
	if t.KindTotal == nil {
		t.KindTotal, t.KindRead = map[string]int{}, map[string]int{}
		t.HardTotal, t.HardRead = map[string]int{}, map[string]int{}
	}
	if r.Engine != nil {
		t.Blocks += len(r.Engine.Blocks)
		for _, tb := range r.Engine.Blocks {
			if tb.Status == "skipped" {
				t.Skipped++
			}
		}
	}
	for _, b := range r.Bubbles {
		k := kindOf(b)
		t.KindTotal[k]++
		if b.Kind == mangapage.KindSFX && r.Engine != nil && b.Reading.Block >= 0 && b.Reading.Block < len(r.Engine.Blocks) &&
			r.Engine.Blocks[b.Reading.Block].Kind == mangapage.KindSFX {
			t.SFXMarked++
		}
		if b.Reading.Read {
			t.KindRead[k]++
		}
		if !b.Scored {
			continue
		}
		t.HardTotal[b.Hard]++
		if b.Reading.Read {
			t.HardRead[b.Hard]++
		}
		if b.Emptying.ResidueMeasured {
			t.Residues = append(t.Residues, b.Emptying.Residue)
			if b.Emptying.Emptied {
				t.Erased++
				if b.Emptying.Residue <= maxCleanResidue {
					t.Clean++
				}
			}
		}
		if b.FillMeasured {
			t.FillW, t.FillH = append(t.FillW, b.FillWidth), append(t.FillH, b.FillHeight)
		}
		if b.OutsideMeasured {
			t.Lettered++
			if b.Outside > maxOutside {
				t.Outside++
			}
		}
	}
}

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return median(slices.Clone(v))
}
