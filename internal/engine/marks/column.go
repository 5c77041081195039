package marks

import (
	"image"
	"slices"
	"strings"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// Punctuation at the foot of a vertical column, recognised by its shape.
//
// Tesseract's vertical models read the marks that end a short shout badly: a stacked or
// side-by-side ！？, the three dots of …, the small ring of 。 or the stroke of 、 come back as
// stray kana or kanji (え！？ as "こう信人", 悪い、 as "ュー\ヽ悪い") or leave the whole column unread
// (なに！？ as nothing), and in a shout of two letters that is the whole reading. Their shapes
// are simple and, at the foot of a column, distinctive: a thin bar or a hook over a dot, dots in
// a line, a ring or a short slanted stroke right of centre. So they are recognised from the
// pieces of the column's ink, cut off the crop Tesseract reads, and added to its reading. A mark
// is taken only when its shape leaves no doubt; otherwise the column is read whole, as it always
// was.

// piece is one connected piece of a column's ink.
type piece struct {
	box  image.Rectangle
	area int
	mask []bool // over box, row-major
}

func (p *piece) has(x, y int) bool {
	if !(image.Point{x, y}).In(p.box) {
		return false
	}
	return p.mask[(y-p.box.Min.Y)*p.box.Dx()+x-p.box.Min.X]
}

// cx is the horizontal centre of the piece's box, doubled to stay in integers.
func (p *piece) cx2() int { return p.box.Min.X + p.box.Max.X }

// runs counts the separate runs of ink on row y.
func (p *piece) runs(y int) int {
	n, in := 0, false
	for x := p.box.Min.X; x < p.box.Max.X; x++ {
		h := p.has(x, y)
		if h && !in {
			n++
		}
		in = h
	}
	return n
}

// span is the extent of the ink on row y: from x0 up to x1 (x1 <= x0 when the row is blank).
func (p *piece) span(y int) (x0, x1 int) {
	x0, x1 = p.box.Max.X, p.box.Min.X
	for x := p.box.Min.X; x < p.box.Max.X; x++ {
		if p.has(x, y) {
			x0, x1 = min(x0, x), max(x1, x+1)
		}
	}
	return x0, x1
}

// stroke is the doubled centre of each row's ink, top to bottom, when every row holds a single
// run of it (one stroke down the piece); ok is false otherwise.
func (p *piece) stroke() (xs []int, ok bool) {
	for y := p.box.Min.Y; y < p.box.Max.Y; y++ {
		if p.runs(y) != 1 {
			return nil, false
		}
		x0, x1 := p.span(y)
		xs = append(xs, x0+x1)
	}
	return xs, true
}

// footX2 is the doubled horizontal centre of the piece's lowest rows: where a bar or the stem of
// a hook ends, above its dot.
func (p *piece) footX2() int {
	sum, n := 0, 0
	for y := p.box.Max.Y - max(1, p.box.Dy()/8); y < p.box.Max.Y; y++ {
		for x := p.box.Min.X; x < p.box.Max.X; x++ {
			if p.has(x, y) {
				sum, n = sum+x, n+1
			}
		}
	}
	if n == 0 {
		return p.cx2()
	}
	return (2*sum + n) / n
}

// slab is a run of the column's rows holding ink, with blank rows above and below: a character,
// or one of the strokes or dots of a character that has several one above another.
type slab struct {
	top, bottom int
	pieces      []*piece
}

// column is what the recognisers know of a column: its size of character (c, a column's width)
// and doubled centre, and the page's levels to look for a ring's hole in.
type column struct {
	c      int
	cx2    int
	g      *image.Gray
	inkMax uint8
}

// LeastChar is the least size of character whose marks TrailingMarks recognises: below about 12
// pixels a character's dots and hooks are a pixel or two, and no shape is sure.
const LeastChar = 12

// TrailingMarks recognises the punctuation that ends column l of b. It returns the part of the
// column left for Tesseract (empty when the column is punctuation alone) and the marks in
// reading order; l and "" when it recognises none.
func TrailingMarks(g *image.Gray, inkMax uint8, b *page.Block, l image.Rectangle) (image.Rectangle, string) {
	if b.Char < LeastChar || b.Ink == nil {
		return l, ""
	}
	col := column{c: b.Char, cx2: l.Min.X + l.Max.X, g: g, inkMax: inkMax}
	slabs := slabsOf(piecesOf(b, l))
	var marks []string
	n := len(slabs)
	for n > 0 {
		m, used := col.markAt(slabs[:n])
		if used == 0 {
			break
		}
		marks = append(marks, m)
		n -= used
	}
	if len(marks) == 0 {
		return l, ""
	}
	slices.Reverse(marks)
	rest := image.Rectangle{}
	if n > 0 {
		rest = l
		rest.Max.Y = slabs[n].top
	}
	return rest, strings.Join(marks, "")
}

// piecesOf labels the 8-connected pieces of b's ink inside l, leaving out specks too small to be
// even a dot.
func piecesOf(b *page.Block, l image.Rectangle) []*piece {
	w, h := l.Dx(), l.Dy()
	seen := make([]bool, w*h)
	speck := max(2, b.Char*b.Char/400)
	var out []*piece
	var stack []image.Point
	for y := l.Min.Y; y < l.Max.Y; y++ {
		for x := l.Min.X; x < l.Max.X; x++ {
			if seen[(y-l.Min.Y)*w+x-l.Min.X] || !b.InkAt(x, y) {
				continue
			}
			var pts []image.Point
			stack = append(stack[:0], image.Pt(x, y))
			seen[(y-l.Min.Y)*w+x-l.Min.X] = true
			for len(stack) > 0 {
				p := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				pts = append(pts, p)
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						q := image.Pt(p.X+dx, p.Y+dy)
						if !q.In(l) || seen[(q.Y-l.Min.Y)*w+q.X-l.Min.X] || !b.InkAt(q.X, q.Y) {
							continue
						}
						seen[(q.Y-l.Min.Y)*w+q.X-l.Min.X] = true
						stack = append(stack, q)
					}
				}
			}
			if len(pts) < speck {
				continue
			}
			box := image.Rectangle{Min: pts[0], Max: pts[0].Add(image.Pt(1, 1))}
			for _, p := range pts {
				box = box.Union(image.Rectangle{Min: p, Max: p.Add(image.Pt(1, 1))})
			}
			pc := &piece{box: box, area: len(pts), mask: make([]bool, box.Dx()*box.Dy())}
			for _, p := range pts {
				pc.mask[(p.Y-box.Min.Y)*box.Dx()+p.X-box.Min.X] = true
			}
			out = append(out, pc)
		}
	}
	return out
}

// slabsOf groups pieces whose rows overlap, top to bottom.
func slabsOf(pieces []*piece) []slab {
	slices.SortFunc(pieces, func(a, b *piece) int { return a.box.Min.Y - b.box.Min.Y })
	var out []slab
	for _, p := range pieces {
		if n := len(out); n > 0 && p.box.Min.Y < out[n-1].bottom {
			out[n-1].bottom = max(out[n-1].bottom, p.box.Max.Y)
			out[n-1].pieces = append(out[n-1].pieces, p)
			continue
		}
		out = append(out, slab{top: p.box.Min.Y, bottom: p.box.Max.Y, pieces: []*piece{p}})
	}
	for _, s := range out {
		slices.SortFunc(s.pieces, func(a, b *piece) int { return a.box.Min.X - b.box.Min.X })
	}
	return out
}

// markAt recognises the mark that the last of slabs is the foot of, and how many slabs it takes
// (0 when it is no mark beyond doubt).
func (col column) markAt(slabs []slab) (string, int) {
	last := slabs[len(slabs)-1]
	var above *slab
	if len(slabs) > 1 {
		above = &slabs[len(slabs)-2]
	}
	switch len(last.pieces) {
	case 1:
		p := last.pieces[0]
		if col.ring(p) {
			return "。", 1
		}
		if col.wave(p) {
			return "〜", 1
		}
		if col.comma(p) && (above == nil || len(above.pieces) != 1 || col.overDot(above.pieces[0], p) == "") {
			return "、", 1
		}
		if !col.dot(p) || raster.Abs(p.cx2()-col.cx2)*100 > col.c*2*22 {
			return "", 0
		}
		if above != nil && len(above.pieces) == 1 {
			if m := col.overDot(above.pieces[0], p); m != "" {
				return m, 2
			}
		}
		return col.ellipsis(slabs)
	case 2:
		// Two marks side by side in one cell (tate-chu-yoko): ！？, ！！, ？！.
		d0, d1 := last.pieces[0], last.pieces[1]
		if above == nil || !col.dot(d0) || !col.dot(d1) || d0.box.Max.X > d1.box.Min.X ||
			raster.Abs(d0.cx2()+d1.cx2()-2*col.cx2)*100 > col.c*2*25 {
			return "", 0
		}
		// A speck of JPEG noise between the two strokes, far smaller than their dots, is none.
		var strokes []*piece
		for _, p := range above.pieces {
			if p.area*4 >= min(d0.area, d1.area) {
				strokes = append(strokes, p)
			}
		}
		if len(strokes) != 2 {
			return "", 0
		}
		m0, m1 := col.overDot(strokes[0], d0), col.overDot(strokes[1], d1)
		if m0 == "" || m1 == "" {
			return "", 0
		}
		return m0 + m1, 2
	}
	return "", 0
}

// overDot names the mark that p over the dot d makes: ！ for a thin bar, ？ for a hook, "" for
// anything else or a dot not right under p's foot.
func (col column) overDot(p, d *piece) string {
	c := col.c
	gap := d.box.Min.Y - p.box.Max.Y
	if gap < 1 || gap*100 > c*35 || raster.Abs(p.footX2()-d.cx2())*100 > c*2*15 {
		return ""
	}
	switch {
	case col.bar(p):
		return "！"
	case col.hook(p):
		return "？"
	}
	return ""
}

// dot: small, compact and about as tall as wide.
func (col column) dot(p *piece) bool {
	w, h, c := p.box.Dx(), p.box.Dy(), col.c
	return w*100 <= c*32 && h*100 <= c*32 && max(w, h)*100 >= c*5 &&
		w*10 <= h*25 && h*10 <= w*25 && p.area*10 >= w*h*4
}

// bar: the stroke of ！, tall and thin, one run of ink on every row.
func (col column) bar(p *piece) bool {
	w, h, c := p.box.Dx(), p.box.Dy(), col.c
	if h*100 < c*30 || h*100 > c*110 || w*100 > c*32 || h < w*2 {
		return false
	}
	for y := p.box.Min.Y; y < p.box.Max.Y; y++ {
		if p.runs(y) != 1 {
			return false
		}
	}
	return true
}

// hook: the curl of ？, an arch whose open end leaves two runs of ink on some rows of its upper
// part (or a heavy one that ends in a thin foot), over a narrow stem.
func (col column) hook(p *piece) bool {
	w, h, c := p.box.Dx(), p.box.Dy(), col.c
	if h*100 < c*25 || h*100 > c*100 || w*100 < c*15 || w*100 > c*75 || h*10 < w*9 {
		return false
	}
	split := 0
	for y := p.box.Min.Y; y < p.box.Min.Y+h*2/3; y++ {
		if p.runs(y) >= 2 {
			split++
		}
	}
	if split == 0 && !col.footed(p) {
		return false
	}
	// The stem: the lowest quarter is narrow.
	for y := p.box.Max.Y - max(1, h/4); y < p.box.Max.Y; y++ {
		x0, x1 := p.span(y)
		if (x1-x0)*10 > w*6 {
			return false
		}
	}
	return true
}

// wave: the 〜 of a drawn-out vowel, turned down the column: a tall, thin stroke, one run of ink
// on every row, that swings from side to side and back (twice; a く swings once, a ー not).
func (col column) wave(p *piece) bool {
	w, h, c := p.box.Dx(), p.box.Dy(), col.c
	if h*100 < c*50 || h*100 > c*110 || w*100 < c*12 || w*100 > c*45 || h*10 < w*18 {
		return false
	}
	xs, ok := p.stroke()
	if !ok {
		return false
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	if (hi-lo)*100 < c*2*10 {
		return false
	}
	// Count the turns, each a swing back of at least a third of the range.
	th := max(1, (hi-lo)/3)
	turns, dir, lo0, hi0, ext := 0, 0, xs[0], xs[0], xs[0]
	for _, x := range xs[1:] {
		switch {
		case dir == 0:
			lo0, hi0 = min(lo0, x), max(hi0, x)
			if x-lo0 >= th {
				dir, ext = 1, x
			} else if hi0-x >= th {
				dir, ext = -1, x
			}
		case dir*(x-ext) > 0:
			ext = x
		case raster.Abs(x-ext) >= th:
			turns, dir, ext = turns+1, -dir, x
		}
	}
	return turns >= 2
}

// footed: a heavy ？ whose curl closes on its ball leaves no row split, but ends in a stem a
// third as wide as the piece or less.
func (col column) footed(p *piece) bool {
	for y := p.box.Max.Y - max(1, p.box.Dy()/8); y < p.box.Max.Y; y++ {
		x0, x1 := p.span(y)
		if (x1-x0)*3 > p.box.Dx() {
			return false
		}
	}
	return true
}

// ellipsis recognises … (three dots in a line down the middle of a cell, evenly spaced) at the
// foot of slabs, or several of them; a run of dots that is not whole ellipses is left alone.
func (col column) ellipsis(slabs []slab) (string, int) {
	var dots []*piece
	for i := len(slabs) - 1; i >= 0; i-- {
		s := slabs[i]
		if len(s.pieces) != 1 || !col.dot(s.pieces[0]) || raster.Abs(s.pieces[0].cx2()-col.cx2)*100 > col.c*2*22 {
			break
		}
		if len(dots) > 0 {
			prev := dots[len(dots)-1]
			step := prev.box.Min.Y + prev.box.Max.Y - s.pieces[0].box.Min.Y - s.pieces[0].box.Max.Y // doubled
			if step*100 < col.c*2*15 || step*100 > col.c*2*60 || raster.Abs(s.pieces[0].cx2()-dots[0].cx2())*100 > col.c*2*12 {
				break
			}
		}
		dots = append(dots, s.pieces[0])
	}
	if len(dots) < 3 || len(dots)%3 != 0 {
		return "", 0
	}
	lo, hi := 1<<30, 0
	for i := 1; i < len(dots); i++ {
		step := dots[i-1].box.Min.Y + dots[i-1].box.Max.Y - dots[i].box.Min.Y - dots[i].box.Max.Y
		lo, hi = min(lo, step), max(hi, step)
	}
	if hi*10 > lo*16 {
		return "", 0
	}
	return strings.Repeat("…", len(dots)/3), len(dots)
}

// comma: the 、 of a pause, set right of the column's centre like 。 (a column that ends in it
// is often read from the mark upward as noise), one short stroke leaning down to the right.
// A small っ leans the other way and a closing bracket ends in a bar across its width.
func (col column) comma(p *piece) bool {
	w, h, c := p.box.Dx(), p.box.Dy(), col.c
	if w*100 < c*10 || h*100 < c*10 || w*100 > c*45 || h*100 > c*45 || w*10 < h*4 || h*10 < w*4 ||
		(p.cx2()-col.cx2)*100 < c*2*10 || h < 3 || col.holed(p) {
		return false
	}
	xs, ok := p.stroke()
	if x0, x1 := p.span(p.box.Max.Y - 1); !ok || (x1-x0)*10 > w*7 {
		return false
	}
	third := max(1, h/3)
	top, bottom := 0, 0
	for i := range third {
		top += xs[i]
		bottom += xs[h-1-i]
	}
	// Leaning right by at least a quarter of its width (doubled centres, summed over a third).
	return (bottom-top)*100 >= third*w*2*25
}

// ring: the small circle of 。, right of the column's centre (vertical lettering sets it in the
// upper right of its cell), with a hole.
func (col column) ring(p *piece) bool {
	w, h, c := p.box.Dx(), p.box.Dy(), col.c
	if w*100 < c*12 || h*100 < c*12 || w*100 > c*50 || h*100 > c*50 || w*10 < h*6 || h*10 < w*6 ||
		(p.cx2()-col.cx2)*100 < c*2*10 {
		return false
	}
	return col.holed(p)
}

// holed reports whether p encloses paper: pixels off the piece that the paper around it does
// not reach, or, for a thin ring whose anti-aliased hole the piece takes in, pixels lighter
// than ink, or a ring in the grey page whose binarized rim is open.
func (col column) holed(p *piece) bool {
	return raster.Enclosed(p.box, func(x, y int) bool { return !p.has(x, y) }) ||
		raster.Enclosed(p.box, func(x, y int) bool { return !p.has(x, y) || col.g.GrayAt(x, y).Y >= col.inkMax }) ||
		raster.RingInGrey(col.g, p.box)
}

// RowEllipsis recognises the … that ends row l of b (dots across the middle of a cell, evenly
// spaced; Chinese sets two, ……) and returns the part of the row left for Tesseract and the
// marks; l and "" when the row ends otherwise. Tesseract's row models read a run of small dots
// as anything (能…… as 能… ee, as 能.), or drop it with the character before. At small sizes a
// dot may be lost to the mask: the dots stand on one pitch, a step of two where one is missing,
// and their count is the pitches they span.
func RowEllipsis(g *image.Gray, inkMax uint8, b *page.Block, l image.Rectangle) (image.Rectangle, string) {
	if b.Char < 8 || b.Ink == nil {
		return l, ""
	}
	col := column{c: b.Char, g: g, inkMax: inkMax}
	pieces := piecesOf(b, l)
	slices.SortFunc(pieces, func(p, q *piece) int { return q.box.Max.X - p.box.Max.X }) // right to left
	mid2 := l.Min.Y + l.Max.Y
	var dots []*piece
	var steps []int // doubled, between the centres of neighbouring dots
	for _, p := range pieces {
		cy2 := p.box.Min.Y + p.box.Max.Y
		if !col.dot(p) || raster.Abs(cy2-mid2)*100 > b.Char*2*22 {
			break
		}
		if n := len(dots); n > 0 {
			step := dots[n-1].cx2() - p.cx2()
			if step*100 < b.Char*2*15 || step*100 > b.Char*2*120 || raster.Abs(cy2-dots[0].box.Min.Y-dots[0].box.Max.Y)*100 > b.Char*2*12 {
				break
			}
			steps = append(steps, step)
		}
		dots = append(dots, p)
	}
	if len(dots) < 3 {
		return l, ""
	}
	pitch := slices.Min(steps)
	for _, s := range steps {
		if k := (s + pitch/2) / pitch; k > 2 || s*100 > k*pitch*125 || s*100 < k*pitch*80 {
			return l, ""
		}
	}
	marks := "…"
	switch n := (dots[0].cx2()-dots[len(dots)-1].cx2()+pitch/2)/pitch + 1; {
	case n > 9 || n > len(dots)+1:
		return l, ""
	case n >= 4:
		marks = "……"
	}
	rest := image.Rectangle{}
	if left := dots[len(dots)-1].box.Min.X; left-l.Min.X >= b.Char/2 {
		rest = l
		rest.Max.X = left
	}
	return rest, marks
}
