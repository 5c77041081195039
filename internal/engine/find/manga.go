// Package find is the stage that finds the lettering on a manga, manhwa or manhua page: it sees
// bubbles and columns in the pixels. (On a Latin page, Tesseract finds the words, and package
// lines groups them into blocks.)
package find

import (
	"image"
	"image/color"
	"slices"

	"github.com/vtsproject/vts/internal/engine/balloon"
	"github.com/vtsproject/vts/internal/engine/lines"
	"github.com/vtsproject/vts/internal/engine/marks"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// Finding lettering on manga, manhwa and manhua pages. Whole-page OCR layout analysis finds almost
// none of it: the lettering sits in bubbles among screentone, hatching and speed lines, and runs in
// vertical columns. So the page is analysed as a letterer would look at it: paper-coloured areas
// (bubbles, captions, the panel's white) are found on a blurred copy, where tone averages to grey
// and only real paper stays light; the dark shapes each such area encloses are candidate text;
// those of a consistent stroke size that line up in columns or rows become a text block, and the
// thin columns beside the main ones are furigana, erased with the text but never read.

// Manga finds the lettering of a page in reading order; rtl orders blocks right to left
// (Japanese), otherwise left to right.
func Manga(img *image.RGBA, rtl bool) ([]*page.Block, *page.Analysis) {
	g := page.Gray(img)
	b := g.Bounds()
	paper := raster.PaperLevel(g)
	inkMax := max(min(raster.Otsu(g), paper-50), 60)
	pa := &page.Analysis{Gray: g, Paper: paper, InkMax: inkMax, InkSoft: uint8((int(inkMax) + int(paper)) / 2)}
	var blocks []*page.Block
	if b.Dy() <= b.Dx()*5/2 {
		inverted := make(chan func([]*page.Block) []*page.Block, 1)
		go func() { inverted <- invertedBlocks(g, pa) }()
		blur := paperBlur(g) // both looks at the paper read it
		toned := make(chan func(blocks, loose []*page.Block) ([]*page.Block, []*page.Block), 1)
		go func() { toned <- tonedBlocks(g, blur, pa) }()
		var loose []*page.Block
		blocks, loose = detectBlocks(g, blur, pa, onPaper)
		blocks, loose = (<-toned)(blocks, loose)
		// Lettering never surrounds other lettering: what the art finder found around a block
		// is the art about it (a burst's spikes and the black its ！ reached). A block of one line
		// may be lettering on hatching or a tone taken whole with the lines that reach it (its
		// halo for a balloon), or a part of it: what the art's look finds over it in smaller
		// characters, or around it in more lines where it has no balloon but a halo, replaces it.
		lone := func(b *page.Block) bool { return len(b.Lines) == 1 }
		beats := func(a, b *page.Block) bool {
			o := raster.OverlapRatio(a.Box, b.Box)
			return o > 0.3 && a.Char*4 < b.Char*3 || o >= 0.9 && len(a.Lines) > 1 && area(a.Box) > area(b.Box) && (b.Bubble == nil || b.Bubble.Box.In(b.Box.Inset(-b.Char)))
		}
		art := slices.DeleteFunc(artBlocks(g, pa, slices.DeleteFunc(slices.Clone(blocks), lone)), func(a *page.Block) bool {
			return slices.ContainsFunc(blocks, func(b *page.Block) bool {
				return !(lone(b) && beats(a, b)) && (b.Box.In(a.Box) || lone(b) && raster.OverlapRatio(b.Box, a.Box) > 0.3)
			})
		})
		blocks = slices.DeleteFunc(blocks, func(b *page.Block) bool {
			return lone(b) && slices.ContainsFunc(art, func(a *page.Block) bool { return beats(a, b) })
		})
		blocks = append(blocks, art...)
		blocks = append(blocks, (<-inverted)(blocks)...)
		// Of the two finders of lettering among texture, the one that knows texture all round
		// wins where both found something, but for a part of the other's lettering, as large.
		for _, tb := range loose {
			if i := slices.IndexFunc(blocks, func(a *page.Block) bool {
				return slices.Contains(art, a) && a.Box.In(tb.Box) && a.Char*5 > tb.Char*4 && tb.Char*5 > a.Char*4
			}); i >= 0 {
				blocks[i] = tb
			} else if !balloon.Covered(art, tb.Box, b) {
				blocks = append(blocks, tb)
			}
		}
	} else {
		// A webtoon strip, many screens tall: its lettering is sized for its width, so it is
		// analysed in overlapping tiles two widths tall, each with the scale of a page, and a
		// bubble cut by one tile's edge is whole in the next.
		tile, step := 2*b.Dx(), b.Dx()*8/5
		for y0 := 0; ; y0 += step {
			r := image.Rect(0, y0, b.Dx(), min(y0+tile, b.Dy()))
			sub := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
			for y := 0; y < r.Dy(); y++ {
				copy(sub.Pix[y*sub.Stride:][:r.Dx()], g.Pix[g.PixOffset(0, y0+y):][:r.Dx()])
			}
			found, loose := detectBlocks(sub, paperBlur(sub), pa, onPaper)
			for _, tb := range append(found, loose...) {
				tb.Move(image.Pt(0, y0))
				blocks = addUnlessSeen(blocks, tb)
			}
			if r.Max.Y == b.Dy() {
				break
			}
		}
	}
	blocks = joinHalos(page.DropContained(blocks), rtl)
	page.Order(blocks, rtl)
	return blocks, pa
}

// detectBlocks finds the lettering in g (blur is its paperBlur), whose size sets the scale of
// everything looked for, and apart from it what it found among the dots of a light tone
// (blocksInRegion), looking at the page as look says (lightMin). On a page's negative
// (invertedBlocks) no balloon's body is looked for.
func detectBlocks(g, blur *image.Gray, pa *page.Analysis, look pass) (blocks, loose []*page.Block) {
	negative := look == onNegative
	b := g.Bounds()
	long := max(b.Dx(), b.Dy())
	light := &raster.Bitmap{W: b.Dx(), H: b.Dy(), On: make([]bool, b.Dx()*b.Dy())}
	least := lightMin(pa, look)
	for i, v := range blur.Pix {
		light.On[i] = v >= least && (look != onTone || g.Pix[i] >= pa.InkMax && int(v)+12 < int(pa.Paper))
	}
	ll := raster.Label(light, false)
	var lo *raster.Labels // the light opened, for the bodies below; the negative has none
	opened := make(chan struct{})
	if negative {
		close(opened)
	} else {
		go func() {
			defer close(opened)
			lo = raster.Opened(light, 2)
		}()
	}

	minChar, maxChar := max(7, long/260), long/7
	minRegion := 4 * minChar * minChar
	// The areas are read side by side (each reads the page and writes only its own answer),
	// and their blocks gathered in the areas' order.
	type answer struct{ found, apart []*page.Block }
	answers := make([]answer, len(ll.Comps))
	raster.Parallel(len(ll.Comps), func(i int) {
		c := ll.Comps[i]
		n := int32(i + 1)
		if c.Area < minRegion || c.Box.Dx() < 2*minChar || c.Box.Dy() < 2*minChar ||
			look == onTone && (!balloon.Sized(c.Box, b) || c.Area*2 < area(c.Box) || !balloon.Toned(g, ll, n, pa)) {
			return // too small, or (looking for toned balloons) no balloon of tone
		}
		filled := filledRegion(ll, n)
		if filled.Area-c.Area < minChar*minChar/2 {
			return // nothing inside it
		}
		answers[i].found, answers[i].apart = blocksInRegion(g, ll, n, filled, pa, minChar, maxChar, !negative)
	})
	for _, a := range answers {
		blocks, loose = append(blocks, a.found...), append(loose, a.apart...)
	}
	<-opened
	if negative {
		return blocks, loose
	}
	// A balloon cut out of a dense tone shares its paper with the thin gaps between the tone's
	// dots, which the blur does not close: its area is then the panel's, where its lettering is
	// free text chained to the dots. Opened by 2 px, the light parts into bodies; lettering is
	// looked for again in a balloon's body (a third of the page at most, compact) that was part
	// of a larger area. What the larger area gave inside the body's balloon, or over it and
	// larger (art across the panel), gives way to it; what smaller runs out of it (a column
	// crossing a panel's lines) was found whole and stays.
	in := make([]int32, len(lo.Comps)) // the area of ll each body lies in
	for i, id := range lo.ID {
		if id != 0 && in[id-1] == 0 {
			in[id-1] = ll.ID[i]
		}
	}
	var bodies []*page.Block
	for i, c := range lo.Comps {
		if in[i] == 0 || balloon.Sized(ll.Comps[in[i]-1].Box, b) || !balloon.Sized(c.Box, b) || c.Area*2 < area(c.Box) || min(c.Box.Dx(), c.Box.Dy()) < 4*minChar ||
			look == onTone && !balloon.Toned(g, lo, int32(i+1), pa) {
			continue
		}
		found, _ := blocksInRegion(g, lo, int32(i+1), filledRegion(lo, int32(i+1)), pa, minChar, maxChar, true)
		bodies = append(bodies, found...)
	}
	inBody := func(tb *page.Block) bool {
		return slices.ContainsFunc(bodies, func(o *page.Block) bool {
			return o.Bubble != nil && (tb.Box.In(o.Bubble.Box) || tb.Box.Overlaps(o.Bubble.Box) && area(tb.Box) > area(o.Bubble.Box))
		})
	}
	blocks, loose = slices.DeleteFunc(blocks, inBody), slices.DeleteFunc(loose, inBody)
	for _, o := range bodies {
		if overlaps := func(tb *page.Block) bool { return tb.Box.Overlaps(o.Box) }; !slices.ContainsFunc(blocks, overlaps) && !slices.ContainsFunc(loose, overlaps) {
			blocks = append(blocks, o)
		}
	}
	return blocks, loose
}

// blob is a hole of a paper region: a dark shape it encloses.
type blob struct {
	Box   image.Rectangle
	Ink   int
	Thick int
	pix   []int // page pixel indices of the blob's ink
}

// boxOf is the box of the blobs of grp all told.
func boxOf(grp []blob) (box image.Rectangle) {
	for _, b := range grp {
		box = box.Union(b.Box)
	}
	return box
}

// blocksInRegion finds the lettering among the dark holes of the paper area n (filled with its
// holes): the blocks its clusters make, and apart, the loose columns found among a light tone's
// dots. open looks for the body of the balloon around lettering whose paper runs on
// (balloon.Open); on a page's negative there is none to look for.
func blocksInRegion(g *image.Gray, ll *raster.Labels, n int32, filled *region, pa *page.Analysis, minChar, maxChar int, open bool) (out, loose []*page.Block) {
	box := filled.Box
	w := box.Dx()
	hole := balloon.Holes(g, ll, n, filled, pa, minChar, open) // not on a page's negative: its boxes are flat
	hl := raster.Label(hole, true)
	var blobs, solid, specks, bars []blob
	// The ！ that ends a column, a bar over a dot, is too thin and too heavy beside the column's
	// characters to join them (and in bold lettering so solid it is left out with the pupils),
	// the dots of a … and the ring of a 。 that end a line too small (and the dot of a ！ or ？
	// whose bar or hook joined it), and a character that is one thin stroke (the ー of キャー！,
	// 一) passes for a speed line: once the lines are found, they are given back to their line.
	defer func() {
		pieces, thin := piecesOf(slices.Concat(solid, blobs, specks, bars)), piecesOf(bars)
		for _, tb := range slices.Concat(out, loose) {
			marks.Bars(g, tb, thin)
			marks.AtEnd(g, pa, tb, pieces)
			// A body found for the lettering without them that does not hold them is the
			// narrow end of an open balloon: none at all is nearer the truth.
			if tb.Bubble != nil && !tb.Box.In(tb.Bubble.Box.Inset(-tb.Char/2)) {
				tb.Bubble = nil
			}
		}
	}()
	for k, c := range hl.Comps {
		thick, length := min(c.Box.Dx(), c.Box.Dy()), max(c.Box.Dx(), c.Box.Dy())
		if thick > maxChar*5/4 || length < 2 {
			continue
		}
		// Speed lines, hatching strokes and panel edges: long and thin, never a column of
		// characters; one no longer than a character may be one (ー, 一), kept apart.
		bar := thick < minChar && thick*6 < length
		if bar && length*2 > maxChar*3 {
			continue
		}
		bb := blob{Box: c.Box.Add(box.Min), Thick: thick}
		id := int32(k + 1)
		var m raster.Moments
		for y := c.Box.Min.Y; y < c.Box.Max.Y; y++ {
			for x := c.Box.Min.X; x < c.Box.Max.X; x++ {
				if hl.ID[y*w+x] != id {
					continue
				}
				m.Add(x, y)
				px := (box.Min.Y+y)*g.Stride + box.Min.X + x
				if g.Pix[px] < pa.InkMax {
					bb.Ink++
				}
				// The blob's ink: its soft edge where the blurred copy is dark too; of faint
				// strokes (holes), only the cores, whose soft edges would bridge the narrow gap
				// between two columns of small lettering.
				if g.Pix[px] < pa.InkMax || g.Pix[px] < pa.InkSoft && ll.ID[(box.Min.Y+y)*ll.W+box.Min.X+x] != n {
					bb.pix = append(bb.pix, px)
				}
			}
		}
		if bar {
			bars = append(bars, bb)
			continue
		}
		if length < minChar/2 || bb.Ink < 3 {
			if len(bb.pix) >= 2 {
				specks = append(specks, bb)
			}
			continue
		}
		// The same lines drawn at a slant have a square box; their axes tell them from a
		// character's stroke, which is never several characters long.
		if length, width := m.Axes(); width < float64(minChar) && length >= max(6*width, 5*float64(minChar)) {
			continue
		}
		density := float64(bb.Ink) / float64(c.Area)
		if density > 0.88 { // bold lettering at small sizes is nearly solid; pupils and fills are solid
			solid = append(solid, bb)
			continue
		}
		blobs = append(blobs, bb)
	}
	if len(blobs) == 0 {
		return nil, nil
	}
	// Neighbouring blobs of the same lettering cluster together; a big paper area (a panel's
	// white) may hold several clusters, each its own block.
	groups := clusters(blobs, minChar)
	var made [][]blob
	for _, grp := range groups {
		kept := pruneThick(grp)
		// A balloon filled with a light tone: its dots chain the lettering into a mass whose
		// lines are rows of dots. Where they are most of the group, in a paper area of a
		// balloon's size, and far smaller than the rest (small lettering's twins are as large as
		// its strokes), the lettering is looked for without them first. (Open to the art
		// around, a shout among the art is better found without the art's shapes, below.)
		if len(grp) >= 12 && balloon.Sized(box, g.Bounds()) {
			rest, dots := withoutDots(grp, minChar, maxChar)
			size, thick := func(b blob) int { return max(b.Box.Dx(), b.Box.Dy()) }, func(b blob) int { return b.Thick }
			if len(dots)*2 > len(grp) && 2*raster.Median(dots, size) <= raster.Median(rest, thick) {
				if found := amongTexture(g, rest, dots, pa, minChar, maxChar); len(found) > 0 {
					loose = append(loose, found...)
					continue
				}
				// Too few characters for a column among texture (キャー！ in a coarse tone): in
				// a balloon of its own, the lettering is what is left without the dots, and
				// without those stuck to its strokes, if that is one column (a toned face's
				// eyes and lines are not).
				centres, area := dotCentres(dots, rest, 3*minChar, g.Stride)
				free := freeOfTone(g, pa, rest, centres, area)
				if tb := makeBlock(g, pruneThick(free), pa, minChar, maxChar, 2); tb != nil && tb.Vertical && len(tb.Lines) == 1 {
					grp, kept = free, pruneThick(free)
				}
			}
		}
		tb := makeBlock(g, kept, pa, minChar, maxChar, 2)
		if tb == nil && len(groups) == 1 && balloon.Sized(box, g.Bounds()) {
			tb = loneWithDots(g, kept, pa, minChar, maxChar, slices.Concat(solid, blobs, specks))
		}
		// A burst balloon's outline, open to the page, and the spikes it throws at the lettering
		// chain a shout to lines far thicker than its characters, as does a panel's solid black
		// its ？ reaches: without those shapes of art the shout stands alone. Where they made a
		// block, they set its measure: thicker than any column left without them, and wider
		// than the shout's. (Thin kana are sparse shapes too, but no thicker than their column.)
		// Only a column of full-sized characters is taken for a shout: what else stands alone
		// there is art. When it is all that is left of the group (the spikes were all the art
		// in it) on paper larger than a balloon, it may as well be lettering among hatching,
		// which the finder of text on art, knowing the texture all round, judges better where
		// it finds it too: it is found apart.
		sub, art := artless(grp, minChar)
		if len(sub) == 0 {
			continue // line art alone: a balloon's outline, whose lettering is its own paper's
		}
		if len(sub) < len(grp) {
			var shouts []*page.Block
			var ks [][]blob
			measure := 0 // the widest column left without the art
			cs := clusters(sub, minChar)
			for _, s := range cs {
				k := pruneThick(s)
				if st := makeBlock(g, k, pa, minChar, maxChar, 2); st != nil && st.Vertical {
					shouts, ks, measure = append(shouts, st), append(ks, k), max(measure, st.Char)
				}
			}
			// A 、 keeps a whole cell, blank but for it: a column parted there is one again.
			n := len(shouts)
			shouts, ks = mergeColumns(g, shouts, ks, pa, minChar, maxChar)
			alone := len(shouts) == 1 && n == len(cs) // all that is left of the group
			if tb != nil && art*4 <= measure*5 {
				shouts = nil
			}
			found := 0
			for i, st := range shouts {
				if st.Char < 2*minChar || tb != nil && st.Char*10 > tb.Char*7 {
					continue
				}
				found++
				if alone && !balloon.Sized(box, g.Bounds()) {
					loose = append(loose, st)
				} else {
					out, made = append(out, st), append(made, ks[i])
				}
			}
			if found > 0 {
				continue
			}
		}
		// Rows of lettering chained to the art (Chinese or Korean in a balloon open to it) make
		// no block with it, or a row as tall as the art: measured alone, each row is a block.
		if rows, blobs := rowsOf(g, grp, pa, minChar, maxChar); len(rows) > 0 && (tb == nil || !tb.Vertical && tb.Char*2 > rows[0].Char*3) {
			out, made = append(out, rows...), append(made, blobs...)
			continue
		}
		if tb != nil {
			out = append(out, tb)
			made = append(made, kept)
			continue
		}
		if len(grp) >= 12 {
			rest, dots := withoutDots(grp, minChar, maxChar)
			loose = append(loose, amongTexture(g, rest, dots, pa, minChar, maxChar)...)
		}
	}
	paper := balloon.PaperWithSpecks(ll, n, hl, box, minChar)
	if open {
		openAll(loose, filled, paper)
	}
	if len(out) == 0 {
		return nil, loose
	}
	// One speech keeps one size and direction: a cluster of another in a balloon (a piece of
	// its own outline, art that crosses it) is not part of it, nor of its measure.
	main := 0 // the speech is the cluster of the most characters
	for i, tb := range out {
		if tb.Chars() > out[main].Chars() {
			main = i
		}
	}
	var all image.Rectangle
	var lettering []blob
	var speech []int
	for i, tb := range out {
		if tb.Vertical == out[main].Vertical && tb.Char*10 >= out[main].Char*7 && tb.Char*10 <= out[main].Char*14 {
			all = all.Union(tb.Box)
			lettering = append(lettering, made[i]...)
			speech = append(speech, i)
		}
	}
	// A paper area that is mostly lettering is a bubble; a much larger one is a panel's white
	// or the gutter, where the text is free. A bubble holds one speech: columns set wider apart
	// than the clustering joins are still one block, read and translated together.
	// A short shout in a big balloon fills little of it; a balloon that is small on the page
	// is still a balloon.
	// Where it holds several speeches (balloons drawn over each other, or two shouts open to
	// one panel's white), the lettering is measured speech by speech: the paper between them,
	// art and all, is none of theirs.
	voices := balloon.Speeches(filled, out, speech)
	lettered := area(all)
	if len(voices) > 1 {
		lettered = 0
		for _, grp := range voices {
			var box image.Rectangle
			for _, i := range grp {
				box = box.Union(out[i].Box)
			}
			lettered += area(box)
		}
	}
	pb := g.Bounds()
	small := filled.Box.Dx() <= pb.Dx()/4 && filled.Box.Dy() <= pb.Dy()/4 && filled.Area <= 30*lettered
	if (filled.Area > 8*lettered && !small) || filled.Box.Dx() >= pb.Dx()*9/10 {
		out, _ = mergeColumns(g, out, made, pa, minChar, maxChar)
		if open {
			openAll(out, filled, paper)
		}
		return out, loose
	}
	if len(voices) > 1 {
		// Balloons drawn over each other: a speech each, and each its share of the paper.
		var split []*page.Block
		for _, grp := range voices {
			var blobs []blob
			for _, i := range grp {
				blobs = append(blobs, made[i]...)
			}
			tb := out[grp[0]]
			if len(grp) > 1 {
				if tb = makeBlock(g, blobs, pa, minChar, maxChar, 2); tb == nil {
					continue
				}
			}
			split = append(split, tb)
		}
		balloon.Share(filled, split)
		return split, loose
	}
	if len(out) > 1 {
		if tb := makeBlock(g, lettering, pa, minChar, maxChar, 2); tb != nil {
			out = []*page.Block{tb}
		}
	}
	bubble := filled
	if b := balloon.OutOfTone(g, pa, filled, paper(image.Rectangle{}, 0), out); b != nil {
		bubble = b
	}
	for _, tb := range out {
		tb.Bubble = bubble
	}
	return out, loose
}

// artless is grp without its shapes of art, and the thickest of them: line art, thick and
// sparse (its ink fills less than a sixth of its box, a character's more), and a lone shape
// more than twice as thick as all the others together, which only art is beside a column.
func artless(grp []blob, minChar int) (out []blob, art int) {
	for _, b := range grp {
		if b.Thick > 2*minChar && b.Ink*6 < area(b.Box) {
			art = max(art, b.Thick)
		} else {
			out = append(out, b)
		}
	}
	thickest, rest := 0, image.Rectangle{}
	for i, b := range out {
		if b.Thick > out[thickest].Thick {
			thickest = i
		}
	}
	for i, b := range out {
		if i != thickest {
			rest = rest.Union(b.Box)
		}
	}
	if len(out) > 3 && out[thickest].Thick > 2*min(rest.Dx(), rest.Dy()) {
		art = max(art, out[thickest].Thick)
		out = slices.Delete(out, thickest, thickest+1)
	}
	return out, art
}

// makeBlock decides whether a cluster of blobs is lettering of least characters or more (two,
// but for a shout's one), its direction, lines and furigana.
func makeBlock(g *image.Gray, grp []blob, pa *page.Analysis, minChar, maxChar, least int) *page.Block {
	var box image.Rectangle
	total, strict := 0, 0 // ink all told, and darker than the page's ink threshold
	for _, bl := range grp {
		box, total, strict = box.Union(bl.Box), total+len(bl.pix), strict+bl.Ink
	}
	if total < minChar {
		return nil
	}
	ink := page.NewMask(box)
	markPix(ink, g.Stride, grp...)
	lay := lines.Split(ink, minChar)
	if lay == nil || lay.Char < minChar || lay.Char > maxChar {
		return nil
	}
	// Without the tip of art beside it, the lettering is measured again.
	if rest := slices.DeleteFunc(slices.Clone(grp), func(bl blob) bool { return slices.ContainsFunc(lay.Art, bl.Box.In) }); len(rest) < len(grp) {
		return makeBlock(g, rest, pa, minChar, maxChar, least)
	}
	tb := &page.Block{Box: box, Vertical: lay.Vertical, Lines: lay.Lines, Ruby: lay.Ruby, Char: lay.Char, Ink: ink,
		Paper: color.RGBA{pa.Paper, pa.Paper, pa.Paper, 255}}
	if tb.Chars() < least {
		return nil
	}
	// Lettering is a row of characters: a line much shorter than one character across is a
	// speck, and a single line that is a lone square blob of solid ink is art.
	longest := 0
	for _, l := range tb.Lines {
		longest = max(longest, page.LineLength(l, tb.Vertical))
	}
	if longest < tb.Char*7/10 {
		return nil
	}
	// Faint lettering (a thin Mincho scanned soft) has little ink darker than the threshold, but
	// its soft strokes fill its box as lettering does; sparse art is dark to its edges.
	density := float64(strict) / float64(area(box))
	if density < 0.04 && float64(total) < 0.12*float64(area(box)) || density > 0.6 {
		return nil
	}
	return tb
}

// amongTexture finds the lettering in a group chained by texture (a light tone's dots, a figure's
// thick line beside a balloon open to it): without the dots (withoutDots parts the group into
// rest and dots), nothing joining a shape over 2.5 times as thick, the lettering stands alone.
func amongTexture(g *image.Gray, rest, dots []blob, pa *page.Analysis, minChar, maxChar int) []*page.Block {
	near := func(a, b blob) bool {
		return joins(a, b, minChar) && max(a.Thick, b.Thick)*2 <= 5*max(minChar, min(a.Thick, b.Thick))
	}
	var out []*page.Block
	for _, sub := range raster.Cluster(rest, joinSpan(minChar), near) {
		// The dots stuck to the strokes go too, as on art.
		centres, area := dotCentres(dots, sub, 3*minChar, g.Stride)
		// Among texture, as on art, only columns of a few characters are taken for text.
		if tb := makeBlock(g, pruneThick(freeOfTone(g, pa, sub, centres, area)), pa, minChar, maxChar, 2); tb != nil && tb.Vertical && tb.Chars() >= 3 {
			out = append(out, tb)
		}
	}
	return out
}

// addUnlessSeen adds a block found in a tile of a webtoon strip (Manga) unless an overlapping
// tile found it already; of the two, the one with more lettering (the one not cut by a tile's
// edge) stays.
func addUnlessSeen(blocks []*page.Block, tb *page.Block) []*page.Block {
	for i, o := range blocks {
		if raster.OverlapRatio(o.Box, tb.Box) > 0.5 {
			if area(tb.Box) > area(o.Box) {
				blocks[i] = tb
			}
			return blocks
		}
	}
	return append(blocks, tb)
}

// openAll gives each block the balloon its paper closes around it (balloon.Open), side by side:
// a panel's white may hold a dozen free blocks, each looked at in a window several times its
// size, and one such area would otherwise keep one core busy while the page's other areas are done.
func openAll(blocks []*page.Block, filled *page.Mask, paper func(text image.Rectangle, char int) func(x, y int) bool) {
	raster.Parallel(len(blocks), func(i int) {
		tb := blocks[i]
		tb.Bubble = balloon.Open(filled, paper(tb.Box, tb.Char), tb.Box, tb.Char)
	})
}
