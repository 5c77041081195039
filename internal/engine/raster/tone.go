package raster

import "math"

// Tone is a screentone's lattice of dots: dot (i, j) is centred at Origin + i·U + j·V.
type Tone struct{ Origin, U, V [2]float64 }

// FitTone fits a lattice to the centres of a tone's dots, read from around ref (the dot nearest
// it sets the origin): the two shortest steps between dots that are not parallel, refined by
// least squares over every centre that lies near a lattice point. ok is false when the centres
// make no lattice (fewer than six, or all in a line).
func FitTone(centres [][2]float64, ref [2]float64) (t Tone, ok bool) {
	if len(centres) < 6 {
		return t, false
	}
	d2 := func(a, b [2]float64) float64 { return (a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) }
	norm2 := func(s [2]float64) float64 { return d2(s, [2]float64{}) }
	o := centres[0]
	for _, c := range centres {
		if d2(c, ref) < d2(o, ref) {
			o = c
		}
	}
	var u, v [2]float64
	for _, c := range centres {
		if s := [2]float64{c[0] - o[0], c[1] - o[1]}; norm2(s) > 1 && (u == [2]float64{} || norm2(s) < norm2(u)) {
			u = s
		}
	}
	lu := math.Sqrt(norm2(u))
	for _, c := range centres {
		s := [2]float64{c[0] - o[0], c[1] - o[1]}
		ls := math.Sqrt(norm2(s))
		// Steps more than 30° from u either way.
		if ls > 1 && math.Abs(s[0]*u[0]+s[1]*u[1]) < ls*lu*math.Cos(math.Pi/6) && (v == [2]float64{} || ls*ls < norm2(v)) {
			v = s
		}
	}
	t = Tone{Origin: o, U: u, V: v}
	if lu == 0 || v == [2]float64{} {
		return t, false
	}
	// Least squares of x (and y) = origin + i·U + j·V over the centres near a lattice point.
	var m [3][3]float64
	var bx, by [3]float64
	n := 0
	for _, c := range centres {
		i, j := t.index(c[0], c[1])
		p := t.At(i, j)
		if d2(p, c) > lu*lu/16 {
			continue
		}
		row := [3]float64{1, float64(i), float64(j)}
		for a := range 3 {
			for b := range 3 {
				m[a][b] += row[a] * row[b]
			}
			bx[a] += row[a] * c[0]
			by[a] += row[a] * c[1]
		}
		n++
	}
	if n < 6 {
		return t, false
	}
	sx, okx := solve3(m, bx)
	sy, oky := solve3(m, by)
	if !okx || !oky {
		return t, true // the first guess stands
	}
	return Tone{Origin: [2]float64{sx[0], sy[0]}, U: [2]float64{sx[1], sy[1]}, V: [2]float64{sx[2], sy[2]}}, true
}

// At is the centre of dot (i, j).
func (t Tone) At(i, j int) [2]float64 {
	return [2]float64{t.Origin[0] + float64(i)*t.U[0] + float64(j)*t.V[0], t.Origin[1] + float64(i)*t.U[1] + float64(j)*t.V[1]}
}

// index is the dot whose centre is nearest (x, y), in lattice steps.
func (t Tone) index(x, y float64) (i, j int) {
	det := t.U[0]*t.V[1] - t.U[1]*t.V[0]
	dx, dy := x-t.Origin[0], y-t.Origin[1]
	a := (dx*t.V[1] - dy*t.V[0]) / det
	b := (t.U[0]*dy - t.U[1]*dx) / det
	return int(math.Round(a)), int(math.Round(b))
}

// Nearest is the centre of the dot nearest (x, y), and its index.
func (t Tone) Nearest(x, y float64) (c [2]float64, i, j int) {
	i, j = t.index(x, y)
	return t.At(i, j), i, j
}

// solve3 solves m·s = b by Cramer's rule; ok is false when m is singular.
func solve3(m [3][3]float64, b [3]float64) (s [3]float64, ok bool) {
	det := func(a [3][3]float64) float64 {
		return a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) - a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) + a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
	}
	d := det(m)
	if math.Abs(d) < 1e-9 {
		return s, false
	}
	for k := range 3 {
		mk := m
		for r := range 3 {
			mk[r][k] = b[r]
		}
		s[k] = det(mk) / d
	}
	return s, true
}

// Stuck tells the pixels of the tone's dots, of radius r, that other ink (lettering drawn over
// the tone without a halo) has joined: within r of a dot's centre, where the dot is there (most
// of its disk is ink) and paper mostly surrounds it (under half of a ring just outside it is
// ink, its neighbours' disks aside, and that ink on one side). Under a stroke that ring is ink
// on opposite sides, and the dot is left to the stroke.
func (t Tone) Stuck(r float64, ink func(x, y int) bool) func(x, y int) bool {
	dist := func(x, y int, c [2]float64) float64 { return math.Hypot(float64(x)-c[0], float64(y)-c[1]) }
	memo := map[[2]int]bool{}
	stuck := func(i, j int) bool {
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		c := t.At(i, j)
		disk, in, ring, out := 0, 0, 0, 0
		var sx, sy float64 // the sum of the directions to the ring's ink
		for y := int(math.Floor(c[1] - r - 3)); y <= int(math.Ceil(c[1]+r+3)); y++ {
			for x := int(math.Floor(c[0] - r - 3)); x <= int(math.Ceil(c[0]+r+3)); x++ {
				switch d := dist(x, y, c); {
				case d <= r:
					disk++
					if ink(x, y) {
						in++
					}
				case d > r+1.5 && d <= r+3:
					if o, oi, oj := t.Nearest(float64(x), float64(y)); (oi != i || oj != j) && dist(x, y, o) <= r+1 {
						continue
					}
					ring++
					if ink(x, y) {
						out++
						sx, sy = sx+(float64(x)-c[0])/d, sy+(float64(y)-c[1])/d
					}
				}
			}
		}
		// Ink on one side is what the dot is stuck to; ink on opposite sides is a stroke that
		// runs through it.
		v := in*10 >= disk*7 && out*2 < ring && math.Hypot(sx, sy) >= float64(out)/2
		memo[[2]int{i, j}] = v
		return v
	}
	return func(x, y int) bool {
		c, i, j := t.Nearest(float64(x), float64(y))
		return dist(x, y, c) <= r+0.7 && stuck(i, j)
	}
}
