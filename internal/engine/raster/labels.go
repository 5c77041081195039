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
	c := l.Comps[n-1]
	box := c.Box
	w, h := box.Dx(), box.Dy()
	outside := make([]bool, w*h)
	var stack []int
	push := func(x, y int) {
		i := y*w + x
		if outside[i] || l.ID[(box.Min.Y+y)*l.W+box.Min.X+x] == n {
			return
		}
		outside[i] = true
		stack = append(stack, i)
	}
	for x := 0; x < w; x++ {
		push(x, 0)
		push(x, h-1)
	}
	for y := 0; y < h; y++ {
		push(0, y)
		push(w-1, y)
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		if x > 0 {
			push(x-1, y)
		}
		if x < w-1 {
			push(x+1, y)
		}
		if y > 0 {
			push(x, y-1)
		}
		if y < h-1 {
			push(x, y+1)
		}
	}
	mask = make([]bool, w*h)
	for i := range outside {
		if !outside[i] {
			mask[i] = true
			area++
		}
	}
	return mask, area
}
