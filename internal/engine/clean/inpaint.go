// Package clean is the cleaning stage: it removes a page's source lettering, painting bubbles
// with their paper and rebuilding art from its surroundings.
package clean

import (
	"image"
	"image/color"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// GlyphStats describes the lettering of one word: its background and ink colours.
type GlyphStats struct {
	Background color.RGBA
	Ink        color.RGBA
	// InkPixels counts pixels taken as glyph pixels.
	InkPixels int
}

// Glyphs adds to m the glyph pixels of the word in box: pixels inside the (padded) box whose
// colour stands apart from the background, estimated as the median of a ring around the box.
// Only glyphs are marked, not the box, so that a textured or coloured background is rebuilt from
// itself rather than covered.
func Glyphs(img *image.RGBA, m *page.Mask, box image.Rectangle) GlyphStats {
	inner, bg := page.Background(img, box)

	// The threshold follows the lettering's contrast, so faint anti-aliasing is caught on
	// high-contrast text while a gentle gradient behind low-contrast text is not.
	maxDist := 0
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			maxDist = max(maxDist, page.ColorDist(img.RGBAAt(x, y), bg))
		}
	}
	thresh := max(28, maxDist*30/100)
	var inkSum [3]int
	stats := GlyphStats{Background: bg}
	local := make([]bool, inner.Dx()*inner.Dy())
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			c := img.RGBAAt(x, y)
			d := page.ColorDist(c, bg)
			if d < thresh {
				continue
			}
			local[(y-inner.Min.Y)*inner.Dx()+(x-inner.Min.X)] = true
			if d >= maxDist*70/100 {
				inkSum[0] += int(c.R)
				inkSum[1] += int(c.G)
				inkSum[2] += int(c.B)
				stats.InkPixels++
			}
		}
	}
	if stats.InkPixels > 0 {
		n := stats.InkPixels
		stats.Ink = color.RGBA{uint8(inkSum[0] / n), uint8(inkSum[1] / n), uint8(inkSum[2] / n), 255}
	}
	// Dilation swallows the anti-aliased fringe and JPEG ringing around each stroke.
	r := max(1, box.Dy()/14)
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			if !local[(y-inner.Min.Y)*inner.Dx()+(x-inner.Min.X)] {
				continue
			}
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					px, py := x+dx, y+dy
					if (image.Point{px, py}).In(inner) {
						m.Mask[(py-m.Box.Min.Y)*m.Box.Dx()+px-m.Box.Min.X] = true
					}
				}
			}
		}
	}
	return stats
}

// Fill repaints every masked pixel from its surroundings, peeling the mask from its boundary
// inwards: each round, pixels touching known pixels take the mean of those neighbours. Gradients
// and flat colours continue smoothly under where the text was.
func Fill(img *image.RGBA, m *page.Mask) {
	b := m.Box
	w, h := m.Box.Dx(), m.Box.Dy()
	known := make([]bool, len(m.Mask))
	var todo []int
	for i, v := range m.Mask {
		known[i] = !v
		if v {
			todo = append(todo, i)
		}
	}
	type update struct {
		i int
		c color.RGBA
	}
	var frontier []update
	for len(todo) > 0 {
		frontier = frontier[:0]
		rest := todo[:0]
		for _, i := range todo {
			x, y := i%w, i/w
			var sum [4]int
			n := 0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := x+dx, y+dy
					if (dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= w || ny >= h || !known[ny*w+nx] {
						continue
					}
					c := img.RGBAAt(b.Min.X+nx, b.Min.Y+ny)
					sum[0] += int(c.R)
					sum[1] += int(c.G)
					sum[2] += int(c.B)
					sum[3] += int(c.A)
					n++
				}
			}
			if n == 0 {
				rest = append(rest, i)
				continue
			}
			frontier = append(frontier, update{i, color.RGBA{uint8(sum[0] / n), uint8(sum[1] / n), uint8(sum[2] / n), uint8(sum[3] / n)}})
		}
		if len(frontier) == 0 {
			return // a mask covering the whole page has nothing to grow from
		}
		for _, u := range frontier {
			img.SetRGBA(b.Min.X+u.i%w, b.Min.Y+u.i/w, u.c)
			known[u.i] = true
		}
		todo = rest
	}
}

// Target is one block's lettering to remove.
type Target struct {
	Box image.Rectangle
	// Char is the lettering's character size, which sets how far strokes are grown over their
	// anti-aliased fringe.
	Char int
	// Ink marks the lettering's pixels, furigana included.
	Ink *page.Mask
	// Bubble is the paper area around the lettering, nil for text on art; Paper is its colour.
	Bubble *page.Mask
	Paper  color.RGBA
}

// Block removes a block's lettering from img (gray is the page's luminance; paperLevel, its
// paper's, is only a fallback for a bubble whose paper is unknown).
//
// Inside a bubble everything that is not paper is lettering: the whole text region and every
// visibly dark pixel near it, grown over the anti-aliased fringe and the JPEG halo of each
// stroke, take the bubble's paper colour. Filling only the glyphs' cores leaves their grey
// outlines, the ghosts a reader sees. The outline, and the art that crosses the bubble, lie
// outside the bubble's area, and a band along its edge is kept, so they are never touched.
//
// On art the strokes, grown the same way, are rebuilt from their surroundings.
//
// A bubble that is the halo of lettering on the art (see isHalo) is erased as on the art, halo
// and all.
func Block(img *image.RGBA, gray *image.Gray, paperLevel uint8, t Target) {
	var haloArea *page.Mask // the lettering's halo, as the finder saw it
	if t.Bubble != nil {
		if !isHalo(t) {
			inBubble(img, gray, paperLevel, t)
			return
		}
		if parts := haloParts(t); parts != nil {
			for _, p := range parts {
				Block(img, gray, paperLevel, p)
			}
			return
		}
		haloArea, t.Bubble = t.Bubble, nil
	}
	pb := img.Bounds()
	m := page.NewMask(pb)
	grow := haloReach(t.Char)
	for y := t.Box.Min.Y; y < t.Box.Max.Y; y++ {
		for x := t.Box.Min.X; x < t.Box.Max.X; x++ {
			if t.Ink.Has(x, y) {
				m.Mask[(y-pb.Min.Y)*pb.Dx()+(x-pb.Min.X)] = true
			}
		}
	}
	region := t.Box.Inset(-grow).Intersect(pb)
	dilateIn(m, region, grow)
	// Lettering on plain paper outside any bubble the finder closed (a balloon open on one side
	// or cut by the frame) is erased as in a bubble: the area around it is all the paper there
	// is, and marks the ink mask missed (a stray dot, a kana apart) would stay as ghosts.
	if paper, ok := plainPaper(img, gray, t.Box.Inset(-max(4, t.Char*3/4)-grow).Intersect(pb), t.Box.Inset(-max(4, t.Char*3/4)).Intersect(pb)); ok {
		area := page.FullMask(t.Box.Inset(-max(4, t.Char*3/4)).Intersect(pb))
		// Rebuilt from the paper around rather than painted one colour, so that a scan's
		// blotches and tint carry on through.
		m := letteringMask(gray, int(page.Luma(paper)), Target{Box: t.Box, Char: t.Char, Bubble: area}, area)
		Fill(img, m)
		// The grain comes from the light around, as far again as the region is large.
		around := page.FullMask(m.Box.Inset(-max(m.Box.Dx(), m.Box.Dy()) - 2).Intersect(pb))
		withGrain(img, gray, m, around, int(page.Luma(paper)), t.Char)
		return
	}
	// On a screentone the dots are carried on through the erased strokes, and through the white
	// halo a letterer sets around lettering on art, which would otherwise stay behind as a blank
	// silhouette of the erased text (tone carried over tone changes nothing). The tone's period
	// is measured beyond the halo, whose flat white would hide it. It is taken from beyond the
	// lettering's box: a column the finder missed between two it found is no tone, and copied
	// a period away it would be lettered over every erased stroke.
	halo := page.NewMask(pb)
	copy(halo.Mask, m.Mask)
	wide := t.Box.Inset(-grow - t.Char/3).Intersect(pb)
	dilateIn(halo, wide, t.Char/3)
	if haloArea != nil {
		wide = wide.Union(haloArea.Box.Inset(-grow)).Intersect(pb)
		withHalo(halo, haloArea, wide, grow)
	}
	for _, try := range []struct {
		mask  *page.Mask
		reach int // how far around the box the tone's period is looked for
	}{{halo, t.Char * 3 / 2}, {m, t.Char}} {
		around := t.Box.Inset(-max(3*grow, try.reach)).Intersect(pb)
		if l, ok := raster.MeasureLattice(gray, try.mask.Has, around); ok && copyTone(img, try.mask, wide, l, around, outside(t.Box)) {
			return
		}
	}
	// Off a tone the halo is rebuilt too where it is lighter than the art around it and that
	// art is mostly flat (a black sky): left, it would stay a white silhouette of the erased
	// text, and the strokes rebuilt from it would be smeared with its white.
	Fill(img, withLightHalo(gray, m, halo, wide.Inset(-t.Char/2).Intersect(pb)))
}

// withLightHalo is m, over around, with the pixels of halo visibly lighter than the median of
// what around holds outside halo, grown by a pixel over their soft edge, if two fifths of that
// lie within visiblyDark of its median; otherwise m.
func withLightHalo(gray *image.Gray, m, halo *page.Mask, around image.Rectangle) *page.Mask {
	var hist [256]int
	n := 0
	for y := around.Min.Y; y < around.Max.Y; y++ {
		for x := around.Min.X; x < around.Max.X; x++ {
			if !halo.Has(x, y) {
				hist[gray.GrayAt(x, y).Y]++
				n++
			}
		}
	}
	med, near := level(&hist, n)
	if n == 0 || near*5 < n*2 {
		return m // textured art: rebuilt through the halo, it would be a grey smear
	}
	lit, out := page.NewMask(around), page.NewMask(around)
	for i := range out.Mask {
		x, y := around.Min.X+i%around.Dx(), around.Min.Y+i/around.Dx()
		out.Mask[i] = m.Has(x, y)
		lit.Mask[i] = !out.Mask[i] && halo.Has(x, y) && int(gray.GrayAt(x, y).Y) > med+visiblyDark
	}
	dilateIn(lit, around, 1)
	for i, on := range lit.Mask {
		out.Mask[i] = out.Mask[i] || on
	}
	return out
}

// outside is whether a pixel lies outside r.
func outside(r image.Rectangle) func(x, y int) bool {
	return func(x, y int) bool { return !image.Pt(x, y).In(r) }
}

// haloReach is how far past a stroke its anti-aliased edge and JPEG ringing stay visible: a
// pixel or two of edge, more on large lettering, and about two pixels of ringing.
func haloReach(char int) int { return max(1, char/12) + 2 }

// edgeBand is the band along a bubble's edge that erasing leaves alone: the outline's own
// anti-aliased fringe lies in it.
const edgeBand = 2

// visiblyDark is how much darker than the bubble's paper a pixel must be to be taken for
// lettering, in grey levels: below what a reader sees (about 24) so that faint halo goes too,
// above the grain of scanned paper.
const visiblyDark = 18

func inBubble(img *image.RGBA, gray *image.Gray, paperLevel uint8, t Target) {
	paperY := int(page.Luma(t.Paper))
	if t.Paper.A == 0 {
		paperY = int(paperLevel)
	}
	inner := t.Bubble.Erode(edgeBand)
	m := letteringMask(gray, paperY, t, inner)
	// A balloon filled with a tone keeps it: painted one colour, the erased lettering would
	// leave a flat patch in the dots. Each erased pixel takes the tone a whole number of its
	// periods away, inside the balloon.
	around := m.Box.Inset(-t.Char).Intersect(t.Bubble.Box)
	outside := page.NewMask(around)
	for i := range outside.Mask {
		x, y := around.Min.X+i%around.Dx(), around.Min.Y+i/around.Dx()
		outside.Mask[i] = m.Has(x, y) || !inner.Has(x, y)
	}
	if l, ok := raster.MeasureLattice(gray, outside.Has, around); ok && copyTone(img, m, m.Box, l, around, inner.Has) {
		return
	}
	for y := m.Box.Min.Y; y < m.Box.Max.Y; y++ {
		for x := m.Box.Min.X; x < m.Box.Max.X; x++ {
			if m.Has(x, y) && inner.Has(x, y) {
				img.SetRGBA(x, y, t.Paper)
			}
		}
	}
	withGrain(img, gray, m, inner, paperY, t.Char)
}

// letteringMask is what erasing covers in a paper area (inner, the bubble kept clear of its
// edge): the text region, and every visibly dark pixel near it grown over its fringe.
func letteringMask(gray *image.Gray, paperY int, t Target, inner *page.Mask) *page.Mask {
	darkBelow := max(100, paperY-visiblyDark)
	grow := haloReach(t.Char)
	// Stray marks (a dot of punctuation set apart, a dakuten the finder left out) lie near the
	// lettering; beyond that, what is dark in the bubble is art or tone, kept.
	reach := max(4, t.Char*3/4)
	region := t.Box.Inset(-reach - grow).Intersect(t.Bubble.Box).Intersect(gray.Bounds())
	m := page.NewMask(region)
	w := region.Dx()
	for y := region.Min.Y; y < region.Max.Y; y++ {
		for x := region.Min.X; x < region.Max.X; x++ {
			if int(gray.GrayAt(x, y).Y) < darkBelow && inner.Has(x, y) && (image.Point{x, y}).In(t.Box.Inset(-reach)) {
				m.Mask[(y-region.Min.Y)*w+x-region.Min.X] = true
			}
		}
	}
	dilateIn(m, region, grow)
	// The text region itself is paper: between and around its strokes nothing is left to see.
	core := t.Box.Inset(-max(2, t.Char/6)).Intersect(region)
	for y := core.Min.Y; y < core.Max.Y; y++ {
		for x := core.Min.X; x < core.Max.X; x++ {
			m.Mask[(y-region.Min.Y)*w+x-region.Min.X] = true
		}
	}
	for i, on := range m.Mask {
		if on && !inner.Has(region.Min.X+i%w, region.Min.Y+i/w) {
			m.Mask[i] = false
		}
	}
	return m
}

// plainPaper reports whether the ring between outer and inner is plain paper: light, and nearly
// all of it within a few grey levels of its median, which it returns.
func plainPaper(img *image.RGBA, gray *image.Gray, outer, inner image.Rectangle) (color.RGBA, bool) {
	var hist [256]int
	n := 0
	for y := outer.Min.Y; y < outer.Max.Y; y++ {
		for x := outer.Min.X; x < outer.Max.X; x++ {
			if (image.Point{x, y}).In(inner) {
				continue
			}
			hist[gray.GrayAt(x, y).Y]++
			n++
		}
	}
	if n < 50 {
		return color.RGBA{}, false
	}
	med, near := level(&hist, n)
	if med < 170 || near*100 < n*97 {
		return color.RGBA{}, false
	}
	return page.RingMedian(img, outer, inner), true
}

// level is the median of a histogram of n grey levels, and how many lie within visiblyDark of it.
func level(hist *[256]int, n int) (med, near int) {
	med = raster.HistMedian(hist[:], n)
	for v := max(0, med-visiblyDark); v <= min(255, med+visiblyDark); v++ {
		near += hist[v]
	}
	return med, near
}

// dilateIn grows m's pixels inside region by r (a square, as two 1-D passes).
func dilateIn(m *page.Mask, region image.Rectangle, r int) {
	region = region.Intersect(m.Box)
	if r <= 0 || region.Empty() {
		return
	}
	at := func(x, y int) int { return (y-m.Box.Min.Y)*m.Box.Dx() + x - m.Box.Min.X }
	w, h := region.Dx(), region.Dy()
	tmp := make([]bool, w*h)
	for y := range h {
		last := -1 << 30 // the last set pixel at or left of x, then run right to left
		for x := range w {
			if m.Mask[at(region.Min.X+x, region.Min.Y+y)] {
				last = x
			}
			tmp[y*w+x] = x-last <= r
		}
		next := 1 << 30
		for x := w - 1; x >= 0; x-- {
			if m.Mask[at(region.Min.X+x, region.Min.Y+y)] {
				next = x
			}
			tmp[y*w+x] = tmp[y*w+x] || next-x <= r
		}
	}
	for x := range w {
		last := -1 << 30
		col := make([]bool, h)
		for y := range h {
			if tmp[y*w+x] {
				last = y
			}
			col[y] = y-last <= r
		}
		next := 1 << 30
		for y := h - 1; y >= 0; y-- {
			if tmp[y*w+x] {
				next = y
			}
			if col[y] || next-y <= r {
				m.Mask[at(region.Min.X+x, region.Min.Y+y)] = true
			}
		}
	}
}
