package main

import (
	"image"
	"image/color"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
	"golang.org/x/text/unicode/norm"
)

// similarity is 1 - CER.
func similarity(ref, hyp string) float64 { return 1 - mangapage.CER(ref, hyp) }

// fragmentSimilarity is how well frag matches some part of ref: 1 minus the edit distance
// from frag to the closest substring of ref, over frag's length. It is what tells that one
// column of a balloon, read as a block of its own, belongs to that balloon.
func fragmentSimilarity(ref, frag []rune) float64 {
	if len(frag) == 0 {
		return 0
	}
	return 1 - float64(mangapage.SubstringDistance(ref, frag))/float64(len(frag))
}

func rectOf(r engine.Rect) image.Rectangle { return image.Rect(r.X, r.Y, r.X+r.W, r.Y+r.H) }

func area(r image.Rectangle) float64 { return float64(r.Dx()) * float64(r.Dy()) }

// iou is the intersection over union of two boxes.
func iou(a, b image.Rectangle) float64 {
	in := area(a.Intersect(b))
	if in == 0 {
		return 0
	}
	return in / (area(a) + area(b) - in)
}

// scaleRect maps r by sx, sy.
func scaleRect(r image.Rectangle, sx, sy float64) image.Rectangle {
	return image.Rect(int(math.Floor(float64(r.Min.X)*sx)), int(math.Floor(float64(r.Min.Y)*sy)),
		int(math.Ceil(float64(r.Max.X)*sx)), int(math.Ceil(float64(r.Max.Y)*sy)))
}

// blockBoxes returns the transcript's block boxes in the source page's pixels: a transcript of
// a page rendered at another resolution is scaled back.
func blockBoxes(tr *engine.Transcript, page image.Rectangle) []image.Rectangle {
	if tr == nil {
		return nil
	}
	sx, sy := 1.0, 1.0
	if tr.Width > 0 && tr.Height > 0 {
		sx, sy = float64(page.Dx())/float64(tr.Width), float64(page.Dy())/float64(tr.Height)
	}
	out := make([]image.Rectangle, len(tr.Blocks))
	for i, b := range tr.Blocks {
		out[i] = scaleRect(rectOf(b.Box), sx, sy)
	}
	return out
}

// matchBlock is the index of the box overlapping box most (by intersection over union), or
// -1 when none overlaps it.
func matchBlock(box image.Rectangle, blocks []image.Rectangle) int {
	best, bestIoU := -1, 0.0
	for i, b := range blocks {
		if v := iou(box, b); v > bestIoU {
			best, bestIoU = i, v
		}
	}
	return best
}

// readThreshold is the similarity from which a bubble counts as read.
const readThreshold = 0.5

// reading is how one annotated bubble was found and read.
type reading struct {
	Block  int     `json:"block"` // index in the transcript, -1 when missed
	Source string  `json:"source,omitempty"`
	CER    float64 `json:"cer"`
	Read   bool    `json:"read"`
	// Spaced is set on a reading without a wrong character of lettering that has word spaces
	// (Korean): the CER ignores whitespace, so a reading that lost every space scores 0.
	Spaced      bool `json:"spaced,omitempty"`
	SpacedRight bool `json:"spacedRight,omitempty"` // and its spaces are where the lettering's are
}

// scoreReading matches every bubble to its transcript block and scores the reading.
func scoreReading(bubbles []mangapage.Bubble, tr *engine.Transcript, page image.Rectangle) []reading {
	boxes := blockBoxes(tr, page)
	out := make([]reading, len(bubbles))
	for i, b := range bubbles {
		r := reading{Block: matchBlock(b.Box, boxes), CER: 1}
		if r.Block >= 0 {
			r.Source = tr.Blocks[r.Block].Source
			r.CER = mangapage.CER(b.Text, r.Source)
			r.Read = 1-r.CER >= readThreshold
			r.Spaced, r.SpacedRight = wordSpacing(b.Text, r.Source)
		}
		out[i] = r
	}
	return out
}

// wordSpacing tells whether hyp reads ref without a wrong character and ref has word spaces
// (spaced), and then whether hyp's words are ref's (right): a space lost or added is wrong.
func wordSpacing(ref, hyp string) (spaced, right bool) {
	r, h := norm.NFKC.String(ref), norm.NFKC.String(hyp)
	rw := strings.Fields(r)
	if len(rw) < 2 || string(mangapage.Normalize(r)) != string(mangapage.Normalize(h)) {
		return false, false
	}
	return true, slices.Equal(rw, strings.Fields(h))
}

// extraBlocks counts transcript blocks overlapping no annotated lettering at all (dialogue or
// sound effect): text found where there is none.
func extraBlocks(bubbles []mangapage.Bubble, tr *engine.Transcript, page image.Rectangle) int {
	n := 0
	for _, bb := range blockBoxes(tr, page) {
		hit := false
		for _, b := range bubbles {
			if bb.Overlaps(b.Box) || (!b.Balloon.Empty() && bb.Overlaps(b.Balloon)) {
				hit = true
				break
			}
		}
		if !hit {
			n++
		}
	}
	return n
}

// words are the lower-case letter runs of s of two letters or more.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len([]rune(w)) >= 2 {
			out = append(out, w)
		}
	}
	return out
}

// wordsFound counts the words of want found in got, each occurrence at most as often as got
// has it.
func wordsFound(want, got []string) int {
	have := map[string]int{}
	for _, w := range got {
		have[w]++
	}
	n := 0
	for _, w := range want {
		if have[w] > 0 {
			have[w]--
			n++
		}
	}
	return n
}

// Emptying thresholds. A source-ink pixel counts as cleared when the output there is closer to
// the paper around the glyphs (see localPaper) than clearFraction of the way from that paper
// to the ink: with black ink on white, lighter than about 60 % grey. A bubble is emptied when emptiedFraction of its ink pixels are
// cleared: a few stray pixels of antialiasing or a neighbouring outline do not fail it, a
// leftover character (a few percent of a balloon's ink) does.
const (
	clearFraction   = 0.4
	emptiedFraction = 0.9
	// minContrast is the least paper-to-ink difference (in grey levels) at which a bubble can
	// be measured at all.
	minContrast = 40
)

// emptying is how much of a bubble's source ink is gone from the output.
type emptying struct {
	InkPixels int     `json:"inkPixels"`
	Cleared   float64 `json:"cleared"` // fraction of ink pixels that look like paper now
	Emptied   bool    `json:"emptied"`
	// Measured is false when the bubble has no ink or no contrast to measure.
	Measured bool `json:"measured"`
	// Residue is the share of the pixels on and around the former glyphs still visibly darker
	// than the paper: the ghosts a reader sees (see residue).
	Residue         float64 `json:"residue"`
	ResidueMeasured bool    `json:"residueMeasured"`
}

func lum(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 257
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// inkMask is the bubble's source ink: its annotated mask when there is one, else the pixels
// of its box in src that stand out from the surrounding paper by at least half of the
// strongest contrast there (for real pages annotated with boxes only).
func inkMask(src image.Image, b mangapage.Bubble) *image.Alpha {
	if b.Ink != nil {
		return b.Ink
	}
	box := b.Box.Intersect(src.Bounds())
	ring := surroundings(b, src.Bounds())
	var bg []float64
	for y := ring.Min.Y; y < ring.Max.Y; y++ {
		for x := ring.Min.X; x < ring.Max.X; x++ {
			bg = append(bg, lum(src.At(x, y)))
		}
	}
	paper := median(bg)
	var diffs []float64
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			diffs = append(diffs, math.Abs(lum(src.At(x, y))-paper))
		}
	}
	m := image.NewAlpha(box)
	if len(diffs) == 0 {
		return m
	}
	d := slices.Clone(diffs)
	slices.Sort(d)
	strong := d[len(d)*98/100]
	if strong < minContrast {
		return m
	}
	for i, v := range diffs {
		if v >= strong/2 {
			m.Pix[i/box.Dx()*m.Stride+i%box.Dx()] = 255
		}
	}
	return m
}

// surroundings is where a bubble's paper colour is sampled: its balloon, or its box grown by
// a quarter of its smaller side.
func surroundings(b mangapage.Bubble, page image.Rectangle) image.Rectangle {
	if !b.Balloon.Empty() {
		return b.Balloon.Intersect(page)
	}
	g := max(4, min(b.Box.Dx(), b.Box.Dy())/4)
	return b.Box.Inset(-g).Intersect(page)
}

// paperRing is how far from a glyph the paper around it is sampled, in pixels.
const paperRing = 3

// localPaper samples the paper right around a bubble's lettering: the pixels no part of a
// glyph within paperRing pixels of one. Inside a balloon that is the balloon's white; for text
// on the art, the white outline letterers give it, or the art itself when it has none.
func localPaper(src image.Image, b mangapage.Bubble, mask *image.Alpha) []float64 {
	r := mask.Rect.Inset(-paperRing).Intersect(src.Bounds())
	w, h := r.Dx(), r.Dy()
	if w <= 0 || h <= 0 {
		return nil
	}
	// Square dilation of the glyphs (coverage ≥ 50 %) by paperRing, separably.
	ink := make([]bool, w*h)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if (image.Point{x, y}).In(mask.Rect) && mask.Pix[mask.PixOffset(x, y)] >= 128 {
				ink[(y-r.Min.Y)*w+x-r.Min.X] = true
			}
		}
	}
	near := make([]bool, w*h)
	for y := range h {
		for x := range w {
			for dx := -paperRing; dx <= paperRing; dx++ {
				if xx := x + dx; xx >= 0 && xx < w && ink[y*w+xx] {
					near[y*w+x] = true
					break
				}
			}
		}
	}
	var out []float64
	for y := range h {
		for x := range w {
			px, py := r.Min.X+x, r.Min.Y+y
			if (image.Point{px, py}).In(mask.Rect) && mask.Pix[mask.PixOffset(px, py)] > 0 {
				continue
			}
			for dy := -paperRing; dy <= paperRing; dy++ {
				if yy := y + dy; yy >= 0 && yy < h && near[yy*w+x] {
					out = append(out, lum(src.At(px, py)))
					break
				}
			}
		}
	}
	return out
}

// scoreEmptying measures on out (the cleaned page, or the translated page when the engine
// gives no cleaned one) how much of bubble b's ink on src is gone. out may be another size
// than src. With a plate (src without its lettering), what is gone is measured against what
// was under the ink (see againstPlate); without one, against the paper around it.
func scoreEmptying(src, plate, out image.Image, b mangapage.Bubble) emptying {
	mask := inkMask(src, b)
	at := lumOn(src.Bounds(), out)
	if plate != nil {
		return againstPlate(src, plate, mask, at)
	}
	sb := src.Bounds()
	var inkVals, paperVals []float64
	var inkPts []image.Point
	r := mask.Rect.Intersect(sb)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if mask.Pix[mask.PixOffset(x, y)] >= 128 {
				inkPts = append(inkPts, image.Pt(x, y))
				inkVals = append(inkVals, lum(src.At(x, y)))
			}
		}
	}
	paperVals = localPaper(src, b, mask)
	e := emptying{InkPixels: len(inkPts)}
	if len(inkPts) == 0 || len(paperVals) == 0 {
		return e
	}
	paper, ink := median(paperVals), median(inkVals)
	contrast := math.Abs(ink - paper)
	if contrast < minContrast {
		return e
	}
	e.Measured = true
	cleared := 0
	for _, p := range inkPts {
		if math.Abs(at(p.X, p.Y)-paper) < clearFraction*contrast {
			cleared++
		}
	}
	e.Cleared = float64(cleared) / float64(len(inkPts))
	e.Emptied = e.Cleared >= emptiedFraction
	return e
}

// lumOn reads out's luminance at a pixel of a page of bounds sb (out may be another size).
func lumOn(sb image.Rectangle, out image.Image) func(x, y int) float64 {
	ob := out.Bounds()
	sx := float64(ob.Dx()) / float64(sb.Dx())
	sy := float64(ob.Dy()) / float64(sb.Dy())
	return func(x, y int) float64 {
		ox := ob.Min.X + min(ob.Dx()-1, int((float64(x-sb.Min.X)+0.5)*sx))
		oy := ob.Min.Y + min(ob.Dy()-1, int((float64(y-sb.Min.Y)+0.5)*sy))
		return lum(out.At(ox, oy))
	}
}

// plateReach is the radius of the window of the plate a pixel is compared with: a tone's dots
// and a hatching's lines rebuilt a pixel or two off their place are what was there all the
// same, and only on flat paper or flat black is a ghost a few levels off.
const plateReach = 2

// plateRange is the range of the plate's luminance within plateReach of (x, y).
func plateRange(plate image.Image, x, y int) (lo, hi float64) {
	lo, hi = 255, 0
	r := image.Rect(x-plateReach, y-plateReach, x+plateReach+1, y+plateReach+1).Intersect(plate.Bounds())
	for yy := r.Min.Y; yy < r.Max.Y; yy++ {
		for xx := r.Min.X; xx < r.Max.X; xx++ {
			v := lum(plate.At(xx, yy))
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo, hi
}

// outside is how far v lies outside [lo, hi].
func outside(v, lo, hi float64) float64 { return max(lo-v, v-hi, 0) }

// againstPlate measures the emptying against the plate: an ink pixel is cleared when the output
// lies within clearFraction of its contrast of what the plate shows around it (its contrast
// being how far the ink lies from that). Ink that hardly differs from what is under it (black
// on black art) cannot tell and is not counted; a bubble with too little of the rest is not
// measured.
func againstPlate(src, plate image.Image, mask *image.Alpha, at func(x, y int) float64) emptying {
	var e emptying
	measured, cleared := 0, 0
	r := mask.Rect.Intersect(src.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if mask.Pix[mask.PixOffset(x, y)] < 128 {
				continue
			}
			e.InkPixels++
			lo, hi := plateRange(plate, x, y)
			contrast := outside(lum(src.At(x, y)), lo, hi)
			if contrast < minContrast {
				continue
			}
			measured++
			if outside(at(x, y), lo, hi) < clearFraction*contrast {
				cleared++
			}
		}
	}
	if measured == 0 || measured*5 < e.InkPixels {
		return e
	}
	e.Measured = true
	e.Cleared = float64(cleared) / float64(measured)
	e.Emptied = e.Cleared >= emptiedFraction
	return e
}
