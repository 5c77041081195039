package lines

import (
	"image"
	"slices"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
)

// column is n characters size pixels square down from (x, y), a fifth of size apart, each a
// square outline of strokes a sixth of its size (what a projection sees of a kanji).
func column(x, y, size, n int) []image.Rectangle {
	var out []image.Rectangle
	for i := range n {
		out = append(out, image.Rect(x, y+i*(size+size/5), x+size, y+i*(size+size/5)+size))
	}
	return out
}

func row(x, y, size, n int) []image.Rectangle {
	var out []image.Rectangle
	for i := range n {
		out = append(out, image.Rect(x+i*(size+size/5), y, x+i*(size+size/5)+size, y+size))
	}
	return out
}

// inked is the mask of the characters, each drawn as a square outline.
func inked(chars []image.Rectangle) *page.Mask {
	var box image.Rectangle
	for _, c := range chars {
		box = box.Union(c)
	}
	m := page.NewMask(box)
	for _, c := range chars {
		s := max(1, c.Dx()/6)
		for y := c.Min.Y; y < c.Max.Y; y++ {
			for x := c.Min.X; x < c.Max.X; x++ {
				if x < c.Min.X+s || x >= c.Max.X-s || y < c.Min.Y+s || y >= c.Max.Y-s {
					m.Mask[(y-box.Min.Y)*box.Dx()+x-box.Min.X] = true
				}
			}
		}
	}
	return m
}

func TestSplit(t *testing.T) {
	cat := func(parts ...[]image.Rectangle) []image.Rectangle {
		var out []image.Rectangle
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	cases := []struct {
		name        string
		chars       []image.Rectangle
		vertical    bool
		lines, ruby int
		char        int
	}{
		{"two columns", cat(column(100, 0, 30, 5), column(40, 0, 30, 4)), true, 2, 0, 30},
		{"three rows", cat(row(0, 0, 30, 6), row(0, 40, 30, 6), row(0, 80, 30, 3)), false, 3, 0, 30},
		// Furigana: half-size marks right of a column, against it.
		{"furigana right of a column", cat(column(100, 0, 30, 5), column(40, 0, 30, 4), column(133, 10, 12, 4)), true, 2, 1, 30},
		// The same thin column left of the last one is the narrow kana that end the lettering.
		{"narrow last column", cat(column(100, 0, 30, 5), column(40, 0, 30, 4), column(18, 0, 14, 2)), true, 3, 0, 30},
		// Columns of one to four characters set apart, the longest last (全然。|今|来た|ところ。):
		// as rows they would be longer, but those rows lie a sliver apart.
		{"short columns, the longest last", cat(column(138, 0, 30, 3), column(92, 0, 30, 1), column(46, 0, 30, 2), column(0, 0, 30, 4)), true, 4, 0, 30},
	}
	for _, c := range cases {
		lay := Split(inked(c.chars), 8)
		if lay == nil {
			t.Errorf("%s: no layout", c.name)
			continue
		}
		if lay.Vertical != c.vertical || len(lay.Lines) != c.lines || len(lay.Ruby) != c.ruby || lay.Char != c.char {
			t.Errorf("%s: vertical %v, %d lines %v, furigana %v, character %d; want vertical %v, %d lines, %d furigana, character %d",
				c.name, lay.Vertical, len(lay.Lines), lay.Lines, lay.Ruby, lay.Char, c.vertical, c.lines, c.ruby, c.char)
		}
	}
	// Columns run right to left.
	lay := Split(inked(cat(column(40, 0, 30, 4), column(100, 0, 30, 5))), 8)
	if lay.Lines[0].Min.X != 100 {
		t.Errorf("columns in order %v, want the right one first", lay.Lines)
	}
	if Split(page.NewMask(image.Rect(0, 0, 10, 10)), 8) != nil {
		t.Error("an empty mask has a layout")
	}
}

// Two columns of a square block (今度こそ|倒して) whose left one's furigana fill the gap between
// them, and whose first two characters touch: as rows, the block is one tall row and two short
// ones, flush right and ragged left by a short row's height, which is how columns read from the
// right end, not rows. (Measured against the tall row, the left edges would not look ragged.)
func TestSplitColumnsWithFuriganaBetween(t *testing.T) {
	chars := []image.Rectangle{
		image.Rect(46, 0, 76, 24), image.Rect(46, 25, 76, 49), image.Rect(46, 54, 76, 78), image.Rect(46, 83, 76, 107), // 今度こそ
		image.Rect(0, 0, 30, 24), image.Rect(0, 25, 30, 49), image.Rect(0, 54, 30, 78), // 倒して
		image.Rect(33, 2, 45, 12), image.Rect(33, 14, 45, 24), // たお, beside 倒 and against 今
	}
	lay := Split(inked(chars), 8)
	if lay == nil || !lay.Vertical || len(lay.Lines) != 2 {
		t.Fatalf("laid out as %+v, want two columns", lay)
	}
}

// A stroke of art poking into a balloon beside a column is not a line of lettering.
func TestSplitLeavesStrokes(t *testing.T) {
	chars := append(column(100, 0, 30, 5), image.Rect(60, 40, 88, 46))
	lay := Split(inked(chars), 8)
	if lay == nil || len(lay.Lines) != 1 || len(lay.Ruby) != 1 {
		t.Fatalf("a column and a stroke beside it laid out as %+v, want one line and the stroke left out", lay)
	}
}

// The tip of a speed line ending at a borderless balloon, beside its columns, is wider than
// the columns and shorter than it is wide: not the lettering's measure, against which the
// columns would be furigana, but a stroke left out.
func TestSplitLeavesATipWiderThanTheColumns(t *testing.T) {
	chars := append(column(60, 0, 16, 6), column(84, 20, 16, 3)...)
	chars = append(chars, image.Rect(10, 0, 43, 13))
	lay := Split(inked(chars), 7)
	if lay == nil || !lay.Vertical || len(lay.Lines) != 2 || lay.Char != 16 {
		t.Fatalf("two columns and a tip beside them laid out as %+v, want two columns 16 wide", lay)
	}
}

// Four short columns set close, each centred in the balloon (私は|あなたの|ために|戦う。), two of
// them joined by a speck of JPEG noise in the gap between them: the speck does not make the two
// one thick column, against which the block would read better as rows.
func TestSplitColumnsJoinedByASpeck(t *testing.T) {
	var chars []image.Rectangle
	for i, n := range []int{2, 4, 3, 3} {
		h := n*14 - 2
		chars = append(chars, column(45-15*i, (54-h)/2, 12, n)...)
	}
	m := inked(chars)
	m.Mask[20*m.Box.Dx()+43] = true // in the 3-pixel gap between the first two columns
	lay := Split(m, 7)
	if lay == nil || !lay.Vertical || len(lay.Lines) != 4 || lay.Char != 12 {
		t.Fatalf("four columns joined by a speck laid out as %+v, want four columns 12 wide", lay)
	}
}

// Three columns of two characters (俺が|守る。|必ず。), the left two ending in a 。 at the same
// height: as rows the block is longer, but its last row would be nothing but two 。, which no
// row of horizontal lettering is.
func TestSplitColumnsEndingInPunctuationSideBySide(t *testing.T) {
	chars := slices.Concat(column(38, 0, 16, 2), column(19, 0, 16, 2), column(0, 0, 16, 2),
		[]image.Rectangle{image.Rect(23, 41, 29, 46), image.Rect(4, 41, 10, 46)})
	lay := Split(inked(chars), 7)
	if lay == nil || !lay.Vertical || len(lay.Lines) != 3 {
		t.Fatalf("three columns ending in 。 laid out as %+v, want three columns", lay)
	}
	// The same marks under rows are not taken for such a row when they are as thick as a
	// character's stroke row: rows of horizontal lettering stay rows.
	rows := slices.Concat(row(0, 0, 16, 5), row(0, 20, 16, 5))
	if lay := Split(inked(rows), 7); lay == nil || lay.Vertical || len(lay.Lines) != 2 {
		t.Fatalf("two rows laid out as %+v, want two rows", lay)
	}
}

// Three columns of two characters (静か|誰か|来る。), only the last ending in a 。, set with their
// characters farther apart than their columns: as rows the block reads better, but its last row
// would be a lone 。, which horizontal lettering never sets in a row of its own. A speck as far
// below the lettering as a row is apart, or one of noise right under it, is no such mark, and
// rows stay rows.
func TestSplitColumnsOneEndingInPunctuation(t *testing.T) {
	var chars []image.Rectangle
	for i, x := range []int{36, 18, 0} {
		chars = append(chars, image.Rect(x, 0, x+16, 16), image.Rect(x, 24, x+16, 40))
		if i == 2 {
			chars = append(chars, image.Rect(x+4, 43, x+10, 48))
		}
	}
	lay := Split(inked(chars), 7)
	if lay == nil || !lay.Vertical || len(lay.Lines) != 3 {
		t.Fatalf("three columns, the last ending in 。, laid out as %+v, want three columns", lay)
	}
	for _, speck := range []image.Rectangle{image.Rect(4, 50, 10, 55), image.Rect(6, 43, 8, 45)} {
		chars[len(chars)-1] = speck
		if lay := Split(inked(chars), 7); lay == nil || lay.Vertical {
			t.Fatalf("rows with a speck at %v under them laid out as %+v, want rows", speck, lay)
		}
	}
}

// Columns of a few characters side by side (全然。|今|来た|ところ。) whose characters line up in
// rows, a speck of noise in each gap between them: the faint gaps between the characters are no
// rows, and the block stays columns.
func TestSplitColumnsWithSpecksBetweenTheirCharacters(t *testing.T) {
	chars := slices.Concat(column(60, 0, 14, 3), column(40, 0, 14, 1), column(20, 0, 14, 2), column(0, 0, 14, 3))
	m := inked(chars)
	for _, y := range []int{14, 15, 30, 31} {
		m.Mask[y*m.Box.Dx()+66] = true
	}
	lay := Split(m, 7)
	if lay == nil || !lay.Vertical || len(lay.Lines) != 4 {
		t.Fatalf("four columns laid out as %+v, want four columns", lay)
	}
}

// Three columns of two characters (静か|誰か|来る。) whose first runs on over a tone that cuts
// its third character to its top strokes: as rows the block is longer than as columns, and its
// last row is no row of marks. But its characters stand half as far again apart across as down,
// which is how columns are set (rows are set solid along them, their leading between them), so
// it is columns; the same characters set the other way round stay rows.
func TestSplitColumnsSetWiderApartThanTheirCharacters(t *testing.T) {
	grid := func(across, down int) []image.Rectangle {
		var chars []image.Rectangle
		for i := range 3 {
			x := i * (30 + across)
			chars = append(chars, image.Rect(x, 0, x+30, 30), image.Rect(x, 30+down, x+30, 60+down))
		}
		return chars
	}
	chars := append(grid(8, 5), image.Rect(76, 70, 106, 78), image.Rect(6, 68, 14, 76))
	lay := Split(inked(chars), 8)
	if lay == nil || !lay.Vertical || len(lay.Lines) != 3 {
		t.Fatalf("three columns set wider apart than their characters laid out as %+v, want three columns", lay)
	}
	if lay := Split(inked(grid(5, 8)), 8); lay == nil || lay.Vertical || len(lay.Lines) != 2 {
		t.Fatalf("two rows set wider apart than their characters laid out as %+v, want two rows", lay)
	}
}

// Two columns of four characters (ごめん、|待った？ in a toned balloon) whose only gap holds a
// dot of the tone, so that the projection sees one run: as one column the block is no longer
// than as four rows of two, which it was read as. The rows show how wide a character is, and
// the faint gap parts the columns; the fainter stretch beside a stroke at the left of the
// second column (the left stroke of ご) would leave a sliver and is passed over. A column of
// い, two strokes with a dot between, is still one column.
func TestSplitColumnsWhoseGapHoldsADot(t *testing.T) {
	m := page.NewMask(image.Rect(0, 0, 83, 184))
	set := func(x0, y0, x1, y1 int) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				m.Mask[y*83+x] = true
			}
		}
	}
	for i := range 4 {
		y := i * 48
		set(0, y, 40, y+6) // the left column: square outlines
		set(0, y+34, 40, y+40)
		set(0, y, 6, y+40)
		set(34, y, 40, y+40)
		set(43, y+4, 46, y+36) // the right column: a stroke at the left, then a square
		set(49, y, 83, y+6)
		set(49, y+34, 83, y+40)
		set(49, y, 55, y+40)
		set(77, y, 83, y+40)
	}
	set(40, 20, 41, 21) // the tone's dots in the gap
	set(42, 100, 43, 101)
	set(46, 70, 47, 71) // specks beside the stroke
	set(47, 120, 48, 121)
	set(48, 150, 49, 151)
	lay := Split(m, 12)
	if lay == nil || !lay.Vertical || len(lay.Lines) != 2 || lay.Lines[0].Min.X > 43 || lay.Lines[0].Max.X != 83 || lay.Lines[1].Max.X > 42 {
		t.Fatalf("two columns whose gap holds a dot laid out as %+v, want the columns 43–83 and 0–40", lay)
	}

	i := page.NewMask(image.Rect(0, 0, 28, 150))
	for k := range 5 {
		y := k * 30
		for yy := y; yy < y+26; yy++ {
			for x := range 28 {
				i.Mask[yy*28+x] = x < 12 || x >= 16
			}
		}
	}
	i.Mask[12*28+13], i.Mask[40*28+14] = true, true
	if lay := Split(i, 12); lay == nil || !lay.Vertical || len(lay.Lines) != 1 {
		t.Fatalf("a column of い laid out as %+v, want one column", lay)
	}
}

// Three columns (楽しみだ|文化祭、|来週の, read right to left) with furigana beside the middle
// one, on a tone whose dots a halo clipped: the fragments beside the left column widen it, and
// beside it the middle column looked as thin as furigana and was dropped with them. Its
// characters stand as tall along it as the other columns' do, and furigana's half as tall.
func TestSplitColumnBesideOneWidenedByArtIsNoFurigana(t *testing.T) {
	chars := slices.Concat(column(0, 0, 36, 4), column(84, 0, 36, 4), column(144, 0, 36, 3), column(122, 4, 14, 5))
	for k := range 30 {
		x, y := 37+k*7%32, k*13%158
		chars = append(chars, image.Rect(x, y, x+8, y+8))
	}
	lay := Split(inked(chars), 10)
	if lay == nil || !lay.Vertical || len(lay.Lines) != 3 || lay.Lines[1].Min.X != 84 ||
		!slices.ContainsFunc(lay.Ruby, func(r image.Rectangle) bool { return r.Min.X == 122 }) {
		t.Fatalf("three columns, the left widened by specks, laid out as %+v; want three columns and the furigana at x 122", lay)
	}
}
