package raster

import "image"

// Texture is the kind of texture a connected piece may be.
type Texture uint8

// The kinds of texture.
const (
	NotTexture  Texture = iota
	LineTexture         // a hatching line, a net of them, a thin straight line
	DotTexture          // a screentone's dot
)

// Textures tells the connected pieces that are texture, on a page whose characters are minChar
// to maxChar pixels: dots with several twins close by (DotTexture), and lines or nets of lines
// far longer than a character and sparse (LineTexture). A character's strokes rarely have
// twins; a character merged with the dots or lines it touches is still about a character's
// size.
func Textures(comps []Component, nb *Neighbours, minChar, maxChar int) []Texture {
	tex := make([]Texture, len(comps))
	twin := func(a, b Component) bool {
		tol := max(1, a.Box.Dx()/6, a.Box.Dy()/6)
		return Abs(a.Box.Dx()-b.Box.Dx()) <= tol && Abs(a.Box.Dy()-b.Box.Dy()) <= tol &&
			Abs(a.Area-b.Area)*4 <= max(a.Area, b.Area)
	}
	for i, c := range comps {
		thick, size := min(c.Box.Dx(), c.Box.Dy()), max(c.Box.Dx(), c.Box.Dy())
		switch {
		case size > 2*maxChar || (size > 2*minChar && c.Area*12 < c.Box.Dx()*c.Box.Dy()):
			tex[i] = LineTexture // a hatching line across, or a net of them
		case thick < minChar/2 && thick*8 < size:
			tex[i] = LineTexture // a thin straight line
		case size <= 2*minChar:
			n := 0
			nb.Each(c.Box, 3*size+4, func(j int) {
				if j != i && twin(c, comps[j]) {
					n++
				}
			})
			if n >= 4 {
				tex[i] = DotTexture
			}
		}
	}
	return tex
}

// AmongDots reports whether the piece with box r lies among a tone's dots no smaller than itself:
// it is then a dot that a halo or the paper's edge clipped, which has no twins left.
func AmongDots(r image.Rectangle, comps []Component, texture []Texture, nb *Neighbours) bool {
	size, among := max(r.Dx(), r.Dy()), false
	nb.Each(r, 3*size+4, func(j int) {
		o := comps[j].Box
		among = among || (texture[j] == DotTexture && max(o.Dx(), o.Dy())*5 >= size*4)
	})
	return among
}

// Abs is the absolute value of v.
func Abs(v int) int { return max(v, -v) }
