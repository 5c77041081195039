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
	// Char is the source's character size in pixels, which the translation may not outgrow.
	Char int
	// Paper is the colour behind the lettering.
	Paper    color.RGBA
	Vertical bool
	// Upper letters the translation in capitals, as comics are lettered (lettering=upper).
	Upper bool
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
	if t.Upper && !lang.IsCJK(target) {
		text = strings.ToUpper(text)
	}
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
	if area == nil {
		box := t.Box.Inset(-t.Char / 2).Intersect(dst.Bounds())
		area = &page.Mask{Box: box, Mask: make([]bool, box.Dx()*box.Dy()), Area: box.Dx() * box.Dy()}
		for i := range area.Mask {
			area.Mask[i] = true
		}
	}
	lay := l.fitShape(area, float64(t.Char)*maxGrowth, minReadable)
	lay.draw(dst, ink)
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

// Letter letters a cleaned page from its model alone, without reading or translating it again:
// every block with a translation is set into the shape the transcript kept for it, and marked
// lettered; a block without one is left as the cleaned page has it. It returns how many blocks
// it lettered. This is how a page is lettered again after its transcript was edited.
func Letter(p *page.Page, f *Fonts) int {
	n := 0
	for i := range p.Blocks {
		b := &p.Blocks[i]
		text := strings.TrimSpace(b.Translation)
		if text == "" || b.Status == page.Skipped {
			continue
		}
		t := Target{Box: b.Box, Char: charSize(b), Vertical: b.Vertical, Upper: p.Lettering == string(job.Upper)}
		// The shape is the area the translation was lettered into: it is used as it is, not
		// shrunk from the bubble's outline again.
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
		shape := f.Block(p.Image, t, text, p.TargetLang)
		if len(b.Shape) == 0 {
			b.Shape = shape // the shape is kept, so that lettering again lands in the same place
		}
		b.Translation, b.Status, b.Reason = text, page.Lettered, ""
		n++
	}
	return n
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
