package read

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/image/draw"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
	"github.com/vtsproject/vts/internal/lang"
)

// Reading manga lettering. Each line (column or row) is read as its own crop, prepared the way
// Tesseract's CJK models read best: only the line's own ink (no bubble outline, no tail, no
// furigana), black on white, scaled so a character is about readPx tall, padded. All crops of a
// page go to one Tesseract process as a list of images, one that loaded its model while the page
// was being found (warm.go); lines read with doubt get a second look in a preparation that keeps
// the ink's grey anti-aliasing, and the reading with the better confidence is kept.

// readPx is the character size crops are scaled to. Tesseract's LSTM models see text lines
// normalised to a fixed height; around 48 px they stop losing detail of dense kanji.
const readPx = 48

// sureConf is the confidence above which a line's first reading is kept without a second look.
// Below it the crisp preparation often reads a character twice or drops a dakuten, with fair
// confidence, where the grey one reads the line right and surer (ですかわか for ですか at 0.88,
// ですか at 0.95): on our pages the second look at lines under 0.95 reads 9 bubbles better and
// none worse, at a cost lost in the noise of a page's seconds (docs/BENCHMARKS.md).
const sureConf = 0.95

// greyReach is how far the grey preparation reaches from b's mask: a few pixels, an eighth of a
// character, through the soft edges and faint parts of its strokes.
func greyReach(b *page.Block) int { return max(2, b.Char/8) }

// cropFor renders one line (column or row) of b's main lettering on white, scaled and padded.
// Tesseract reads a lone column far better than a block of columns of uneven length, whose
// layout it often misjudges. reach 0 is the crisp preparation, the mask in black; otherwise the
// grey one, the ink reached from the mask through dark pixels within reach steps.
func cropFor(g *image.Gray, b *page.Block, l image.Rectangle, reach int, inkMax uint8) *image.Gray {
	soft := reach > 0
	src := image.NewGray(l)
	for i := range src.Pix {
		src.Pix[i] = 255
	}
	light := b.Paper.A != 0 && page.Luma(b.Paper) < 128 // lettering light on a dark box: read its negative
	at := func(x, y int) uint8 {
		if light {
			return 255 - g.GrayAt(x, y).Y
		}
		return g.GrayAt(x, y).Y
	}
	// The grey preparation keeps the strokes' anti-aliasing and their faint parts: the ink
	// reached from the mask through pixels darker than the paper's edge, a few pixels deep,
	// stretched so the line's darkest ink is black and the paper's edge stays where it was.
	// Small lettering scanned at a low resolution is grey, its strokes thinner than a pixel and
	// lighter than the mask takes them, and read at a fifth of its contrast Tesseract loses them.
	// In a balloon filled with a coarse tone neither keeps the specks far smaller than any mark of
	// the lettering (a dakuten's tick or a 、 is several times larger), the tone's dots the mask
	// took in beside the strokes, which Tesseract reads as strokes (終わりだ！ was not read at
	// all). Elsewhere they stay: on art they are as likely what the art left of a stroke, and rid
	// of them, art in a plain balloon reads as surely as lettering (に, 一一).
	ink := grownInk(b, l, reach, func(x, y int) bool { return !soft || at(x, y) < inkMax })
	if !light && b.InTone(g, inkMax) {
		raster.DropSpecks(&raster.Bitmap{W: l.Dx(), H: l.Dy(), On: ink}, b.Char*b.Char/150)
	}
	lo := uint8(255)
	for i, on := range ink {
		if on && soft {
			lo = min(lo, at(l.Min.X+i%l.Dx(), l.Min.Y+i/l.Dx()))
		}
	}
	for i, on := range ink {
		if on && soft {
			v := at(l.Min.X+i%l.Dx(), l.Min.Y+i/l.Dx())
			src.Pix[i] = uint8(int(v-lo) * int(inkMax) / int(inkMax-lo))
		} else if on {
			src.Pix[i] = 0
		}
	}
	scale := float64(readPx) / float64(max(b.Char, 1))
	w := max(1, int(float64(l.Dx())*scale))
	h := max(1, int(float64(l.Dy())*scale))
	pad := readPx * 2 / 3
	out := image.NewGray(image.Rect(0, 0, w+2*pad, h+2*pad))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	draw.CatmullRom.Scale(out, image.Rect(pad, pad, pad+w, pad+h), src, src.Bounds(), draw.Src, nil)
	if !soft {
		for i, v := range out.Pix {
			if v < 128 {
				out.Pix[i] = 0
			} else {
				out.Pix[i] = 255
			}
		}
	}
	return out
}

// asRow lays out the characters of a column's crop side by side, cut where the ink is thinnest
// near each multiple of a character's height: the crop as a row of characters.
func asRow(col *image.Gray) *image.Gray {
	pad := readPx * 2 / 3
	b := col.Bounds()
	w, h := b.Dx()-2*pad, b.Dy()-2*pad
	n := max(1, int(math.Round(float64(h)/(readPx*1.05))))
	ink := func(y int) int {
		s := 0
		for x := pad; x < pad+w; x++ {
			s += 255 - int(col.Pix[y*col.Stride+x])
		}
		return s
	}
	cuts := []int{pad}
	for k := 1; k < n; k++ {
		at := pad + k*h/n
		best, least := at, ink(at)
		for y := at - readPx/4; y <= at+readPx/4; y++ {
			if y > cuts[k-1] && y < pad+h {
				if v := ink(y); v < least {
					best, least = y, v
				}
			}
		}
		cuts = append(cuts, best)
	}
	cuts = append(cuts, pad+h)
	tall := 0
	for k := 1; k < len(cuts); k++ {
		tall = max(tall, cuts[k]-cuts[k-1])
	}
	gap := readPx / 6
	out := image.NewGray(image.Rect(0, 0, 2*pad+n*w+(n-1)*gap, 2*pad+tall))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	for k := 0; k < n; k++ {
		x0 := pad + k*(w+gap)
		y0 := pad + (tall-(cuts[k+1]-cuts[k]))/2
		for y := cuts[k]; y < cuts[k+1]; y++ {
			copy(out.Pix[(y0+y-cuts[k])*out.Stride+x0:][:w], col.Pix[y*col.Stride+pad:][:w])
		}
	}
	return out
}

// grownInk is b's ink inside l and what it reaches through dark pixels (dark(x, y)) within
// reach steps, as a mask of l's pixels row by row. The reach is short: a faint stroke's soft
// parts lie beside its core, while a tone's dots touching the lettering lead on and on.
func grownInk(b *page.Block, l image.Rectangle, reach int, dark func(x, y int) bool) []bool {
	w := l.Dx()
	ink := make([]bool, w*l.Dy())
	var front []image.Point
	for y := l.Min.Y; y < l.Max.Y; y++ {
		for x := l.Min.X; x < l.Max.X; x++ {
			if b.InkAt(x, y) && dark(x, y) {
				ink[(y-l.Min.Y)*w+x-l.Min.X] = true
				front = append(front, image.Pt(x, y))
			}
		}
	}
	for ; reach > 0 && len(front) > 0; reach-- {
		var next []image.Point
		for _, p := range front {
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					q := p.Add(image.Pt(dx, dy))
					if i := (q.Y-l.Min.Y)*w + q.X - l.Min.X; q.In(l) && !ink[i] && dark(q.X, q.Y) {
						ink[i] = true
						next = append(next, q)
					}
				}
			}
		}
		front = next
	}
	return ink
}

// lineRef is one line to read: the part of it given to Tesseract (a column without the
// punctuation at its foot, recognised by shape in marks.go), the marks added back after, and
// the direction whose model reads it.
type lineRef struct {
	block      int
	line, rect image.Rectangle
	marks      string
	vertical   bool
	// alts are other readings of the same line (other refs), kept instead of this one when
	// clearly more confident; alt marks a ref that is one.
	alts []int
	alt  bool
	// row lays the column's characters out side by side, for the horizontal model.
	row bool
}

// readLines reads the lines with the Tesseract language model ("jpn_vert", "kor", …) at page
// segmentation psm, crop by crop in one process, keeping for each line the best of its
// preparations: the crisp binary one reads every line, the grey ones only the lines it read with
// doubt, which on clean lettering is few, so a page costs one pass and a little.
func (t *Tesseract) readLines(ctx context.Context, pa *page.Analysis, blocks []*page.Block, refs []lineRef, idx []int, model string, psm int, out []page.Reading) error {
	// A look is one preparation of line i: reach 0 the crisp one, otherwise the grey one
	// reaching that far from the mask (cropFor), or its cores; whole reads the line with its marks.
	type look struct {
		i, reach     int
		whole, cores bool
	}
	read := func(looks []look) ([]page.Reading, error) {
		crops := make([]*image.Gray, len(looks))
		for k, lk := range looks {
			r := refs[lk.i].rect
			if lk.whole {
				r = refs[lk.i].line
			}
			crops[k] = cropFor(pa.Gray, blocks[refs[lk.i].block], r, lk.reach, pa.InkSoft)
			if lk.cores {
				crops[k] = raster.Cores(crops[k])
			}
			if refs[lk.i].row {
				crops[k] = asRow(crops[k])
			}
		}
		return t.readMany(ctx, crops, model, psm)
	}
	looks := make([]look, len(idx))
	for k, i := range idx {
		looks[k] = look{i: i}
	}
	first, err := read(looks)
	if err != nil {
		return err
	}
	looks = looks[:0]
	for k, i := range idx {
		out[i] = first[k]
		if first[k].Conf >= sureConf {
			continue
		}
		// A column cut above its marks that comes back unread (Tesseract now and then reads
		// nothing of two kana it reads with their ！) gets its second look whole, marks and all,
		// as it was read before marks were cut.
		b := blocks[refs[i].block]
		whole := refs[i].vertical && refs[i].marks != "" && strings.TrimSpace(out[i].Text) == ""
		looks = append(looks, look{i: i, reach: greyReach(b), whole: whole})
		// In a balloon, a soft scan's strokes are grey and a tone's dots or the paper's grain beside
		// them a lighter grey, all in the mask: crisp, a blot; in grey, dots read as strokes. The
		// grey crop's darkest part, cut where its greys part in two, is the strokes' cores (何だと！？
		// was ードよど and nothing). On art the cores keep the art's darkest lines (油断するなよ。 read
		// as Po : 一一いするなよ。), and the grey reach through dark pixels takes in a tone's dots
		// touching the strokes, read as strokes: there the look is the strokes' soft edges alone.
		if b.Bubble != nil {
			looks = append(looks, look{i: i, reach: greyReach(b), whole: whole, cores: true})
		} else {
			looks = append(looks, look{i: i, reach: 1, whole: whole})
		}
	}
	if len(looks) == 0 {
		return nil
	}
	again, err := read(looks)
	if err != nil {
		return err
	}
	for k, lk := range looks {
		if lk.whole && strings.TrimSpace(again[k].Text) != "" {
			refs[lk.i].rect, refs[lk.i].marks = refs[lk.i].line, ""
		}
		// The cores lose a stroke's thin parts (a dakuten's ticks went, and 行くぞ read as 行くそ a
		// little surer): their reading must be clearly surer, by 0.05.
		need := score(out[lk.i])
		if lk.cores {
			need += 0.05
		}
		if score(again[k]) > need {
			out[lk.i] = again[k]
		}
	}
	return nil
}

// score ranks two readings of the same crop: confidence, with a reading of nothing worth nothing.
func score(r page.Reading) float64 {
	if strings.TrimSpace(r.Text) == "" {
		return -1
	}
	return r.Conf
}

// readMany runs one Tesseract process over several images (a list of files, one "page" per
// image) and returns each image's text with its confidence.
func (t *Tesseract) readMany(ctx context.Context, imgs []*image.Gray, model string, psm int) ([]page.Reading, error) {
	dir, err := os.MkdirTemp("", "vts-ocr-")
	if err != nil {
		return nil, fmt.Errorf("creating OCR scratch directory: %w", err)
	}
	defer os.RemoveAll(dir)
	var list strings.Builder
	for i, img := range imgs {
		p := filepath.Join(dir, strconv.Itoa(i)+".pgm")
		if err := os.WriteFile(p, encodePGM(img), 0o600); err != nil {
			return nil, fmt.Errorf("writing OCR crop: %w", err)
		}
		list.WriteString(p + "\n")
	}
	out, err := t.readList(ctx, list.String(), []string{"-l", model, "--psm", strconv.Itoa(psm), "--dpi", "300",
		"-c", "preserve_interword_spaces=1", "tsv"})
	if err != nil {
		return nil, err
	}
	return parseReadings(out, len(imgs))
}

// parseReadings gathers the words of TSV output by page, in Tesseract's reading order, into one
// text per page; words on new lines are joined without a space for CJK and with one otherwise.
func parseReadings(data []byte, pages int) ([]page.Reading, error) {
	out := make([]page.Reading, pages)
	weights := make([]float64, pages)
	lastLine := make([]string, pages)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		pg, err := strconv.Atoi(f[1])
		if err != nil || pg < 1 || pg > pages {
			continue
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		text := strings.TrimSpace(f[11])
		if err != nil || conf < 0 || text == "" {
			continue
		}
		p := pg - 1
		lineKey := f[2] + "." + f[3] + "." + f[4]
		if out[p].Text != "" && (lineKey != lastLine[p] || !lang.HasCJK(text)) {
			if !lang.HasCJK(text) || !lang.HasCJK(out[p].Text) {
				out[p].Text += " "
			}
		}
		lastLine[p] = lineKey
		out[p].Text += text
		n := float64(len([]rune(text)))
		out[p].Conf += conf / 100 * n
		weights[p] += n
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading tesseract output: %w", err)
	}
	for i := range out {
		if weights[i] > 0 {
			out[i].Conf /= weights[i]
		}
	}
	return out, nil
}

// Oriented reads vertical blocks with model(true) (page segmentation 5, a vertical block, for
// each column) and horizontal ones with model(false) (7, a single line, for each row), and
// returns one reading per block, in block order.
func (t *Tesseract) Oriented(ctx context.Context, pa *page.Analysis, blocks []*page.Block, model func(vertical bool) string) ([]page.Reading, error) {
	var refs []lineRef
	var batch [2][]int // the lines each direction's model reads
	for i, b := range blocks {
		if !b.WorthReading() || model(b.Vertical) == "" {
			continue
		}
		for _, l := range b.Lines {
			ref := lineRef{block: i, line: l, rect: l, vertical: b.Vertical}
			var alts []lineRef
			if b.Vertical {
				ref.rect, ref.marks = trailingMarks(pa.Gray, pa.InkMax, b, l)
				// One character alone in its column (え of え！？, the い that ends a line): the
				// vertical model reads a lone character badly (嘘 as 忠, え as うえ), a character
				// has no direction, and the horizontal model reads most as a row, but not all
				// (今 as 人, 雨 as 十), nor always better cut from its mark than with it. So it
				// is read all three ways, and the row's reading is kept unless another is
				// clearly more confident. A short column (いい of いい？, a shout) gives the
				// vertical model little to go on either: its characters are also laid out as a
				// row for the horizontal model, and that reading is kept when clearly more
				// confident.
				switch rows := !ref.rect.Empty() && model(false) != ""; {
				case rows && ref.rect.Dy()*2 < b.Char*3:
					alts = append(alts, ref) // as a column, cut from its mark
					if ref.marks != "" {
						alts = append(alts, lineRef{block: i, line: l, rect: l, vertical: true})
					}
					ref.vertical = false
				case rows && ref.rect.Dy()*2 < b.Char*9:
					row := ref
					row.vertical, row.row = false, true
					alts = append(alts, row)
				}
			}
			for k := range alts {
				alts[k].alt = true
				ref.alts = append(ref.alts, len(refs)+1+k)
			}
			for _, r := range append([]lineRef{ref}, alts...) {
				if !r.rect.Empty() {
					d := 0
					if r.vertical {
						d = 1
					}
					batch[d] = append(batch[d], len(refs))
				}
				refs = append(refs, r)
			}
		}
	}
	lines := make([]page.Reading, len(refs))
	var wg sync.WaitGroup
	var errs [2]error
	// The two directions use different models, so they run as two processes at once; each
	// writes only its own lines.
	for d, vertical := range []bool{false, true} {
		if len(batch[d]) == 0 {
			continue
		}
		psm := 7 // one row
		if vertical {
			psm = 5
		}
		wg.Go(func() {
			if err := t.readLines(ctx, pa, blocks, refs, batch[d], model(vertical), psm, lines); err != nil {
				errs[d] = fmt.Errorf("reading lettering: %w", err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	// A line's first reading stands unless another is clearly surer: a lone character's as a
	// row (the vertical model is sure of a lone 嘘 as 忠, a little more than the row of 嘘), a
	// short column's as a column.
	for k := range refs {
		for _, a := range refs[k].alts {
			if score(lines[a]) > score(lines[k])+0.15 {
				lines[k], refs[k].rect, refs[k].marks = lines[a], refs[a].rect, refs[a].marks
			}
		}
	}
	out := make([]page.Reading, len(blocks))
	weights := make([]float64, len(blocks))
	for k, r := range refs {
		if r.alt {
			continue
		}
		text := strings.TrimSpace(lines[k].Text)
		if blocks[r.block].Vertical { // columns hold no colon: it is a … read as two dots (嘘:, だ:まだ)
			text = strings.ReplaceAll(text, ":", "…")
		}
		// Marks without the words they end would pass for a reading of an unread line.
		if text == "" && !r.rect.Empty() {
			continue
		}
		// A line's confidence is Tesseract's: marks recognised by shape neither raise nor
		// lower it, and a line of marks alone counts for nothing.
		n := float64(len([]rune(text)))
		cjk := lang.HasCJK(text) || text == ""
		text += r.marks
		o := &out[r.block]
		if o.Text != "" && !(cjk && lang.HasCJK(o.Text)) {
			o.Text += " "
		}
		o.Text += text
		o.Conf += lines[k].Conf * n
		weights[r.block] += n
	}
	for i := range out {
		if weights[i] > 0 {
			out[i].Conf /= weights[i]
		}
	}
	return out, nil
}

// CleanCJK strips spaces Tesseract puts between CJK characters and the noise it reads from the
// edges of a crop: a stroke of art or a bubble's edge read as \, | or _, which lettering
// never holds. A long-vowel mark that follows no kana is the kanji 一 misread (ー方 for 一方): the
// mark only ever lengthens a kana, and a column's bar looks the same either way. Between
// katakana a 1 or an l is that mark standing in a column (ジュ1ス). At the end of the
// lettering, a 1, l, I or ' after CJK is an exclamation mark whose dot was lost or read apart
// (助けて1), a 7 after a question's particle its question mark (なの7), and the marks that end
// it are set full-width, as lettering sets them. A lone Latin letter between CJK characters is
// a speck of ink read as one.
func CleanCJK(s string) string {
	var out []rune
	rs := []rune(strings.TrimSpace(s))
	prev := rune(0)
	for i, r := range rs {
		if r == '\\' || r == '|' || r == '_' || (r == ' ' && i > 0 && i < len(rs)-1 && (lang.HasCJK(string(prev)) || lang.HasCJK(string(rs[i+1])))) {
			continue
		}
		if r == 'ー' && (prev < 0x3041 || prev > 0x30ff) {
			r = '一'
		}
		if (r == '1' || r == 'l') && katakana(prev) && i+1 < len(rs) && katakana(rs[i+1]) {
			r = 'ー'
		} else if r < 0x80 && unicode.IsLetter(r) && lang.HasCJK(string(prev)) && i+1 < len(rs) && lang.HasCJK(string(rs[i+1])) {
			continue // a lone Latin letter amid kana is a speck read as one (間に合わなtい)
		} else if w, ok := fullWidth[r]; ok && i+1 < len(rs) && japanese(prev, rs[i+1]) {
			r = w // a mark amid Japanese is the full-width one (俺が守る。必ず。, 静かに！誰か来る)
		}
		if r != ' ' {
			prev = r
		}
		out = append(out, r)
	}
	// A ？ read as 7, its dot read apart or lost, after the particle that ends a question
	// (あるのか7?, なの7); a count ends otherwise (あと7).
	particle := func(r rune) bool { return strings.ContainsRune("かのねよなわ", r) }
	if n := len(out); n >= 2 && out[n-1] == '7' && particle(out[n-2]) {
		out[n-1] = '？'
	} else if n >= 3 && out[n-2] == '7' && (out[n-1] == '?' || out[n-1] == '？') && particle(out[n-3]) {
		out = append(out[:n-2], '？')
	}
	// The run of marks that ends the lettering, if what it ends is CJK.
	end := len(out)
	for end > 0 && strings.ContainsRune("1lI'!?！？", out[end-1]) {
		end--
	}
	if end > 0 && end < len(out) && lang.HasCJK(string(out[end-1])) {
		for i := end; i < len(out); i++ {
			switch out[i] {
			case '?':
				out[i] = '？'
			case '1', 'l', 'I', '\'', '!':
				out[i] = '！'
			}
		}
	}
	return strings.TrimSpace(string(out))
}

// fullWidth are the marks Tesseract reads half-width that Japanese sets full-width (Korean
// sets them half-width, and Chinese its comma as ，).
var fullWidth = map[rune]rune{'!': '！', '?': '？', '.': '。', ',': '、'}

// japanese reports whether a and b, either side of a mark, are Japanese: kana or kanji, and
// one of them kana (kanji alone may be Chinese).
func japanese(a, b rune) bool {
	kana := func(r rune) bool { return unicode.In(r, unicode.Hiragana, unicode.Katakana) }
	cjk := func(r rune) bool { return kana(r) || unicode.Is(unicode.Han, r) }
	return cjk(a) && cjk(b) && (kana(a) || kana(b))
}

// katakana reports whether r is a katakana letter (the long-vowel mark included).
func katakana(r rune) bool { return r >= 0x30a1 && r <= 0x30fc }
