package find

import (
	"image"
	"slices"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// A balloon whose outline is open (spikes that end in the gutter, a balloon drawn across its
// panel's frame, a side left out) shares its paper with the gutter or the panel's white, so the
// paper area around its lettering is page-wide and the lettering would pass for free text. Its
// body is still there: a wide area of paper around the lettering joined to the rest through
// necks (a spike's base, the gutter's width) narrower than the body. Opening the paper area
// (shrinking it, then growing back what survives) by a little more than half a character
// cuts those necks and leaves the body.

// localBalloon is the body of an open balloon around the lettering in text (of characters char
// wide) on the paper area filled, whose own pixels paper tells (filled also covers what the paper
// encloses: whole panels, when the paper is the gutter), or nil when the paper around the
// lettering runs on (a panel's white, the gutter) instead of closing within a few times the
// lettering's size.
func localBalloon(filled *region, paper func(x, y int) bool, text image.Rectangle, char int) *region {
	// Necks are cut from the narrowest up: a gutter is narrow, the spikes of a shout wide.
	for _, r := range []int{char * 3 / 5, char, char * 8 / 5} {
		if b := openedBalloon(filled, paper, text, char, max(2, r)); b != nil {
			return b
		}
	}
	return nil
}

// openedBalloon is localBalloon for one radius of the opening.
func openedBalloon(filled *region, paper func(x, y int) bool, text image.Rectangle, char, r int) *region {
	reach := 2 * max(text.Dx(), text.Dy(), 2*char)
	win := text.Inset(-reach).Intersect(filled.Box)
	// The mask is taken r beyond the window so that the shrinking is exact inside it.
	outer := win.Inset(-r)
	ow, oh := outer.Dx(), outer.Dy()
	// The paper and the lettering on it, which the opening must not take for a hole.
	m := make([]bool, ow*oh)
	for y := range oh {
		for x := range ow {
			p := image.Pt(outer.Min.X+x, outer.Min.Y+y)
			m[y*ow+x] = filled.Has(p.X, p.Y) && (p.In(text) || paper(p.X, p.Y))
		}
	}
	cutAtFrames(m, ow, oh, text.Sub(outer.Min), char)
	// The body's part joined to the lettering must close inside the window.
	inWin := image.Rectangle{Min: win.Min.Sub(outer.Min), Max: win.Max.Sub(outer.Min)}
	grown := raster.Body(m, ow, oh, r, text.Sub(outer.Min), inWin, func(x, y int) bool {
		return image.Pt(x, y).Add(outer.Min).In(filled.Box.Inset(1))
	})
	if grown == nil {
		return nil
	}
	var box image.Rectangle
	n := 0
	for i, on := range grown {
		if on {
			x, y := i%ow+outer.Min.X, i/ow+outer.Min.Y
			box = box.Union(image.Rect(x, y, x+1, y+1))
			n++
		}
	}
	// Lettering fills a fair part of its balloon: a body many times the lettering is a
	// panel's white that happened to close.
	ta := text.Dx() * text.Dy()
	// and is set in its middle: lettering off to one side of a closed area is art beside the
	// lettering, or art that passed for it.
	off := func(a0, a1, b0, b1 int) bool { return 100*abs((a0+a1)-(b0+b1)) > 2*12*(b1-b0) }
	if n < ta*3/2 || n > 40*ta || !text.In(box.Inset(-char/2)) ||
		off(text.Min.X, text.Max.X, box.Min.X, box.Max.X) || off(text.Min.Y, text.Max.Y, box.Min.Y, box.Max.Y) {
		return nil
	}
	out := &region{Box: box, Mask: make([]bool, box.Dx()*box.Dy()), Area: n}
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			out.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = grown[(y-outer.Min.Y)*ow+x-outer.Min.X]
		}
	}
	return out
}

func abs(v int) int { return max(v, -v) }

// cutAtFrames cuts the paper m (w wide, h high) where a balloon about text ends at a panel's
// frame: a balloon drawn across the frame, or left open at one side, runs on into the gutter or
// the panel's white across its whole width, a neck no opening cuts. Walking out from the
// lettering, the paper's run across, through the lettering's middle, widens at once where the
// balloon meets the frame, from the balloon's width to the gutter's; beyond that row (or
// column) is not the balloon. A balloon that closes is left as it is, and so is one whose
// paper is broken into runs shorter than the lettering across (a tone's dots in it), where
// every step onto clean paper would widen.
func cutAtFrames(m []bool, w, h int, text image.Rectangle, char int) {
	c := text.Min.Add(text.Max).Div(2)
	for _, d := range []image.Point{{0, 1}, {0, -1}, {1, 0}, {-1, 0}} {
		start := c
		for start.In(text) {
			start = start.Add(d)
		}
		across := text.Dx()*abs(d.Y) + text.Dy()*abs(d.X)
		if p, ok := raster.Widens(m, w, start, d, char, across); ok {
			for i := range m {
				if (i%w-p.X)*d.X+(i/w-p.Y)*d.Y >= 0 {
					m[i] = false
				}
			}
		}
	}
}

// mergeColumns joins, on a paper area that runs on, the blocks that are columns (or rows) of one
// free speech set wider apart than the clustering joins: of one size (within a fifth) and
// direction, side by side within half a character more than their own width, and level with
// each other; or one line carried on after the gap a letterer leaves between two phrases.
func mergeColumns(g *image.Gray, out []*page.Block, made [][]blob, pa *page.Analysis, minChar, maxChar int) []*page.Block {
	// span is r's extent across the lines and along them.
	span := func(r image.Rectangle, vertical bool) (across, along [2]int) {
		if vertical {
			return [2]int{r.Min.X, r.Max.X}, [2]int{r.Min.Y, r.Max.Y}
		}
		return [2]int{r.Min.Y, r.Max.Y}, [2]int{r.Min.X, r.Max.X}
	}
	same := func(a, b *page.Block) bool {
		c := max(a.Char, b.Char)
		if a.Vertical != b.Vertical || min(a.Char, b.Char)*5 < c*4 {
			return false
		}
		ax, ay := span(a.Box, a.Vertical)
		bx, by := span(b.Box, b.Vertical)
		across := max(ax[0], bx[0]) - min(ax[1], bx[1]) // the gap between the lines
		along := min(ay[1], by[1]) - max(ay[0], by[0])  // how far they run side by side
		if across <= c*3/2 && along*2 >= min(ay[1]-ay[0], by[1]-by[0]) {
			return true
		}
		// A phrase's gap breaks a line of free text wider than the clustering joins (さよなら、
		// then また a character below): the piece after it is one line on the axis of a line of
		// the other, a character's length away at most.
		piece, rest := a, b
		if len(piece.Lines) != 1 {
			piece, rest = b, a
		}
		if len(piece.Lines) != 1 {
			return false
		}
		px, py := span(piece.Lines[0], piece.Vertical)
		for _, l := range rest.Lines {
			lx, ly := span(l, rest.Vertical)
			over := min(px[1], lx[1]) - max(px[0], lx[0])
			gap := max(py[0], ly[0]) - min(py[1], ly[1])
			if over*2 >= min(px[1]-px[0], lx[1]-lx[0]) && gap >= 0 && gap <= c {
				return true
			}
		}
		return false
	}
	for merged := true; merged; {
		merged = false
		for i := 0; i < len(out) && !merged; i++ {
			for j := i + 1; j < len(out) && !merged; j++ {
				if !same(out[i], out[j]) {
					continue
				}
				grp := append(slices.Clone(made[i]), made[j]...)
				if tb := makeBlock(g, grp, pa, minChar, maxChar); tb != nil {
					out[i], made[i] = tb, grp
					out, made = slices.Delete(out, j, j+1), slices.Delete(made, j, j+1)
					merged = true
				}
			}
		}
	}
	return out
}

// speeches sorts the blocks idx of one balloon's paper into speeches, as lists of indices into
// blocks. A balloon holds one speech, but two balloons drawn over each other (each without an
// outline, or touching at one end, or joined by the white of a face between them) share their
// paper: blocks the paper joins in a straight line from centre to centre, two characters apart
// at most, are one speech; a line that leaves the paper (crossing the art between two
// balloons), or a wider gap, parts them.
func speeches(filled *region, blocks []*page.Block, idx []int) [][]int {
	span := func(i int) (int, int) {
		return blocks[i].Box.Min.X - 2*blocks[i].Char, blocks[i].Box.Max.X + 2*blocks[i].Char
	}
	return raster.Cluster(idx, span, func(i, j int) bool {
		a, b := blocks[i].Box.Min.Add(blocks[i].Box.Max).Div(2), blocks[j].Box.Min.Add(blocks[j].Box.Max).Div(2)
		if raster.Gap(blocks[i].Box, blocks[j].Box) > 2*max(blocks[i].Char, blocks[j].Char) {
			return false
		}
		steps := max(abs(b.X-a.X), abs(b.Y-a.Y), 1)
		for k := 0; k <= steps; k++ {
			if !filled.Has(a.X+(b.X-a.X)*k/steps, a.Y+(b.Y-a.Y)*k/steps) {
				return false
			}
		}
		return true
	})
}

// shareBalloon gives each block of blocks, the speeches of balloons that share the paper area
// filled, the part of it nearer its lettering than any other's, as its balloon: its erasing and
// lettering stay out of the other's.
func shareBalloon(filled *region, blocks []*page.Block) {
	near := make([]image.Rectangle, len(blocks))
	for k, tb := range blocks {
		near[k] = tb.Box
	}
	for k, m := range filled.Share(near) {
		blocks[k].Bubble = m
	}
}

// dropContained removes specks found inside another block's bubble (a stray mark of punctuation
// that clustered alone), erasing a bubble cleans all of its interior anyway, and those whose ink
// the lettering of a bubble holds (a mark another finder took for lettering of its own, which the
// bubble's block took back).
func dropContained(blocks []*page.Block) []*page.Block {
	var out []*page.Block
next:
	for _, b := range blocks {
		for _, o := range blocks {
			if o == b || o.Bubble == nil || area(b.Box) >= area(o.Box) || len(b.Lines) != 1 {
				continue
			}
			if b.Box.In(o.Box) && b.InkHeldBy(o) || b.Box.In(o.Bubble.Box) && o.Bubble.Has((b.Box.Min.X+b.Box.Max.X)/2, (b.Box.Min.Y+b.Box.Max.Y)/2) {
				continue next
			}
		}
		out = append(out, b)
	}
	return out
}

// cutOutOfTone is the balloon of the lettering in blocks when it is cut out of a light tone
// without an outline: the blur leaves the tone light, so the paper area runs on over it, and
// the lettering would be set out on the tone. Where a twentieth of the area around the lettering
// is dark at the pixel (a tone's dots), the body of clean paper around the lettering is the
// balloon; nil when the area is plain, or no such body closes around it and the paper a
// character around the lettering.
func cutOutOfTone(g *image.Gray, pa *page.Analysis, filled *region, paper func(x, y int) bool, blocks []*page.Block) *region {
	var text image.Rectangle
	for _, tb := range blocks {
		text = text.Union(tb.Box)
	}
	dark, n := 0, 0
	for y := filled.Box.Min.Y; y < filled.Box.Max.Y; y += 2 {
		for x := filled.Box.Min.X; x < filled.Box.Max.X; x += 2 {
			if filled.Has(x, y) && !image.Pt(x, y).In(text) {
				n++
				if g.Pix[y*g.Stride+x] < pa.InkSoft {
					dark++
				}
			}
		}
	}
	if dark*20 < n {
		return nil
	}
	body := localBalloon(filled, func(x, y int) bool { return paper(x, y) && g.Pix[y*g.Stride+x] >= pa.InkSoft }, text, blocks[0].Char)
	// The balloon holds the paper a character around its lettering, where its marks lie (a ！
	// set apart): a body that leaves some out is the narrow end of a balloon, not its edge.
	// (The corners of that margin may round off with the balloon: the middle of each side is
	// looked at.)
	ring, c := text.Inset(-blocks[0].Char), text.Min.Add(text.Max).Div(2)
	for _, p := range []image.Point{{c.X, ring.Min.Y}, {c.X, ring.Max.Y - 1}, {ring.Min.X, c.Y}, {ring.Max.X - 1, c.Y}} {
		if body != nil && filled.Has(p.X, p.Y) && !body.Has(p.X, p.Y) {
			return nil
		}
	}
	return body
}
