package clean

import (
	"image"
	"image/color"

	"github.com/vtsproject/vts/internal/engine/page"
)

// A scan's paper is not one colour: it has grain and JPEG noise. Erased lettering painted one
// colour (or rebuilt smooth from around it) is a flat patch the shape of the text region, as
// plain to a reader as the ghosts it replaced. So the grain is carried through: small squares
// of the clean paper around the lettering, each less its own mean (its grain, not its tint),
// are laid over what was erased, one picked at random for each square of it. Tiling one patch
// would repeat it in a pattern the eye finds; grain has no shape, so random squares meet
// without a seam.

// grainCell is the side of the squares of grain, in pixels: wide enough to keep the grain's
// own softness (a scan's grain is a pixel or two across), small enough to find many.
const grainCell = 4

// withGrain adds to the pixels of m that area holds the grain of the paper around them: the
// squares of area's paper within reach of m (clear of m, every pixel within visiblyDark of the
// paper's level paperY). Nothing changes when fewer than a dozen such squares are found.
func withGrain(img *image.RGBA, gray *image.Gray, m, area *page.Mask, paperY, reach int) {
	const k = grainCell
	type cell [k * k][3]int16 // each pixel's departure from the square's mean
	var pool []cell
	search := m.Box.Inset(-max(reach, 4*k)).Intersect(area.Box).Intersect(gray.Bounds())
	for y := search.Min.Y; y+k <= search.Max.Y && len(pool) < 512; y += k {
	square:
		for x := search.Min.X; x+k <= search.Max.X && len(pool) < 512; x += k {
			var sum [3]int
			for i := range k * k {
				px, py := x+i%k, y+i/k
				if d := int(gray.GrayAt(px, py).Y) - paperY; !area.Has(px, py) || m.Has(px, py) || d <= -visiblyDark || d >= visiblyDark {
					continue square
				}
				c := img.RGBAAt(px, py)
				sum[0], sum[1], sum[2] = sum[0]+int(c.R), sum[1]+int(c.G), sum[2]+int(c.B)
			}
			var g cell
			for i := range k * k {
				c := img.RGBAAt(x+i%k, y+i/k)
				g[i] = [3]int16{int16(int(c.R) - sum[0]/(k*k)), int16(int(c.G) - sum[1]/(k*k)), int16(int(c.B) - sum[2]/(k*k))}
			}
			pool = append(pool, g)
		}
	}
	if len(pool) < 12 {
		return
	}
	clamp := func(v int) uint8 { return uint8(min(255, max(0, v))) }
	for y := m.Box.Min.Y; y < m.Box.Max.Y; y++ {
		for x := m.Box.Min.X; x < m.Box.Max.X; x++ {
			if !m.Has(x, y) || !area.Has(x, y) {
				continue
			}
			// The square for this cell of the page, picked by a hash of where it is: the same
			// page is cleaned the same way every time.
			h := uint32(x/k)*73856093 ^ uint32(y/k)*19349663
			h ^= h >> 13
			h *= 0x5bd1e995
			h ^= h >> 15
			d := pool[h%uint32(len(pool))][(y%k)*k+x%k]
			c := img.RGBAAt(x, y)
			img.SetRGBA(x, y, color.RGBA{clamp(int(c.R) + int(d[0])), clamp(int(c.G) + int(d[1])), clamp(int(c.B) + int(d[2])), c.A})
		}
	}
}
