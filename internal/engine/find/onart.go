package find

import (
	"image"
	"math"
	"slices"

	"github.com/vtsproject/vts/internal/engine/balloon"
	"github.com/vtsproject/vts/internal/engine/marks"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// Lettering set straight on the art: free text over screentone or hatching, with or without a
// white halo. No paper area encloses it, so the bubble finder never sees it. It is found the way
// text detectors find text regardless of its background: the page's dark connected pieces are
// sorted into texture and candidate strokes, and strokes of one size that line up in columns
// over texture become a block. Texture is what repeats: a tone's dots each have several twins of
// their size close by, where a character's strokes rarely do, and hatching is long thin lines or
// sparse nets far larger than a character. A character merged with the dots or lines it touches
// is still about a character's size, so it stays a candidate.

// artBlocks finds the lettering on tone or hatching of g that the blocks already found do not
// cover.
func artBlocks(g *image.Gray, pa *page.Analysis, found []*page.Block) []*page.Block {
	b := g.Bounds()
	long := max(b.Dx(), b.Dy())
	minChar, maxChar := max(7, long/260), long/7
	ll := raster.Label(raster.Threshold(g, pa.InkSoft), true)
	nb := raster.NewNeighbours(ll.Comps, 2*minChar)
	texture := raster.Textures(ll.Comps, nb, minChar, maxChar)

	// Texture density on a coarse grid tells what lies around a candidate.
	cell := minChar
	gw, gh := (ll.W+cell-1)/cell, (ll.H+cell-1)/cell
	dens := make([]int32, gw*gh)
	candidate := make([]bool, len(ll.Comps))
	for i, c := range ll.Comps {
		thick, size := min(c.Box.Dx(), c.Box.Dy()), max(c.Box.Dx(), c.Box.Dy())
		candidate[i] = texture[i] == raster.NotTexture && thick <= maxChar*5/4 && size >= minChar/2 && !(thick < minChar && thick*6 < size)
		// A halo clips the tone's dots beside the glyphs into fragments with no twins; a mark
		// no larger than the dots around it is dropped (with the odd dakuten or 、, which
		// reading misses less than it would a column padded with fragments).
		if candidate[i] && size <= 2*minChar {
			candidate[i] = !raster.AmongDots(c.Box, ll.Comps, texture, nb)
		}
	}
	pix := make([][]int, len(ll.Comps))
	mom := make([]raster.Moments, len(ll.Comps))
	for i, id := range ll.ID {
		if id == 0 {
			continue
		}
		k := id - 1
		mom[k].Add(i%ll.W-ll.Comps[k].Box.Min.X, i/ll.W-ll.Comps[k].Box.Min.Y)
		if texture[k] != raster.NotTexture {
			dens[(i/ll.W/cell)*gw+i%ll.W/cell]++
		} else if candidate[k] {
			pix[k] = append(pix[k], i)
		}
	}
	// Hatching, speed lines and frames that a halo cuts short beside the glyphs leave stubs with
	// no length to tell them by; past the halo the line they were cut from carries on along
	// their axis.
	angles, elong := make([]float64, len(ll.Comps)), make([]float64, len(ll.Comps))
	for k := range ll.Comps {
		angles[k], elong[k] = mom[k].Orientation()
		// A stub is a line's width across; a column of characters run together by the dots
		// between them (起きて on a coarse tone) is as long but a character wide.
		if _, w := mom[k].Axes(); w*2 >= float64(3*minChar) {
			elong[k] = 0
		}
	}
	// dark tells a pixel of a line, or of another stub of the same direction, from k's.
	dark := func(x, y, k int) bool {
		if x < 0 || y < 0 || x >= ll.W || y >= ll.H {
			return false
		}
		id := int(ll.ID[y*ll.W+x]) - 1
		if id < 0 || id == k {
			return false
		}
		// A line of the art (hatching, a frame) carries the stub on in the stub's direction: the
		// hatching a ！ stands over crosses its axis, and does not continue it. A net of lines has
		// no direction.
		d := math.Abs(angles[id] - angles[k])
		along := min(d, math.Pi-d) < 0.2
		return texture[id] == raster.LineTexture && (elong[id] < 3 || along) || elong[id] >= 3 && along
	}
	for k, c := range ll.Comps {
		if !candidate[k] || elong[k] < 3 {
			continue
		}
		mx, my := mom[k].Centroid()
		cx, cy := float64(c.Box.Min.X)+mx, float64(c.Box.Min.Y)+my
		dx, dy := math.Cos(angles[k]), math.Sin(angles[k])
		px, py := int(math.Round(-dy)), int(math.Round(dx))
		reach := float64(max(c.Box.Dx(), c.Box.Dy()) + 3*minChar)
		for _, sign := range []float64{1, -1} {
			// A pixel either side of the axis counts (a slanted line's steps), and the line may
			// break where other lettering cut it too.
			run := 0
			for t := 0.0; t < reach && run < minChar; t++ {
				x, y := int(math.Round(cx+sign*t*dx)), int(math.Round(cy+sign*t*dy))
				if dark(x, y, k) || dark(x+px, y+py, k) || dark(x-px, y-py, k) {
					run++
				}
			}
			candidate[k] = candidate[k] && run < minChar
		}
	}
	// textured is the share of the cells of r outside skip that are texture (a tenth of their
	// pixels or more).
	textured := func(r image.Rectangle, skip image.Rectangle) float64 {
		r = r.Intersect(b)
		n, on := 0, 0
		for cy := r.Min.Y / cell; cy <= (r.Max.Y-1)/cell; cy++ {
			for cx := r.Min.X / cell; cx <= (r.Max.X-1)/cell; cx++ {
				if !(image.Pt(cx*cell+cell/2, cy*cell+cell/2)).In(skip) {
					n++
					on += int(min(1, dens[cy*gw+cx]*10/int32(cell*cell)))
				}
			}
		}
		return float64(on) / float64(max(n, 1))
	}
	var blobs []blob
	for k, c := range ll.Comps {
		if !candidate[k] || len(pix[k]) < 3 {
			continue
		}
		bb := blob{Box: c.Box, Thick: min(c.Box.Dx(), c.Box.Dy()), pix: pix[k]}
		for _, px := range pix[k] {
			if g.Pix[px] < pa.InkMax {
				bb.Ink++
			}
		}
		// A mass of ink with a core over twice the page's least character wide, and half its own
		// thickness, is a bar or patch of the art (a black window among a tone's dots, its edges
		// clipped by a halo short of the density of a solid box): a character's strokes are far
		// thinner, even a small dense kanji's blurred into a blot (準, 備 on cross-hatching).
		if bb.Ink >= 3 && float64(bb.Ink)/float64(area(c.Box)) <= 0.88 && !raster.HasCore(bb.pix, g.Stride, c.Box, max(bb.Thick/4, minChar)) && !balloon.Covered(found, c.Box, b) {
			blobs = append(blobs, bb)
		}
	}
	var out []*page.Block
	var groups [][]blob
	for _, grp := range clusters(blobs, minChar) {
		// The stubs pruned may have been all that bridged two groups: lettering and a sound
		// effect, or the art, across the page.
		groups = append(groups, clusters(pruneGaps(pruneThick(grp), g.Stride), minChar)...)
	}
	for _, grp := range groups {
		// Lettering on a tone without a halo joins the dots its strokes touch, which fill the
		// gaps between its columns, swell its size and are read with it: they go.
		box := boxOf(grp)
		centres, area := [][2]float64(nil), 0
		nb.Each(box, 3*minChar, func(j int) {
			if texture[j] == raster.DotTexture {
				x, y := mom[j].Centroid()
				centres, area = append(centres, [2]float64{float64(ll.Comps[j].Box.Min.X) + x, float64(ll.Comps[j].Box.Min.Y) + y}), area+ll.Comps[j].Area
			}
		})
		tb := makeBlock(g, freeOfTone(g, pa, grp, centres, area), pa, minChar, maxChar, 2)
		if tb == nil || len(tb.Lines) == 0 {
			continue
		}
		// Text on art is set like dialogue: columns of a few characters at least, over texture
		// all round. Rows are left alone: on art, a row of like shapes is far more often a
		// pattern than a line of vertical-script lettering.
		if !tb.Vertical || tb.Chars() < 3 || textured(tb.Box.Inset(-tb.Char), tb.Box) < 0.35 {
			continue
		}
		// A character that is one thin stroke (一, the strokes of 二) passed for the art's: it is
		// given back to the column it stands across or ends (marks.Bars).
		var thin []blob
		for j, c := range ll.Comps {
			if thick := min(c.Box.Dx(), c.Box.Dy()); texture[j] == raster.NotTexture && thick < minChar && thick*4 < max(c.Box.Dx(), c.Box.Dy()) && c.Box.Overlaps(tb.Box.Inset(-tb.Char)) {
				thin = append(thin, blob{Box: c.Box, pix: ll.Pix(int32(j + 1))})
			}
		}
		marks.Bars(g, tb, piecesOf(thin))
		out = append(out, tb)
	}
	return out
}

// freeOfTone is grp without the pixels of the tone's dots stuck to its strokes, the tone's lattice
// fitted to the free dots around it (their centres, and their area all told).
func freeOfTone(g *image.Gray, pa *page.Analysis, grp []blob, centres [][2]float64, area int) []blob {
	box, b := boxOf(grp), g.Bounds()
	if tone, ok := raster.FitTone(centres, [2]float64{float64(box.Min.X+box.Max.X) / 2, float64(box.Min.Y+box.Max.Y) / 2}); ok && len(centres) >= 12 {
		return unstuck(grp, tone.Stuck(math.Sqrt(float64(area)/float64(len(centres))/math.Pi), func(x, y int) bool { return image.Pt(x, y).In(b) && g.Pix[y*g.Stride+x] < pa.InkSoft }), g.Stride)
	}
	return grp
}

// dotCentres are the centres of the dots within reach of grp's box, and their area all told.
func dotCentres(dots, grp []blob, reach, stride int) (centres [][2]float64, area int) {
	box := boxOf(grp).Inset(-reach)
	for _, d := range dots {
		if d.Box.Overlaps(box) {
			var m raster.Moments
			for _, px := range d.pix {
				m.Add(px%stride, px/stride)
			}
			x, y := m.Centroid()
			centres, area = append(centres, [2]float64{x, y}), area+len(d.pix)
		}
	}
	return centres, area
}

// unstuck is grp without the pixels stuck tells, each blob's box and ink counted again.
func unstuck(grp []blob, stuck func(x, y int) bool, stride int) []blob {
	var out []blob
	for _, bl := range grp {
		kept := blob{Thick: bl.Thick}
		for _, px := range bl.pix {
			if x, y := px%stride, px/stride; !stuck(x, y) {
				kept.pix, kept.Box = append(kept.pix, px), kept.Box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
		if len(kept.pix) > 0 {
			kept.Ink = bl.Ink * len(kept.pix) / len(bl.pix)
			out = append(out, kept)
		}
	}
	return out
}

// withoutDots is grp without the pieces that are a tone's dots, whole or clipped, and the dots.
func withoutDots(grp []blob, minChar, maxChar int) (out, dots []blob) {
	comps := make([]raster.Component, len(grp))
	for i, b := range grp {
		comps[i] = raster.Component{Box: b.Box, Area: len(b.pix)}
	}
	nb := raster.NewNeighbours(comps, 2*minChar)
	texture := raster.Textures(comps, nb, minChar, maxChar)
	for i, b := range grp {
		// A piece larger than the page's least character is lettering whatever its twins: small
		// lettering, each character as large as the next, has as many twins as a tone's dots,
		// which are smaller.
		if max(b.Box.Dx(), b.Box.Dy()) > minChar || texture[i] != raster.DotTexture && !raster.AmongDots(b.Box, comps, texture, nb) {
			out = append(out, b)
		} else {
			dots = append(dots, b)
		}
	}
	return out, dots
}

// pruneGaps drops from a cluster the small marks that lie between its columns, and the pieces
// that reach across from one column to the next: what the art leaves beside the glyphs (stubs
// of lines, dots a halo clipped) would join the columns into one, where a dakuten or a 、 sits
// within its column.
func pruneGaps(grp []blob, stride int) []blob {
	if len(grp) < 3 {
		return grp
	}
	box := boxOf(grp)
	xs := make([]int, box.Dx())
	for _, b := range grp {
		for _, px := range b.pix {
			xs[px%stride-box.Min.X]++
		}
	}
	peak := slices.Max(xs)
	// A thin piece that reaches across a gap from one column into the next is a line of the art
	// drawn through the lettering: no character spans two columns. The gap is where the other
	// pieces hold under a twelfth of the fullest bin (the piece alone fills it), and the columns
	// either side are twice as wide as it (the hollow down a column of い is not).
	crosses := func(b blob) bool {
		if b.Box.Dx() < 2*b.Box.Dy() {
			return false
		}
		other := slices.Clone(xs)
		for _, px := range b.pix {
			other[px%stride-box.Min.X]--
		}
		col := func(x int) bool { return other[x]*12 >= peak }
		lo, hi := b.Box.Min.X-box.Min.X, b.Box.Max.X-box.Min.X
		for x := lo; x < hi; {
			if col(x) {
				x++
				continue
			}
			g0 := x
			for x < hi && !col(x) {
				x++
			}
			left, right := 0, 0
			for k := g0 - 1; k >= 0 && col(k); k-- {
				left++
			}
			for k := x; k < len(other) && col(k); k++ {
				right++
			}
			if g0 > lo && x < hi && min(left, right) >= 2*(x-g0) {
				return true
			}
		}
		return false
	}
	var out []blob
	for _, b := range grp {
		in := 0
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if xs[x-box.Min.X]*6 >= peak {
				in++
			}
		}
		if in*2 >= b.Box.Dx() && !crosses(b) {
			out = append(out, b)
		}
	}
	return out
}
