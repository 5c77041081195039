// Package lines lays out lettering in lines: a block of CJK ink found in the pixels (whether it
// is set in columns or rows, the extent of each column or row, and the furigana beside them,
// which are erased but not read), and on a Latin page the words Tesseract reads, grouped into
// lines and the lines into blocks.
package lines

import (
	"cmp"
	"image"
	"slices"
	"sort"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// Layout is how a block's ink is set.
type Layout struct {
	Vertical bool
	// Lines are the columns (right to left) or rows (top to bottom) of the lettering.
	Lines []image.Rectangle
	// Ruby are the furigana, lines or marks beside the main lines at about half their size, and
	// strokes of art too short to be lines: erased with the lettering, never read.
	Ruby []image.Rectangle
	// Art are lines wider than the lettering's and shorter than they are wide: the tip of a
	// line of art beside it, no part of the lettering.
	Art []image.Rectangle
	// Char is the size of a character: the median thickness of the main lines (a thin last
	// line of narrow kana says nothing of it).
	Char int
}

// Split lays out the ink of m (in page coordinates); minChar is the smallest character the page
// may hold (a gap of under an eighth of it is a sliver inside a character, not between lines).
// Furigana set tight against a column leave m's mask. Nil when m holds no ink, or no line long
// enough to be lettering.
func Split(m *page.Mask, minChar int) *Layout {
	box := m.Box
	w, h := box.Dx(), box.Dy()
	ink := m.Mask
	xs := make([]int, w)
	ys := make([]int, h)
	total := 0
	for y := range h {
		for x := range w {
			if ink[y*w+x] {
				xs[x]++
				ys[y]++
				total++
			}
		}
	}
	if total == 0 {
		return nil
	}
	cols := segments(xs, minChar)
	rows := segments(ys, minChar)
	// Columns side by side whose only gap holds a speck (a tone's dot, a stroke's soft tip) are
	// one run of the profile, and no other column shows how wide one is: the rows do, a
	// character thick (ごめん、|待った？ in a toned balloon, read as four rows of two).
	if len(cols) == 1 && len(rows) >= 2 {
		cols = faintColumns(xs, cols[0], raster.Median(rows, runLength), minChar)
	}
	va, ha := lineAspect(cols, ink, w, h, true), lineAspect(rows, ink, w, h, false)
	vertical := va >= ha
	xg, yg := medianGap(cols), medianGap(rows)
	// Columns set far apart are columns whatever the lines' lengths: columns of a few
	// characters each (全然。|今|来た|ところ。) split into rows longer than they are, but
	// those rows lie a sliver apart. (Rows far apart tell nothing so sure: furigana set
	// close beside a column make a sliver of a gap between columns too.)
	strong := xg > 0 && yg > 0 && xg*2 >= yg*5
	if strong {
		vertical = true
	}
	// CJK characters sit on a grid, so a squarish block splits about as well both ways; then
	// the gaps tell: between columns of vertical text they are wide and between its characters
	// narrow, and the other way round for rows.
	if !strong && va < 1.5*ha && ha < 1.5*va {
		// Where even the gaps hardly differ, vertical wins: it is how most such lettering
		// (manga) is set, and a horizontal row of CJK is usually wide enough to be clear.
		if xg > 0 && yg > 0 {
			vertical = xg*3 >= yg*2
		}
	}
	// Rows whose characters stand further apart than the rows do are columns taken for rows:
	// CJK set in rows is set solid along them with its leading between them, and set in columns
	// the other way round (静か|誰か|来る。, whose first column a tone cut short, split into rows
	// longer than its columns, but its characters stood half as far again apart as its rows).
	if !strong && !vertical && len(rows) >= 2 && len(cols) >= 2 && ha < 2*va && yg > 0 && xg*4 >= yg*5 {
		vertical = true
	}
	// A last row of nothing but small marks is the 。 that end columns: horizontal lettering
	// sets its 。 on the baseline of the row it ends, never in a row of its own.
	if !strong && !vertical && len(rows) >= 2 && len(cols) >= 2 && punctuationRow(ink, w, h, rows, cols) {
		vertical = true
	}
	// Rows flush on the right and ragged on the left are columns read from the right whose last
	// ones are short (columns set wide apart split into long rows): lines of text start flush.
	// Ragged is measured against a typical row: characters of a column that touch make a row
	// two characters tall, against which no edge looks ragged.
	if !strong && !vertical && len(rows) >= 2 && len(cols) >= 2 {
		var lefts, rights, thick []int
		for _, s := range rows {
			r := extent(ink, w, h, s, false)
			lefts, rights, thick = append(lefts, r.Min.X), append(rights, r.Max.X), append(thick, r.Dy())
		}
		c := slices.Sorted(slices.Values(thick))[len(thick)/2]
		vertical = slices.Max(rights)-slices.Min(rights) <= c/2 && slices.Max(lefts)-slices.Min(lefts) >= c
	}
	segs := rows
	if vertical {
		segs = cols
	}
	var lines []image.Rectangle
	for _, s := range segs {
		lines = append(lines, extent(ink, w, h, s, vertical).Add(box.Min))
	}
	lay := &Layout{Vertical: vertical}
	if vertical { // furigana set tight widen their column: cut first, they leave it its true width
		lay.Ruby = tightRuby(m, lines, slices.MaxFunc(lines, func(a, b image.Rectangle) int { return a.Dx() - b.Dx() }).Dx())
	}
	thick, core := make([]int, len(lines)), make([]int, len(lines))
	for i, l := range lines {
		thick[i], core[i] = crossSize(l, vertical), coreThickness(ink, w, l.Sub(box.Min), vertical)
	}
	// The lettering's measure is its thickest line of some length: a stub of art (the tip of a
	// speed line ending at a borderless balloon) makes a line far wider than it is long, which
	// must not make the lettering's columns look like furigana beside it.
	mainCore, shaped := 0, func(i int) bool { return page.LineLength(lines[i], vertical)*10 >= thick[i]*8 }
	for i := range lines {
		if shaped(i) {
			mainCore = max(mainCore, core[i])
		}
	}
	if mainCore == 0 {
		mainCore = slices.Max(core)
	}
	// A narrow kana alone in the last line (the い of い。) splits down its gap into two thin
	// lines side by side, which furigana never are (they sit by kanji, which are wide): one line.
	// Lines run left to right and top to bottom, so the last is the first column or last row.
	if n := len(lines); n >= 3 {
		i := 0 // the last line and the one before it
		if !vertical {
			i = n - 2
		}
		a, b := lines[i], lines[i+1]
		u := a.Union(b)
		gap := b.Min.X - a.Max.X
		if !vertical {
			gap = b.Min.Y - a.Max.Y
		}
		if core[i]*100 < mainCore*62 && core[i+1]*100 < mainCore*62 && gap <= mainCore/4 && crossSize(u, vertical)*100 <= slices.Max(thick)*110 {
			lines = slices.Replace(lines, i, i+2, u)
			thick = slices.Replace(thick, i, i+2, crossSize(u, vertical))
			core = slices.Replace(core, i, i+2, coreThickness(ink, w, u.Sub(box.Min), vertical))
		}
	}
	// Furigana sit beside the main columns (right of them in vertical text, above in horizontal)
	// at about half their size. A thin last line with no main one on that side is the narrow
	// kana that end the lettering (the う！ of a shout in a column of its own), if it is not
	// much thinner than furigana are. A line shorter than half a character is a stroke of art
	// poking into the balloon.
	last := 0
	if !vertical {
		last = len(lines) - 1
	}
	// A line thin beside the thickest may still be a column of full-sized characters, where art
	// beside the thickest widened it (the dots a halo clipped between 楽しみだ and 文化祭、): its
	// characters stand as tall along it as the other lines' do, where furigana are half as tall
	// (and a stroke of hatching is no character at all).
	cell := make([]int, len(lines))
	var fullCells []int
	for i, l := range lines {
		cell[i] = cellLength(ink, w, l.Sub(box.Min), vertical, minChar)
		if shaped(i) && core[i]*100 >= mainCore*62 && cell[i] > 0 {
			fullCells = append(fullCells, cell[i])
		}
	}
	mainCell := 0 // how long the main lines' characters are
	if len(fullCells) > 0 {
		mainCell = lowerMedian(fullCells)
	}
	full := func(i int) bool {
		if mainCell == 0 || cell[i] < minChar || cell[i]*10 < mainCore*6 {
			return false // no run a character long: a tone's dots in a column
		}
		return cell[i]*5 >= mainCell*4 && cell[i]*10 <= mainCell*13 && core[i]*10 >= cell[i]*6 // and its characters about square
	}
	var mains []int
	for i, l := range lines {
		thin := core[i]*100 < mainCore*62 && !full(i)
		switch {
		case len(lines) > 1 && !shaped(i) && core[i] > mainCore:
			lay.Art = append(lay.Art, l)
		case len(lines) == 1 || !thin && page.LineLength(l, vertical)*2 >= mainCore:
			lay.Lines = append(lay.Lines, l)
			mains = append(mains, thick[i])
		case thin && i == last && core[i]*100 >= mainCore*45 && page.LineLength(l, vertical)*2 >= mainCore &&
			!rubyOfAny(l, lines, core, mainCore, vertical):
			lay.Lines = append(lay.Lines, l)
		default:
			lay.Ruby = append(lay.Ruby, l)
		}
	}
	if len(mains) == 0 {
		return nil // strokes, no line of lettering
	}
	sort.Ints(mains)
	lay.Char = mains[len(mains)/2]
	if vertical {
		slices.SortFunc(lay.Lines, func(a, b image.Rectangle) int { return cmp.Compare(b.Max.X, a.Max.X) })
	} else {
		slices.SortFunc(lay.Lines, func(a, b image.Rectangle) int { return cmp.Compare(a.Min.Y, b.Min.Y) })
	}
	return lay
}

// punctuationRow reports whether the last of rows (segments of the w×h ink mask) is a row of
// marks, each under half as wide as the other rows are thick and the row itself under a third as
// thick: two or more side by side, or one a quarter as wide and tall as the rows are thick that
// lies within one of cols and right under its ink (the 。 of the one column that is longest,
// 来る。 beside 誰か and 静か), not a speck of noise under a row or one apart.
func punctuationRow(ink []bool, w, h int, rows, cols [][2]int) bool {
	var thick []int
	for _, s := range rows[:len(rows)-1] {
		thick = append(thick, extent(ink, w, h, s, false).Dy())
	}
	c := slices.Sorted(slices.Values(thick))[len(thick)/2]
	last := rows[len(rows)-1]
	if (last[1]-last[0])*3 > c {
		return false
	}
	xs := make([]int, w)
	for y := last[0]; y < last[1]; y++ {
		for x := range w {
			if ink[y*w+x] {
				xs[x]++
			}
		}
	}
	marks := segments(xs, c)
	for _, m := range marks {
		if (m[1]-m[0])*2 > c {
			return false
		}
	}
	if len(marks) == 1 && min(marks[0][1]-marks[0][0], last[1]-last[0])*4 >= c {
		m := marks[0]
		for _, col := range cols {
			if m[0] < col[0] || m[1] > col[1] {
				continue
			}
			for y := last[0] - 1; y >= 0 && last[0]-y <= c/2; y-- {
				if slices.Contains(ink[y*w+col[0]:y*w+col[1]], true) {
					return true
				}
			}
		}
	}
	return len(marks) >= 2
}

// rubyOfAny reports whether a main line (of thickness over 62 % of main) lies beside l where
// furigana sit against their base: left of l in vertical text, below it in horizontal, within
// half a main line's thickness and alongside it.
func rubyOfAny(l image.Rectangle, lines []image.Rectangle, thick []int, main int, vertical bool) bool {
	for j, m := range lines {
		if thick[j]*100 < main*62 {
			continue
		}
		if vertical && m.Max.X <= l.Min.X+main/4 && l.Min.X-m.Max.X <= main/2 && m.Min.Y < l.Max.Y && l.Min.Y < m.Max.Y {
			return true
		}
		if !vertical && m.Min.Y >= l.Max.Y-main/4 && m.Min.Y-l.Max.Y <= main/2 && m.Min.X < l.Max.X && l.Min.X < m.Max.X {
			return true
		}
	}
	return false
}

// cellLength is the median length along line l (in ink's coordinates, w wide) of its
// characters, the runs of its profile along it; 0 for a line of fewer than two.
func cellLength(ink []bool, w int, l image.Rectangle, vertical bool, minChar int) int {
	prof := lineProfile(ink, w, l, vertical, false)
	runs := segments(prof, minChar)
	if len(runs) < 2 {
		return 0
	}
	return raster.Median(runs, runLength)
}

// runLength is a run's length in bins.
func runLength(r [2]int) int { return r[1] - r[0] }

// lineProfile is the ink of line l (in ink's coordinates, w wide) counted across it, bin by bin
// of its thickness (across), or along it, bin by bin of its length.
func lineProfile(ink []bool, w int, l image.Rectangle, vertical, across bool) []int {
	prof := make([]int, page.LineLength(l, vertical != across))
	for y := l.Min.Y; y < l.Max.Y; y++ {
		for x := l.Min.X; x < l.Max.X; x++ {
			if ink[y*w+x] {
				k := y - l.Min.Y
				if vertical == across {
					k = x - l.Min.X
				}
				prof[k]++
			}
		}
	}
	return prof
}

// coreThickness is the thickness of line l (in ink's coordinates, w wide) without the faint
// tails of its ink profile: the span across it holding all but a twentieth of its ink on each
// side, so that a stroke of art or a speed line touching a column does not widen it.
func coreThickness(ink []bool, w int, l image.Rectangle, vertical bool) int {
	prof := lineProfile(ink, w, l, vertical, true)
	n, total := len(prof), 0
	for _, v := range prof {
		total += v
	}
	lo, hi, cut := 0, n, 0
	for lo < hi && cut+prof[lo] <= total/20 {
		cut += prof[lo]
		lo++
	}
	cut = 0
	for hi > lo && cut+prof[hi-1] <= total/20 {
		cut += prof[hi-1]
		hi--
	}
	return max(1, hi-lo)
}

func crossSize(r image.Rectangle, vertical bool) int {
	if vertical {
		return r.Dx()
	}
	return r.Dy()
}

// extent is the bounding box, inside the w×h ink mask, of the ink in one segment.
func extent(ink []bool, w, h int, s [2]int, vertical bool) image.Rectangle {
	var r image.Rectangle
	first := true
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			in := x >= s[0] && x < s[1]
			if !vertical {
				in = y >= s[0] && y < s[1]
			}
			if !in || !ink[y*w+x] {
				continue
			}
			p := image.Rect(x, y, x+1, y+1)
			if first {
				r, first = p, false
			} else {
				r = r.Union(p)
			}
		}
	}
	return r
}

// lineAspect scores a split into lines: the mean length-to-thickness ratio of its lines, weighted
// by their ink. Columns of vertical text are long and thin when split by x; rows of horizontal
// text when split by y.
func lineAspect(segs [][2]int, ink []bool, w, h int, vertical bool) float64 {
	var sum, weight float64
	for _, s := range segs {
		r := extent(ink, w, h, s, vertical)
		if r.Empty() {
			continue
		}
		thick, length := float64(crossSize(r, vertical)), float64(page.LineLength(r, vertical))
		wt := float64(r.Dx() * r.Dy())
		sum += length / thick * wt
		weight += wt
	}
	if weight == 0 {
		return 0
	}
	return sum / weight
}

// tightRuby finds furigana set tight against their column, too close for the projection to
// split off: small marks entirely to the right of the column's body. They leave the mask m (the
// reading mask; erasing takes them with the rest of the bubble), and their boxes are returned.
func tightRuby(m *page.Mask, lines []image.Rectangle, size int) (ruby []image.Rectangle) {
	w := m.Box.Dx()
	for li, l := range lines {
		sub := &raster.Bitmap{W: l.Dx(), H: l.Dy(), On: make([]bool, l.Dx()*l.Dy())}
		for y := l.Min.Y; y < l.Max.Y; y++ {
			for x := l.Min.X; x < l.Max.X; x++ {
				sub.On[(y-l.Min.Y)*sub.W+x-l.Min.X] = m.Has(x, y)
			}
		}
		cl := raster.Label(sub, true)
		var rights, centres, heights []int
		tallest, widest := 0, 0
		for _, c := range cl.Comps {
			if max(c.Box.Dx(), c.Box.Dy())*100 >= size*45 {
				rights, tallest, widest = append(rights, c.Box.Max.X), max(tallest, c.Box.Dy()), max(widest, c.Box.Dx())
				centres, heights = append(centres, c.Box.Min.X+c.Box.Max.X), append(heights, c.Box.Dy())
			}
		}
		// One piece is body enough when it runs the column's length: kanji under one reading touch.
		if len(rights) == 0 || (len(rights) == 1 && tallest*4 < sub.H*3) {
			continue
		}
		sort.Ints(rights)
		body, char := rights[len(rights)*7/10], size
		// Furigana sticking out a third of it widened the column: a character is as wide as the
		// body's widest piece (the body's edge, where most pieces end, falls short of the widest
		// kanji, against which furigana of half its size would look too large).
		if (sub.W-body)*3 >= body {
			char = min(char, max(body, widest))
		}
		// In a short column a kanji its furigana touch (small print, blurred) would set the
		// body's edge at the furigana's: a character is about as wide as it is tall, around the
		// column's axis, and touching furigana only ever move a piece's centre right. (The size
		// of a character stays the column's, so a dakuten is never as big as furigana.)
		if len(rights) <= 4 {
			body = min(body, (lowerMedian(centres)+lowerMedian(heights)*6/5)/2)
		}
		// Vertical punctuation (、。) and small kana also sit right of the body, but alone;
		// furigana come as a run of marks stacked within a character of each other, spread
		// along their kanji. Dakuten and handakuten are smaller still, and a pair of them
		// stacked must not pass for a run of furigana.
		beside := func(c raster.Component) bool {
			return c.Box.Min.X >= body-1 && max(c.Box.Dx(), c.Box.Dy())*100 < char*50
		}
		small := func(c raster.Component) bool { return beside(c) && max(c.Box.Dx(), c.Box.Dy())*100 >= char*24 }
		isRuby := func(c raster.Component) bool {
			return small(c) && slices.ContainsFunc(cl.Comps, func(o raster.Component) bool {
				return o.Box != c.Box && small(o) && raster.Gap(c.Box, o.Box) < char*2/3 && o.Box.Min.X < c.Box.Max.X && c.Box.Min.X < o.Box.Max.X
			})
		}
		// Within a run of furigana, the specks beside the body are furigana blur or JPEG broke.
		var run, keep image.Rectangle
		for _, c := range cl.Comps {
			if isRuby(c) {
				run = run.Union(c.Box.Inset(-char / 2))
			}
		}
		for k, c := range cl.Comps {
			if isRuby(c) || (beside(c) && c.Box.In(run)) {
				id := int32(k + 1)
				for y := c.Box.Min.Y; y < c.Box.Max.Y; y++ {
					for x := c.Box.Min.X; x < c.Box.Max.X; x++ {
						if cl.ID[y*sub.W+x] == id {
							m.Mask[(l.Min.Y+y-m.Box.Min.Y)*w+l.Min.X+x-m.Box.Min.X] = false
						}
					}
				}
				ruby = append(ruby, c.Box.Add(l.Min))
				continue
			}
			keep = keep.Union(c.Box.Add(l.Min))
		}
		if !run.Empty() && !keep.Empty() {
			lines[li] = keep
		}
	}
	return ruby
}

// lowerMedian is the middle of v (the lower one of an even count); v is sorted in place.
func lowerMedian(v []int) int {
	sort.Ints(v)
	return v[(len(v)-1)/2]
}
