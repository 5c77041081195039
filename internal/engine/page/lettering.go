package page

import "image"

// Analysis is what the finder learned about a page's levels, kept for reading and cleaning.
type Analysis struct {
	Gray   *image.Gray
	Paper  uint8
	InkMax uint8 // pixels darker than this are ink
	// InkSoft is halfway between InkMax and the paper: what the lettering's mask takes, so the
	// anti-aliased rims of thin strokes in small, JPEG-softened lettering are read and erased.
	InkSoft uint8
}

// Reading is one block's text as read, with its confidence.
type Reading struct {
	Text string
	// Conf is the mean word confidence, 0 to 1, weighted by characters.
	Conf float64
}

// Word is one recognised word, in the coordinates of the image that was read.
type Word struct {
	Box  image.Rectangle
	Conf float64
	Text string
	// Inverted records that the word was read from the inverted image (light text on dark).
	Inverted bool
}

// Chars estimates how many characters the block's lines hold, from their length in characters.
func (b *Block) Chars() int {
	n := 0
	for _, l := range b.Lines {
		n += max(1, (LineLength(l, b.Vertical)+b.Char/2)/b.Char)
	}
	return n
}

// InkAt reports whether the pixel belongs to the block's lettering.
func (b *Block) InkAt(x, y int) bool { return b.Ink.Has(x, y) }

// InkHeldBy reports whether o's ink holds nearly all of b's.
func (b *Block) InkHeldBy(o *Block) bool {
	n, held := 0, 0
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if b.InkAt(x, y) {
				n++
				if o.InkAt(x, y) {
					held++
				}
			}
		}
	}
	return n > 0 && held*10 >= n*9
}

// InkWithin reports whether the area m holds all of b's ink.
func (b *Block) InkWithin(m *Mask) bool {
	for y := b.Box.Min.Y; y < b.Box.Max.Y; y++ {
		for x := b.Box.Min.X; x < b.Box.Max.X; x++ {
			if b.InkAt(x, y) && !m.Has(x, y) {
				return false
			}
		}
	}
	return true
}

// Hugged reports whether b's bubble lies within reach pixels of its lettering on every side: no
// balloon, which leaves a margin, but a halo about the strokes (how far a halo may reach is
// the caller's to say).
func (b *Block) Hugged(reach int) bool {
	return b.Bubble != nil && b.Bubble.Box.In(b.Box.Inset(-reach))
}

// Light reports whether b's lettering is light on a dark box (its paper is known and dark), to
// be read and measured as its negative.
func (b *Block) Light() bool { return b.Paper.A != 0 && Luma(b.Paper) < 128 }

// InTone reports whether b's bubble is filled with a tone around its lettering: within a
// character of it, a twentieth of the bubble darker than dark (the tone's dots; a plain
// balloon's paper has none).
func (b *Block) InTone(g *image.Gray, dark uint8) bool {
	if b.Bubble == nil {
		return false
	}
	dots, n := b.Bubble.Darker(g, b.Box.Inset(-b.Char).Intersect(b.Bubble.Box).Intersect(g.Bounds()), b.Box, dark, 1)
	return n > 0 && dots*20 >= n
}

// Move moves the block, and all it saw, by d (a block found in a part of the page onto the
// page).
func (b *Block) Move(d image.Point) {
	b.Box = b.Box.Add(d)
	b.Ink.Box = b.Ink.Box.Add(d)
	for i := range b.Lines {
		b.Lines[i] = b.Lines[i].Add(d)
	}
	for i := range b.Ruby {
		b.Ruby[i] = b.Ruby[i].Add(d)
	}
	if b.Bubble != nil {
		b.Bubble.Box = b.Bubble.Box.Add(d)
	}
}

// WorthReading leaves out what could never be lettered over: outside a bubble, a line of fewer
// than three characters, which on manga pages is nearly always art.
func (b *Block) WorthReading() bool {
	if b.Bubble != nil {
		return true
	}
	return b.Chars() >= 3
}

// LineLength is a line's length along its direction.
func LineLength(r image.Rectangle, vertical bool) int {
	if vertical {
		return r.Dy()
	}
	return r.Dx()
}
