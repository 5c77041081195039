// Package letter is the lettering stage: it sets translations into a cleaned page, in the
// bubble's shape or the lettering's box, with the fonts a letterer would use.
package letter

import (
	"image"
	"image/color"
	"math"
	"strings"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/lang"
)

// Target is where one block's translation goes.
type Target struct {
	// Box is the source lettering's box.
	Box image.Rectangle
	// Area is the room to letter into (a bubble's interior, kept clear of its outline); nil
	// for text on art, which is lettered over its own box.
	Area *page.Mask
	// Room is, for text on art, the box to letter into when it is larger than the lettering's
	// own (a column on plain paper, lettered in lines across: roomAcross); empty otherwise.
	Room image.Rectangle
	// Char is the source's character size in pixels, which the translation may not outgrow.
	Char int
	// Paper is the colour behind the lettering.
	Paper    color.RGBA
	Vertical bool
}

// maxGrowth is how far lettering may grow past the source's character size to fill its bubble:
// a translation into English needs less height per line than a column of kanji, and a short
// line would otherwise sit small in the middle of a large balloon.
const maxGrowth = 1.5

// Block letters text, a translation into target, at t in dst and returns the outline of the
// area it used: the shape the transcript keeps, so that the page can be lettered again from it.
func (f *Fonts) Block(dst *image.RGBA, t Target, text, target string) []image.Point {
	long := max(dst.Bounds().Dx(), dst.Bounds().Dy())
	minReadable := max(float64(minFontPx)+2, float64(long)/110)
	l := letterer{fnt: f.forBubble(target, text), cjk: lang.IsCJK(target), text: text}
	ink := InkFor(color.RGBA{0, 0, 0, 255}, t.Paper, true)
	if lang.IsCJK(target) && t.Vertical {
		box := t.Box
		if t.Area != nil {
			box = largestBox(t.Area, t.Box)
		}
		l.drawVertical(dst, box, float64(t.Char), ink)
		return page.Corners(box)
	}
	area := t.Area
	if area != nil && area.Area < area.Box.Dx() { // a sliver: fall back to the lettering's own box
		area = nil
	}
	// Only a bubble's paper runs on past what the source was set in; a box, or the room
	// across made for a column, is where it was.
	near := t.Box.Inset(-t.Char)
	if area == nil {
		near = image.Rectangle{}
		box := t.Box.Inset(-t.Char / 2).Intersect(dst.Bounds())
		if !t.Room.Empty() {
			box = t.Room
		}
		area = page.FullMask(box)
	}
	lay := l.fitShape(area, near, float64(t.Char)*maxGrowth, minReadable)
	if lay.face != nil && busy(dst, area) {
		radius := max(2, lay.face.Metrics().Height.Round()/9)
		// A layout that runs over its area (nothing fitted) is haloed whole, not cut at the area.
		drawHaloed(dst, area.Box.Union(lay.bounds()), radius, ink, haloFor(ink), func(a *image.Alpha) { lay.draw(a, color.Opaque) })
	} else {
		lay.draw(dst, ink)
	}
	return area.Outline(max(4, area.Box.Dy()/24))
}

// Box letters text centred in box at the largest size up to maxSize that fits, as captions and
// text on art are lettered.
func (f *Fonts) Box(dst *image.RGBA, box image.Rectangle, text, target string, maxSize float64, ink color.RGBA) {
	l := letterer{fnt: f.forText(target, text), cjk: lang.IsCJK(target), text: text}
	l.fit(box, maxSize).draw(dst, box, ink)
}

// largestBox is the box around the centre of inner that the area holds, grown from inner.
func largestBox(area *page.Mask, inner image.Rectangle) image.Rectangle {
	box := inner
	fits := func(r image.Rectangle) bool {
		for _, p := range []image.Point{r.Min, {r.Max.X - 1, r.Min.Y}, {r.Min.X, r.Max.Y - 1}, r.Max.Sub(image.Pt(1, 1))} {
			if !area.Has(p.X, p.Y) {
				return false
			}
		}
		return true
	}
	for range 200 {
		grown := false
		for _, d := range []image.Rectangle{{image.Pt(-1, 0), image.Pt(0, 0)}, {image.Pt(0, 0), image.Pt(1, 0)}, {image.Pt(0, -1), image.Pt(0, 0)}, {image.Pt(0, 0), image.Pt(0, 1)}} {
			r := image.Rectangle{box.Min.Add(d.Min), box.Max.Add(d.Max)}
			if fits(r) {
				box, grown = r, true
			}
		}
		if !grown {
			break
		}
	}
	return box
}

// Letter is the lettering stage: every block of p with a translation (and not skipped) is
// lettered into the cleaned page and marked lettered; a block without one is left as the cleaned
// page has it. It returns how many blocks it lettered. A block keeps the shape it had, or gets the
// area it was lettered into as its shape, so that lettering the page again from its transcript
// lands in the same place.
//
// What a block carries decides how it is set, not where the page came from: a block the finder
// measured on this page is set from what it saw (a bubble's interior, or its own box; text set in
// rows, with its ink colour measured, in its box grown into the plain background around it), a
// block rebuilt from a transcript into the shape the transcript kept. This is how a page is
// translated and how it is lettered again after its transcript was edited.
func Letter(p *page.Page, f *Fonts) int {
	upper := p.Lettering == string(job.Upper)
	n := 0
	for i := range p.Blocks {
		b := &p.Blocks[i]
		text := strings.TrimSpace(b.Translation)
		if text == "" || b.Status == page.Skipped {
			continue
		}
		if upper && !lang.IsCJK(p.TargetLang) {
			text = strings.ToUpper(text) // comic-style capitals (lettering=upper)
		}
		var shape []image.Point
		if b.InkColor.A != 0 {
			area := grownBox(p.Image, p.Blocks, i, b.Paper, b.Char)
			// A word box spans about 0.8 em (cap height plus some descenders); the translation
			// may not grow past the original lettering's size, only shrink to fit.
			f.Box(p.Image, area, text, p.TargetLang, float64(b.Char)/0.8*1.1, b.InkColor)
			shape = page.Corners(area)
		} else {
			shape = f.Block(p.Image, target(p, i), text, p.TargetLang)
		}
		if len(b.Shape) == 0 {
			b.Shape = shape // the shape is kept, so that lettering again lands in the same place
		}
		b.Translation, b.Status, b.Reason = strings.TrimSpace(b.Translation), page.Lettered, ""
		n++
	}
	return n
}

// target is where block i's translation goes in a bubble or a box.
func target(p *page.Page, i int) Target {
	b := &p.Blocks[i]
	t := Target{Box: b.Box, Char: b.Char, Paper: b.Paper, Vertical: b.Vertical}
	if b.Char == 0 {
		// Rebuilt from a transcript: the shape is the area the translation was lettered into,
		// used as it is, not shrunk from the bubble's outline again.
		t.Char = charSize(b)
		t.Area = page.Polygon(b.Shape)
		if t.Area == nil || t.Area.Area == 0 {
			t.Area = nil
		}
		if t.Area != nil {
			t.Paper = page.Paper(p.Image, t.Area, image.Rectangle{}, color.RGBA{255, 255, 255, 255})
		} else {
			t.Paper = page.Paper(p.Image, page.Polygon(page.Corners(b.Box)), image.Rectangle{}, color.RGBA{255, 255, 255, 255})
		}
		if t.Vertical && lang.IsCJK(p.TargetLang) && t.Area != nil {
			// A block lettered in columns kept the box of its columns as its shape.
			t.Box, t.Area = t.Area.Box, nil
		}
		return t
	}
	if b.Bubble != nil {
		t.Paper = page.Paper(p.Image, b.Bubble, b.Box, b.Paper)
		// A column of CJK keeps a wider margin from the outline than lines across.
		margin := max(2, b.Char/4)
		if lang.IsCJK(p.TargetLang) && b.Vertical {
			margin = max(2, b.Char/3)
		}
		t.Area = b.Bubble.Erode(margin)
	} else if b.Vertical && !lang.IsCJK(p.TargetLang) {
		t.Room = roomAcross(p.Image, p.Blocks, i, b.Paper, b.Char)
	}
	return t
}

// charSize estimates a block's character size from its box and its source text, as the finder
// measured it when the transcript does not say: a square of the box's area per character, which
// is a CJK character, and about 0.85 em for Latin letters with their line spacing.
func charSize(b *page.Block) int {
	n := 0
	for _, r := range b.Source {
		if r != ' ' && r != '\n' {
			n++
		}
	}
	if n == 0 {
		return max(minFontPx, min(b.Box.Dx(), b.Box.Dy()))
	}
	s := math.Sqrt(float64(b.Box.Dx()*b.Box.Dy()) / float64(n))
	if !lang.IsCJK(b.Lang) {
		s /= 0.85
	}
	return max(minFontPx, int(s))
}
