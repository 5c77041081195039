package raster

// Pix is the pixels of component n, as indices into the labelled image.
func (l *Labels) Pix(n int32) []int {
	c := l.Comps[n-1]
	var pix []int
	for y := c.Box.Min.Y; y < c.Box.Max.Y; y++ {
		for x := c.Box.Min.X; x < c.Box.Max.X; x++ {
			if l.ID[y*l.W+x] == n {
				pix = append(pix, y*l.W+x)
			}
		}
	}
	return pix
}

// Filled is the component n of l with its holes filled: the pixels of its box (row by row) that
// the box's border cannot reach without crossing the component, and how many they are.
func (l *Labels) Filled(n int32) (mask []bool, area int) {
	box := l.Comps[n-1].Box
	w, h := box.Dx(), box.Dy()
	// What the border reaches is the rest of the box's pixels in pieces (4-connected) that
	// touch the border.
	rest := &Bitmap{W: w, H: h, On: make([]bool, w*h)}
	for y := range h {
		for x, id := range l.ID[(box.Min.Y+y)*l.W+box.Min.X:][:w] {
			rest.On[y*w+x] = id != n
		}
	}
	pieces := Label(rest, false)
	outside := make([]bool, len(pieces.Comps))
	for i, c := range pieces.Comps {
		outside[i] = c.Box.Min.X == 0 || c.Box.Min.Y == 0 || c.Box.Max.X == w || c.Box.Max.Y == h
	}
	mask = make([]bool, w*h)
	for i, id := range pieces.ID {
		if id == 0 || !outside[id-1] {
			mask[i] = true
			area++
		}
	}
	return mask, area
}
