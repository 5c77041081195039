// Package balloon finds the balloon around lettering whose paper runs on beyond it: a balloon
// open on one side, drawn across its panel's frame, or cut out of a light tone without an
// outline, whose paper the gutter, the panel's white or the tone's gaps share; and where
// balloons drawn over each other share one paper, it tells their speeches apart and parts the
// paper between them.
package balloon

import (
	"image"

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

// Open is the body of an open balloon around the lettering in text (of characters char
// wide) on the paper area filled, whose own pixels paper tells (filled also covers what the paper
// encloses: whole panels, when the paper is the gutter), or nil when the paper around the
// lettering runs on (a panel's white, the gutter) instead of closing within a few times the
// lettering's size.
func Open(filled *page.Mask, paper func(x, y int) bool, text image.Rectangle, char int) *page.Mask {
	reach := 2 * max(text.Dx(), text.Dy(), 2*char)
	win := text.Inset(-reach).Intersect(filled.Box)
	// Necks are cut from the narrowest up: a gutter is narrow, the spikes of a shout wide.
	radii := []int{max(2, char*3/5), max(2, char), max(2, char*8/5)}
	// The paper and the lettering on it, which the opening must not take for a hole, told once
	// for the widest window any radius looks at.
	all := win.Inset(-radii[len(radii)-1])
	lit := make([]bool, all.Dx()*all.Dy())
	for y := all.Min.Y; y < all.Max.Y; y++ {
		for x := all.Min.X; x < all.Max.X; x++ {
			p := image.Pt(x, y)
			lit[(y-all.Min.Y)*all.Dx()+x-all.Min.X] = filled.Has(x, y) && (p.In(text) || paper(x, y))
		}
	}
	for _, r := range radii {
		if b := openedBalloon(filled, lit, all, win, text, char, r); b != nil {
			return b
		}
	}
	return nil
}

// openedBalloon is Open for one radius of the opening, in the window win, of the paper lit
// (told over all).
func openedBalloon(filled *page.Mask, lit []bool, all, win, text image.Rectangle, char, r int) *page.Mask {
	// The mask is taken r beyond the window so that the shrinking is exact inside it.
	outer := win.Inset(-r)
	ow, oh := outer.Dx(), outer.Dy()
	m := make([]bool, ow*oh)
	for y := range oh {
		copy(m[y*ow:][:ow], lit[(outer.Min.Y-all.Min.Y+y)*all.Dx()+outer.Min.X-all.Min.X:])
	}
	cutAtFrames(m, ow, oh, text.Sub(outer.Min), char)
	fillMarks(m, ow, oh, text.Sub(outer.Min), char)
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
	off := func(a0, a1, b0, b1 int) bool { return 100*raster.Abs((a0+a1)-(b0+b1)) > 2*12*(b1-b0) }
	if n < ta*3/2 || n > 40*ta || !text.In(box.Inset(-char/2)) ||
		off(text.Min.X, text.Max.X, box.Min.X, box.Max.X) || off(text.Min.Y, text.Max.Y, box.Min.Y, box.Max.Y) {
		return nil
	}
	out := &page.Mask{Box: box, Mask: make([]bool, box.Dx()*box.Dy()), Area: n}
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			out.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = grown[(y-outer.Min.Y)*ow+x-outer.Min.X]
		}
	}
	return out
}

// fillMarks fills the holes of the paper m (w wide, h high) that are marks the lettering in text
// (of characters char across) set apart: from a sixth of a character to one across, within two
// characters of its box and under or over it, as a ！ or … set a character below its column is.
// A hole in a balloon is art crossing it, which erasing keeps: the ！ stayed under the English
// (おい！, hard seeds 11 and 21), and near the balloon's edge the opening carved a slit from it
// out of the balloon. Specks of grain stay holes, and so do a tone's dots beyond the lettering's
// margin (a balloon cut out of a tone is its clean paper) and pieces of art beside the columns,
// which may be all that closes the balloon there (a figure's hair where it crosses the outline,
// other faces seed 17). The frames are cut first: filled, a ！ at a balloon's open foot would let
// the walk down from the lettering pass it and cut the balloon above it.
func fillMarks(m []bool, w, h int, text image.Rectangle, char int) {
	near := text.Inset(-2 * char)
	// A mark lies in near, so only the holes there and a pixel beyond are labelled: one that
	// runs out of near is cut at that pixel and still runs out of it.
	sub := near.Inset(-1).Intersect(image.Rect(0, 0, w, h))
	sw := sub.Dx()
	holes := &raster.Bitmap{W: sw, H: sub.Dy(), On: make([]bool, sw*sub.Dy())}
	for y := range sub.Dy() {
		for x := range sw {
			holes.On[y*sw+x] = !m[(sub.Min.Y+y)*w+sub.Min.X+x]
		}
	}
	l := raster.Label(holes, false)
	mark := make([]bool, len(l.Comps))
	for i, c := range l.Comps {
		b := c.Box.Add(sub.Min)
		size := max(b.Dx(), b.Dy())
		under := b.Min.X < text.Max.X && text.Min.X < b.Max.X
		mark[i] = size*6 >= char && size <= char && under && b.In(near) && b.Min.X > 0 && b.Min.Y > 0 && b.Max.X < w && b.Max.Y < h
	}
	for i, id := range l.ID {
		if id != 0 && mark[id-1] {
			m[(sub.Min.Y+i/sw)*w+sub.Min.X+i%sw] = true
		}
	}
}

// cutAtFrames cuts the paper m (w wide, h high) where a balloon about text ends at a panel's
// frame: a balloon drawn across the frame, or left open at one side, runs on into the gutter or
// the panel's white across its whole width, a neck no opening cuts. Walking out from the
// lettering, the paper's run across, through the lettering's middle, widens at once where the
// balloon meets the frame, from the balloon's width there (half the lettering's or more: an arc
// that only grazes the frame meets it narrower than its lettering) to the gutter's; beyond that
// row (or column) is not the balloon. A balloon that closes is left as it is, and so is one whose
// paper is broken into runs shorter than the lettering across (a tone's dots in it), where
// every step onto clean paper would widen.
func cutAtFrames(m []bool, w, h int, text image.Rectangle, char int) {
	c := text.Min.Add(text.Max).Div(2)
	for _, d := range []image.Point{{0, 1}, {0, -1}, {1, 0}, {-1, 0}} {
		start := c
		for start.In(text) {
			start = start.Add(d)
		}
		across := text.Dx()*raster.Abs(d.Y) + text.Dy()*raster.Abs(d.X)
		if p, ok := raster.Widens(m, w, start, d, char, across/2); ok {
			for i := range m {
				if (i%w-p.X)*d.X+(i/w-p.Y)*d.Y >= 0 {
					m[i] = false
				}
			}
		}
	}
}

// OutOfTone is the balloon of the lettering in blocks when it is cut out of a light tone
// without an outline: the blur leaves the tone light, so the paper area runs on over it, and
// the lettering would be set out on the tone. Where a twentieth of the area around the lettering
// is dark at the pixel (a tone's dots), the body of clean paper around the lettering is the
// balloon; nil when the area is plain, or no such body closes around it and the paper a
// character around the lettering.
func OutOfTone(g *image.Gray, pa *page.Analysis, filled *page.Mask, paper func(x, y int) bool, blocks []*page.Block) *page.Mask {
	var text image.Rectangle
	for _, tb := range blocks {
		text = text.Union(tb.Box)
	}
	if dark, n := filled.Darker(g, filled.Box, text, pa.InkSoft, 2); dark*20 < n {
		return nil
	}
	body := Open(filled, func(x, y int) bool { return paper(x, y) && g.Pix[y*g.Stride+x] >= pa.InkSoft }, text, blocks[0].Char)
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

// TonedAround says whether the balloon about tb is filled with a tone: around its lettering,
// within a character, the page is visibly darker than its paper, and even once blurred (the dots
// of a tone average out; toned art has its lines and hatching).
func TonedAround(g, blur *image.Gray, pa *page.Analysis, tb *page.Block) bool {
	ring := tb.Box.Inset(-tb.Char).Intersect(tb.Bubble.Box)
	var hist [256]int
	var sum, sq float64
	n := 0
	for y := ring.Min.Y; y < ring.Max.Y; y++ {
		for x := ring.Min.X; x < ring.Max.X; x++ {
			if (image.Point{x, y}).In(tb.Box) || !tb.Bubble.Has(x, y) {
				continue
			}
			hist[g.Pix[y*g.Stride+x]]++
			v := float64(blur.Pix[y*blur.Stride+x])
			sum, sq, n = sum+v, sq+v*v, n+1
		}
	}
	if n == 0 {
		return false
	}
	mean := sum / float64(n)
	return raster.HistMedian(hist[:], n)+20 <= int(pa.Paper) && sq/float64(n)-mean*mean <= 14*14
}

// Margined says whether tb's lettering is set in its balloon as a letterer sets it: clear of the
// outline by a third of a character on every side. Art in a toned area fills it to its edges.
func Margined(tb *page.Block) bool {
	in, out, m := tb.Box, tb.Bubble.Box, tb.Char/3
	return in.Min.X-out.Min.X >= m && out.Max.X-in.Max.X >= m && in.Min.Y-out.Min.Y >= m && out.Max.Y-in.Max.Y >= m
}

// Toned says whether the paper area n of l is a tone: its median is visibly darker than the
// page's paper. (An area of plain paper is found as paper.)
func Toned(g *image.Gray, l *raster.Labels, n int32, pa *page.Analysis) bool {
	box := l.Comps[n-1].Box
	var hist [256]int
	count := 0
	for y := box.Min.Y; y < box.Max.Y; y += 2 {
		for x := box.Min.X; x < box.Max.X; x += 2 {
			if l.ID[y*l.W+x] == n {
				hist[g.Pix[y*g.Stride+x]]++
				count++
			}
		}
	}
	return raster.HistMedian(hist[:], count)+20 <= int(pa.Paper)
}

// PaperWithSpecks tells the paper of the area n of ll for finding the body of the balloon
// around text (of characters char wide): its own pixels, and where a tone fills that balloon (a
// dozen specks, holes of hl over box shorter than half of minChar, within half a character of
// it), the specks too: a coarse tone's dots riddle the balloon's paper with holes, where no
// opening leaves a body. Elsewhere the specks are art's, whose tone is no paper.
func PaperWithSpecks(ll *raster.Labels, n int32, hl *raster.Labels, box image.Rectangle, minChar int) func(text image.Rectangle, char int) func(x, y int) bool {
	speck := func(x, y int) int32 {
		if id := hl.ID[(y-box.Min.Y)*hl.W+x-box.Min.X]; id != 0 && max(hl.Comps[id-1].Box.Dx(), hl.Comps[id-1].Box.Dy()) < minChar/2 {
			return id
		}
		return 0
	}
	return func(text image.Rectangle, char int) func(x, y int) bool {
		seen, ring := map[int32]bool{}, text.Inset(-char/2).Intersect(box)
		for y := ring.Min.Y; y < ring.Max.Y; y++ {
			for x := ring.Min.X; x < ring.Max.X; x++ {
				if id := speck(x, y); id != 0 {
					seen[id] = true
				}
			}
		}
		return func(x, y int) bool { return ll.ID[y*ll.W+x] == n || len(seen) >= 12 && speck(x, y) != 0 }
	}
}

// Sized says whether a paper area with box r may be a balloon on page pb: a third of the
// page or less each way, where larger ones are a panel's white.
func Sized(r, pb image.Rectangle) bool {
	return r.Dx() <= pb.Dx()/3 && r.Dy() <= pb.Dy()/3
}

// Covered reports whether r lies mostly in a block already found or in its balloon (a paper
// area the size of a panel is none: the art it encloses is not its lettering's business).
func Covered(found []*page.Block, r, pb image.Rectangle) bool {
	c := r.Min.Add(r.Max).Div(2)
	for _, f := range found {
		if raster.OverlapRatio(f.Box, r) > 0.3 || (f.Bubble != nil && Sized(f.Bubble.Box, pb) && r.In(f.Bubble.Box) && f.Bubble.Has(c.X, c.Y)) {
			return true
		}
	}
	return false
}
