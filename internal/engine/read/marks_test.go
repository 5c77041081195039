package read

import (
	"context"
	"image"
	"image/draw"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/vtsproject/vts/internal/engine/find"
	"github.com/vtsproject/vts/internal/engine/marks"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// Vertical columns drawn the way letterers set them: characters upright in square cells down
// the column, ！ and ？ upright, ！？ side by side in one cell (tate-chu-yoko) or stacked, … and ー
// turned a quarter, 。 in the upper right of its cell.

type testFace struct {
	name, path string
	index      int
}

var columnFaces = []testFace{
	{"IPAMincho", "/usr/share/fonts/opentype/ipafont-mincho/ipam.ttf", 0},
	{"IPAGothic", "/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf", 0},
	{"Noto Sans CJK JP Bold", "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", 0},
}

func openFace(t *testing.T, f testFace, size float64) font.Face {
	t.Helper()
	data, err := os.ReadFile(f.path)
	if err != nil {
		t.Fatalf("the font %s is needed: %v", f.name, err)
	}
	c, err := opentype.ParseCollection(data)
	if err != nil {
		t.Fatal(err)
	}
	fnt, err := c.Font(f.index)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(fnt, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { face.Close() })
	return face
}

func glyphAt(dst *image.Alpha, face font.Face, r rune, x, y float64) {
	dot := fixed.Point26_6{X: fixed.Int26_6(math.Round(x * 64)), Y: fixed.Int26_6(math.Round(y * 64))}
	if dr, mask, mp, _, ok := face.Glyph(dot, r); ok {
		draw.DrawMask(dst, dr, image.Opaque, image.Point{}, mask, mp, draw.Over)
	}
}

// drawColumn letters text down one column of cells size pixels square, its top-left cell at
// (x, y); tcy sets ！？, ？！ and ！！ side by side in one cell.
func drawColumn(dst *image.Alpha, face font.Face, text string, x, y, size float64, tcy bool) {
	rs := []rune(text)
	pitch := size * 1.05
	half := map[rune]rune{'！': '!', '？': '?'}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		base := y + 0.88*size
		switch {
		case tcy && i+1 < len(rs) && half[r] != 0 && half[rs[i+1]] != 0:
			for k, m := range []rune{half[r], half[rs[i+1]]} {
				adv, _ := face.GlyphAdvance(m)
				glyphAt(dst, face, m, x+size*(0.28+0.44*float64(k))-float64(adv)/128, base)
			}
			i++
		case r == '。' || r == '、':
			glyphAt(dst, face, r, x+0.56*size, base-0.56*size)
		case r == 'ー' || r == '…' || r == '〜':
			// Turned a quarter about the centre of its ink, which goes to the cell's centre.
			tmp := image.NewAlpha(image.Rect(int(x)-int(size), int(y)-int(size), int(x+2*size), int(y+2*size)))
			glyphAt(tmp, face, r, x, base)
			ink := image.Rectangle{}
			for py := tmp.Rect.Min.Y; py < tmp.Rect.Max.Y; py++ {
				for px := tmp.Rect.Min.X; px < tmp.Rect.Max.X; px++ {
					if tmp.AlphaAt(px, py).A > 0 {
						ink = ink.Union(image.Rect(px, py, px+1, py+1))
					}
				}
			}
			icx, icy := (ink.Min.X+ink.Max.X)/2, (ink.Min.Y+ink.Max.Y)/2
			cx, cy := int(x+size/2), int(y+size/2)
			for py := ink.Min.Y; py < ink.Max.Y; py++ {
				for px := ink.Min.X; px < ink.Max.X; px++ {
					if a := tmp.AlphaAt(px, py); a.A > 0 {
						dst.SetAlpha(cx-(py-icy), cy+(px-icx), a)
					}
				}
			}
		default:
			adv, _ := face.GlyphAdvance(r)
			glyphAt(dst, face, r, x+(size-float64(adv)/64)/2, base)
		}
		y += pitch
	}
}

// columnPage letters each text as a column of its own, side by side, black on white, and
// returns the page's levels and one block per column as the finder makes them: the column's ink
// as its line and mask, its width as the size of a character, inside a bubble.
func columnPage(t *testing.T, face font.Face, size float64, tcy bool, texts ...string) (*page.Analysis, []*page.Block) {
	t.Helper()
	slot := int(size * 2)
	h := int(size*1.05*8) + 2*int(size)
	a := image.NewAlpha(image.Rect(0, 0, slot*len(texts)+slot, h))
	for i, text := range texts {
		drawColumn(a, face, text, float64(slot/2+i*slot), size, size, tcy)
	}
	g := image.NewGray(a.Rect)
	for i, v := range a.Pix {
		g.Pix[i] = 255 - v
	}
	pa := &page.Analysis{Gray: g, Paper: 255, InkMax: 128, InkSoft: 191}
	var blocks []*page.Block
	for i := range texts {
		slotR := image.Rect(slot/2+i*slot-slot/4, 0, slot/2+i*slot+slot*3/4, h)
		var ink image.Rectangle
		for y := slotR.Min.Y; y < slotR.Max.Y; y++ {
			for x := slotR.Min.X; x < slotR.Max.X; x++ {
				if g.GrayAt(x, y).Y < pa.InkSoft {
					ink = ink.Union(image.Rect(x, y, x+1, y+1))
				}
			}
		}
		m := page.NewMask(ink)
		for y := ink.Min.Y; y < ink.Max.Y; y++ {
			for x := ink.Min.X; x < ink.Max.X; x++ {
				if g.GrayAt(x, y).Y < pa.InkSoft {
					m.Mask[(y-ink.Min.Y)*ink.Dx()+x-ink.Min.X] = true
					m.Area++
				}
			}
		}
		blocks = append(blocks, &page.Block{Box: ink, Vertical: true, Lines: []image.Rectangle{ink}, Char: ink.Dx(),
			Ink: m, Bubble: page.NewMask(ink.Inset(-int(size)))})
	}
	return pa, blocks
}

// cells counts the cells text takes down a column.
func cells(text string, tcy bool) int {
	n := len([]rune(text))
	if tcy {
		n -= strings.Count(text, "！？") + strings.Count(text, "？！") + strings.Count(text, "！！")
	}
	return n
}

// The marks at the foot of a column are told by their shapes in every face and at small and
// large sizes, stacked or side by side, and cut off the column; the last character of a column
// without punctuation is never taken for one, whatever its strokes (the two of こ, the bar of
// ー, the three of ミ), and such a column is left whole.
func TestTrailingMarksByShape(t *testing.T) {
	cases := []struct {
		text, marks string
		tcy         bool
	}{
		{"え！？", "！？", false},
		{"え！？", "！？", true},
		{"なに！？", "！？", false},
		{"なに！？", "！？", true},
		{"嘘…", "…", false},
		{"別に。", "。", false},
		{"まかせて！", "！", false},
		{"キャー！", "！", false},
		{"ね？", "？", false},
		{"待て！！", "！！", false},
		{"待て！！", "！！", true},
		{"そんな…？", "…？", false},
		{"そうか……", "……", false},
		{"悪い、", "、", false},
		{"ちょっ、", "、", false},
		{"そう、", "、", false},
		{"キャー", "", false},
		{"あっ", "", false},
		{"ちょっ", "", false},
		{"ヤッ", "", false},
		{"行くぞ", "", false},
		{"遅刻しちゃう〜！", "〜！", false},
		{"行く！", "！", false},
		{"行く", "", false},
		{"別に", "", false},
		{"ここ", "", false},
		{"ミミ", "", false},
		{"三二", "", false},
		{"いいえ", "", false},
		{"うん", "", false},
		{"ほら", "", false},
	}
	for _, f := range columnFaces {
		for _, size := range []float64{20, 24, 28, 32, 40, 56} {
			face := openFace(t, f, size)
			for _, tcy := range []bool{false, true} {
				var texts, want []string
				for _, c := range cases {
					if c.tcy == tcy {
						texts, want = append(texts, c.text), append(want, c.marks)
					}
				}
				pa, blocks := columnPage(t, face, size, tcy, texts...)
				for i, b := range blocks {
					l := b.Lines[0]
					rest, got := marks.TrailingMarks(pa.Gray, pa.InkMax, b, l)
					switch {
					case got != want[i]:
						t.Errorf("%s %.0f px: %q ends in %q, recognised %q", f.name, size, texts[i], want[i], got)
					case got == "" && rest != l:
						t.Errorf("%s %.0f px: %q without marks was cut to %v of %v", f.name, size, texts[i], rest, l)
					case got != "" && got != texts[i]:
						// The cut falls in the first cell of the marks, above their ink.
						top := size + size*1.05*float64(cells(texts[i], tcy)-cells(got, tcy))
						if rest.Min != l.Min || float64(rest.Max.Y) < top || float64(rest.Max.Y) > top+size/2 {
							t.Errorf("%s %.0f px: %q left %v of %v to read, not down to %.0f", f.name, size, texts[i], rest, l, top)
						}
					}
				}
			}
		}
	}
}

// Short shouts whose punctuation Tesseract reads as stray characters, or for which it reads
// nothing at all (in Noto Sans CJK Bold え！？ as "え=・つ2・", 嘘… as nothing, 別に。 as "別こ。"), read exactly, with
// the confidence of their words; columns without punctuation read as they always did. (The
// thin strokes of 別 in IPAMincho Tesseract misreads with or without its 。.)
func TestShoutsReadExactly(t *testing.T) {
	tess := tesseractCLI(t)
	shouts := []string{"え！？", "なに！？", "嘘…", "別に。", "まかせて！", "待って", "行くぞ"}
	for _, f := range columnFaces[1:] {
		for _, tcy := range []bool{false, true} {
			face := openFace(t, f, 40)
			pa, blocks := columnPage(t, face, 40, tcy, shouts...)
			rs, err := tess.Oriented(context.Background(), pa, blocks, JapaneseModel)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range rs {
				if got := CleanCJK(r.Text); got != shouts[i] {
					t.Errorf("%s (side by side %v): %q read as %q", f.name, tcy, shouts[i], got)
				}
				if strings.ContainsAny(shouts[i], "！？…。") && r.Conf < 0.55 {
					t.Errorf("%s: %q read with confidence %.2f", f.name, shouts[i], r.Conf)
				}
			}
		}
	}
}

// A column of one character (the い that ends a line, a 今 before its 、) is read as the
// character: the vertical model reads a lone character badly (え as うえ), the horizontal one
// misreads some (今 as 人), so the more confident of the ways is kept.
func TestLoneCharacterColumnsRead(t *testing.T) {
	lone := []string{"い", "う", "ね", "嘘", "私", "な", "雨、", "私、", "え、", "夢、", "今、", "あ、", "彼、", "え！？", "今！"}
	// 俺 and its like blur into other kanji at 20 px in IPAGothic.
	columnsRead(t, columnFaces[1:], lone, func(f testFace, size float64) bool { return f.name != "IPAGothic" || size != 20 })
}

// columnsRead sets each of texts alone in a column, in the faces given at 20, 28 and 40 px
// (those where use says so), and checks that each reads exactly.
func columnsRead(t *testing.T, faces []testFace, texts []string, use func(f testFace, size float64) bool) {
	t.Helper()
	tess := tesseractCLI(t)
	for _, f := range faces {
		for _, size := range []float64{20, 28, 40} {
			if !use(f, size) {
				continue
			}
			face := openFace(t, f, size)
			pa, blocks := columnPage(t, face, size, false, texts...)
			rs, err := tess.Oriented(context.Background(), pa, blocks, JapaneseModel)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range rs {
				if got := CleanCJK(r.Text); got != texts[i] {
					t.Errorf("%s %vpx: the column %q read as %q", f.name, size, texts[i], got)
				}
			}
		}
	}
}

// In a scan shared as JPEG, a speck of noise far smaller than a dot lies between the bar of the
// ！ and the hook of the ？ set side by side (何だと！？ on a generated harsh page): the marks are
// still told, and cut from the column.
func TestSideBySideMarksAmongSpecks(t *testing.T) {
	p, err := mangapage.Generate(1, mangapage.Options{Lang: "ja", Harsh: true})
	if err != nil {
		t.Fatal(err)
	}
	var want *mangapage.Bubble
	for i, bb := range p.Bubbles {
		if bb.Text == "何だと！？" {
			want = &p.Bubbles[i]
		}
	}
	if want == nil {
		t.Fatal("no bubble 何だと！？ on the page")
	}
	blocks, pa := find.Manga(p.RGBA(), true)
	for _, b := range blocks {
		if !b.Box.Overlaps(want.Box) || len(b.Lines) != 1 {
			continue
		}
		rest, got := marks.TrailingMarks(pa.Gray, pa.InkMax, b, b.Lines[0])
		if got != "！？" || rest.Max.Y > want.Box.Max.Y-b.Char/2 {
			t.Errorf("何だと！？ at %v: recognised %q, left %v of %v to read", want.Box, got, rest, b.Lines[0])
		}
		return
	}
	t.Errorf("何だと！？ at %v was not found as one column (blocks %v)", want.Box, blocks)
}

// Short columns, two to four characters, give the vertical model little to go on (剣士 read as
// 食土, 遅刻 as 刻遅, いい？ as ll？); laid out as a row for the horizontal model, and that reading
// kept where it is clearly surer, they read exactly in every face and size.
func TestShortColumnsRead(t *testing.T) {
	short := []string{"俺が", "逃げろ", "剣士", "嘘だろ", "喧嘩", "許さない", "いい？", "合格", "放課後", "遅刻", "起きて", "俺の夢", "心配", "断る"}
	columnsRead(t, columnFaces, short, func(testFace, float64) bool { return true })
}

// tesseractCLI is the Tesseract installed on the machine, as many processes at once as it has
// cores.
func tesseractCLI(t *testing.T) *Tesseract {
	t.Helper()
	path, err := exec.LookPath("tesseract")
	if err != nil {
		t.Fatalf("tesseract is needed: %v", err)
	}
	return NewTesseract(path, "", runtime.NumCPU())
}

// Of two readings of one line, the one kept takes the ！？ that end the other when the other is
// it and those marks, keeping its own confidence and spacing; not when they differ otherwise, and
// not when the line's marks were cut, to be added by shape, nor to a lone character.
func TestWithMarks(t *testing.T) {
	r := func(text string) page.Reading { return page.Reading{Text: text, Conf: 0.7} }
	for _, c := range []struct {
		kept, other, cut, want string
	}{
		{"何だと", "何だと !?", "", "何だと!?"},
		{"何だと", "何だと！？", "", "何だと！？"},
		{"何だと", "何だと !?", "！？", "何だと"},
		{"何だと", "何だ !?", "", "何だと"},
		{"何だと", "何だとよ!", "", "何だと"},
		{"何だと!?", "何だと", "", "何だと!?"},
		{"", "!?", "", ""},
		{"い", "い!", "", "い"},
		{"정말 괜찮아", "정말 괜찮아 ?", "", "정말 괜찮아?"},
	} {
		got := withMarks(r(c.kept), r(c.other), c.cut)
		if got.Text != c.want || got.Conf != 0.7 {
			t.Errorf("withMarks(%q, %q, %q) = %q at %.2f, want %q at 0.70", c.kept, c.other, c.cut, got.Text, got.Conf, c.want)
		}
	}
}

// A 。 a few pixels across, scanned soft, is a ring only in the grey page: binarized, its rim is
// open (次はお前の番だ。 on a generated hard page, 誰にも言っちゃダメだよ。 on a plain one). It is
// still told, and cut from its column (read with it, the column lost the 。 and its だ's dakuten).
func TestSoftRingEndsItsColumn(t *testing.T) {
	for _, c := range []struct {
		seed int64
		opts mangapage.Options
		text string
	}{
		{22, mangapage.Options{Lang: "ja", Hard: true}, "次はお前の番だ。"},
		{21, mangapage.Options{Lang: "ja"}, "誰にも言っちゃダメだよ。"},
	} {
		p, err := mangapage.Generate(c.seed, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(p.Bubbles, func(b mangapage.Bubble) bool { return b.Text == c.text })
		if i < 0 {
			t.Fatalf("seed %d: no bubble %s on the page", c.seed, c.text)
		}
		want := p.Bubbles[i].Box
		blocks, pa := find.Manga(p.RGBA(), true)
		j := slices.IndexFunc(blocks, func(b *page.Block) bool { return b.Box.Overlaps(want) })
		if j < 0 {
			t.Fatalf("seed %d: %s at %v not found", c.seed, c.text, want)
		}
		b := blocks[j]
		last := b.Lines[len(b.Lines)-1] // the leftmost column, which the 。 ends
		if rest, got := marks.TrailingMarks(pa.Gray, pa.InkMax, b, last); got != "。" || rest.Max.Y >= last.Max.Y {
			t.Errorf("seed %d: %s: its last column %v recognised as ending in %q, left %v to read", c.seed, c.text, last, got, rest)
		}
	}
}

// Chinese sets …… as six dots across the middle of two cells at the end of a row; Tesseract's
// row model reads them as anything (能… ee, 能.) or drops them with the character before
// (这不可). They are recognised by shape and cut from the row, which reads whole, on generated
// Chinese pages in several sizes and papers; a row that ends in other marks keeps them.
func TestRowEllipsisRead(t *testing.T) {
	tess := tesseractCLI(t)
	chinese := func(vertical bool) string {
		if vertical {
			return "chi_sim_vert"
		}
		return "chi_sim"
	}
	for _, c := range []struct {
		seed       int64
		text, dots string
	}{
		{2, "这不可能……", "……"},
		{4, "这不可能……", "……"},
		{11, "这不可能……", "……"},
		{5, "你骗我！", ""},
	} {
		p, err := mangapage.Generate(c.seed, mangapage.Options{Lang: "zh-Hans"})
		if err != nil {
			t.Fatal(err)
		}
		var want *mangapage.Bubble
		for i, bb := range p.Bubbles {
			if bb.Text == c.text {
				want = &p.Bubbles[i]
			}
		}
		if want == nil {
			t.Fatalf("seed %d: no bubble %q on the page", c.seed, c.text)
		}
		blocks, pa := find.Manga(p.RGBA(), true)
		i := slices.IndexFunc(blocks, func(b *page.Block) bool { return b.Box.Overlaps(want.Box) && !b.Vertical })
		if i < 0 {
			t.Errorf("seed %d: %q at %v was not found as rows (blocks %v)", c.seed, c.text, want.Box, blocks)
			continue
		}
		b := blocks[i]
		last := b.Lines[len(b.Lines)-1]
		if rest, got := marks.RowEllipsis(pa.Gray, pa.InkMax, b, last); got != c.dots || got != "" && rest.Max.X > last.Max.X-b.Char {
			t.Errorf("seed %d: %q: recognised %q, left %v of %v to read", c.seed, c.text, got, rest, last)
		}
		rs, err := tess.Oriented(context.Background(), pa, blocks[i:i+1], chinese)
		if err != nil {
			t.Fatal(err)
		}
		if got := CleanCJK(rs[0].Text); got != c.text {
			t.Errorf("seed %d: %q read as %q", c.seed, c.text, got)
		}
	}
}
