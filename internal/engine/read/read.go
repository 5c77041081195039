package read

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/vtsproject/vts/internal/engine/crops"
	"github.com/vtsproject/vts/internal/engine/marks"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
	"github.com/vtsproject/vts/internal/lang"
)

// Reading manga lettering. Each line (column or row) is read as its own crop, prepared the way
// Tesseract's CJK models read best: only the line's own ink (no bubble outline, no tail, no
// furigana), black on white, scaled and padded (package crops). All crops of a
// page go to one Tesseract process as a list of images, one that loaded its model while the page
// was being found (warm.go); lines read with doubt get a second look in a preparation that keeps
// the ink's grey anti-aliasing, and the reading with the better confidence is kept.

// sureConf is the confidence above which a line's first reading is kept without a second look.
// Below it the crisp preparation often reads a character twice or drops a dakuten, with fair
// confidence, where the grey one reads the line right and surer (ですかわか for ですか at 0.88,
// ですか at 0.95): on our pages the second look at lines under 0.95 reads 9 bubbles better and
// none worse, at a cost lost in the noise of a page's seconds (docs/BENCHMARKS.md).
const sureConf = 0.95

// lineRef is one line to read: the part of it given to Tesseract (a column without the
// punctuation at its foot, recognised by shape by marks.TrailingMarks), the marks added back
// after, and the direction whose model reads it.
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
func (t *Tesseract) readLines(ctx context.Context, pa *page.Analysis, blocks []*page.Block, tones []func() (raster.Lattice, bool), refs []lineRef, idx []int, model string, psm int, out []page.Reading) error {
	// A look is one preparation of line i: reach 0 the crisp one, otherwise the grey one
	// reaching that far from the mask (crops.Line), or its cores, or the page's greys as they are
	// (crops.Paper), or without the tone of its balloon (crops.Descreened); whole reads the line
	// with its marks.
	type look struct {
		i, reach                    int
		whole, cores, paper, screen bool
	}
	read := func(looks []look) ([]page.Reading, error) {
		imgs := make([]*image.Gray, len(looks))
		for k, lk := range looks {
			r := refs[lk.i].rect
			if lk.whole {
				r = refs[lk.i].line
			}
			if lk.screen {
				tone, _ := tones[refs[lk.i].block]()
				imgs[k] = crops.Descreened(pa.Gray, blocks[refs[lk.i].block], r, tone)
			} else if lk.paper {
				imgs[k] = crops.Paper(pa.Gray, blocks[refs[lk.i].block].Char, r)
			} else {
				imgs[k] = crops.Line(pa.Gray, blocks[refs[lk.i].block], r, lk.reach, pa.InkSoft)
			}
			if lk.cores {
				imgs[k] = raster.Cores(imgs[k])
			}
			if refs[lk.i].row {
				imgs[k] = crops.AsRow(imgs[k])
			}
		}
		return t.readMany(ctx, imgs, model, psm)
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
		looks = append(looks, look{i: i, reach: crops.GreyReach(b), whole: whole})
		// In a balloon, a soft scan's strokes are grey and a tone's dots or the paper's grain beside
		// them a lighter grey, all in the mask: crisp, a blot; in grey, dots read as strokes. The
		// grey crop's darkest part, cut where its greys part in two, is the strokes' cores (何だと！？
		// was ードよど and nothing). On art the cores keep the art's darkest lines (油断するなよ。 read
		// as Po : 一一いするなよ。), and the grey reach through dark pixels takes in a tone's dots
		// touching the strokes, read as strokes: there the look is the strokes' soft edges alone.
		//
		// In a balloon of plain paper, a line of two characters or more is also read as the page
		// shows it: a soft scan's thinnest strokes are lighter than anything the mask reaches
		// (crops.Paper). (A lone character so read may be sure of a wrong reading: 雨 as トト.)
		// Where a tone fills the balloon or the panel around the lettering, and the blur joined its
		// dots to the strokes, no look at the mask or the greys parts them: the line is also read
		// with the tone taken out.
		if _, toned := tones[refs[i].block](); toned {
			looks = append(looks, look{i: i, whole: whole, screen: true})
		}
		if b.Bubble != nil {
			looks = append(looks, look{i: i, reach: crops.GreyReach(b), whole: whole, cores: true})
			if r := refs[i].rect; max(r.Dx(), r.Dy()) >= 2*b.Char && !b.Light() && !b.InTone(pa.Gray, pa.InkSoft) {
				looks = append(looks, look{i: i, whole: whole, paper: true})
			}
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
	// Each line's crop and marks as cut before any whole look.
	type cutLine struct {
		rect  image.Rectangle
		marks string
	}
	cut := make(map[int]cutLine, len(looks))
	for _, lk := range looks {
		cut[lk.i] = cutLine{refs[lk.i].rect, refs[lk.i].marks}
	}
	for k, lk := range looks {
		// Read as the page shows it, a line now and then comes back with characters read twice
		// (問に as 問に問に), or a column as two (手伝ってやるか as ってやるか手伝っ), surer than
		// its right reading: a reading the line has no room for is none.
		if lk.paper && !roomFor(again[k].Text, refs[lk.i].line, blocks[refs[lk.i].block]) {
			continue
		}
		// The cores lose a stroke's thin parts (a dakuten's ticks went, and 行くぞ read as 行くそ a
		// little surer): their reading must be clearly surer, by 0.05.
		need := score(out[lk.i])
		if lk.cores {
			need += 0.05
		}
		if score(again[k]) > need {
			out[lk.i] = withMarks(again[k], out[lk.i], cut[lk.i].marks)
			// A line read whole has its marks in its reading; one read without them keeps
			// them to add (何だと！？ lost its marks to a whole look that did not win).
			if lk.whole {
				refs[lk.i].rect, refs[lk.i].marks = refs[lk.i].line, ""
			} else {
				refs[lk.i].rect, refs[lk.i].marks = cut[lk.i].rect, cut[lk.i].marks
			}
		} else {
			out[lk.i] = withMarks(out[lk.i], again[k], cut[lk.i].marks)
		}
	}
	return nil
}

// roomFor reports whether a line of b in r has room for the characters of text, one a
// character's size along the line, and half a character to spare.
func roomFor(text string, r image.Rectangle, b *page.Block) bool {
	along := r.Dx()
	if b.Vertical {
		along = r.Dy()
	}
	c := lang.CountScripts(text)
	return float64(c.Kana+c.Han+c.Hangul) <= float64(along)/float64(max(b.Char, 1))+0.5
}

// withMarks is the reading kept, with the marks that end the other reading of the same line
// when the other is the kept one and those marks: Tesseract reads a column's ！？ now and then
// only in the less sure of two looks (何だと as the page shows it, 何だと!? as a row), and the
// marks are ink it saw. A line whose marks were cut to be added by shape (cut) takes none, nor
// does a lone character, which one look or another now and then takes for marks (い as い!).
func withMarks(kept, other page.Reading, cut string) page.Reading {
	k, o := strings.Join(strings.Fields(kept.Text), ""), strings.Join(strings.Fields(other.Text), "")
	if cut != "" || utf8.RuneCountInString(k) < 2 || !strings.HasPrefix(o, k) || len(o) == len(k) ||
		strings.TrimLeft(o[len(k):], "!?！？") != "" {
		return kept
	}
	return page.Reading{Text: strings.TrimSpace(kept.Text) + o[len(k):], Conf: kept.Conf}
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
// text per page; words are joined without a space for CJK and with one otherwise, but Korean's
// words stand a space apart (wordGap).
func parseReadings(data []byte, pages int) ([]page.Reading, error) {
	out := make([]page.Reading, pages)
	weights := make([]float64, pages)
	lastLine := make([]string, pages)
	lastRight := make([]int, pages) // the right edge of the last word on each page
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
		left, _ := strconv.Atoi(f[6])
		width, _ := strconv.Atoi(f[8])
		if out[p].Text != "" && (lineKey != lastLine[p] || !lang.HasCJK(text)) {
			if !lang.HasCJK(text) || !lang.HasCJK(out[p].Text) {
				out[p].Text += " "
			}
		} else if out[p].Text != "" && spaced(out[p].Text, text) && wordGap(left, lastRight[p]) {
			out[p].Text += " "
		}
		lastLine[p], lastRight[p] = lineKey, left+width
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
	// The tone around a block's lettering, where there is one, measured once, when the marks
	// that end a column are looked for in it or a line of the block is read with doubt.
	tones := make([]func() (raster.Lattice, bool), len(blocks))
	for i, b := range blocks {
		tones[i] = sync.OnceValues(func() (raster.Lattice, bool) { return crops.Tone(pa.Gray, b, pa.InkSoft) })
	}
	var refs []lineRef
	var batch [2][]int // the lines each direction's model reads
	for i, b := range blocks {
		if !b.WorthReading() || model(b.Vertical) == "" {
			continue
		}
		for _, l := range b.Lines {
			ref := lineRef{block: i, line: l, rect: l, vertical: b.Vertical}
			var alts []lineRef
			if !b.Vertical {
				ref.rect, ref.marks = marks.RowEllipsis(pa.Gray, pa.InkMax, b, l)
			} else {
				ref.rect, ref.marks = marks.TrailingMarks(pa.Gray, pa.InkMax, b, l)
				if ref.marks == "" && b.Char >= marks.LeastChar {
					if tone, ok := tones[i](); ok {
						ref.rect, ref.marks = tonedMarks(b, l, crops.Descreen(pa.Gray, b, l, tone))
					}
				}
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
	// The two directions use different models, so they run as two processes at once; each
	// writes only its own lines.
	lists := shared(refs, blocks, batch)
	errs := make([]error, len(lists))
	for k, l := range lists {
		psm := 7 // one row
		if l.vertical {
			psm = 5
		}
		wg.Go(func() {
			if err := t.readLines(ctx, pa, blocks, tones, refs, l.idx, model(l.vertical), psm, lines); err != nil {
				errs[k] = fmt.Errorf("reading lettering: %w", err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// A line's first reading stands unless another is clearly surer: a lone character's as a
	// row (the vertical model is sure of a lone 嘘 as 忠, a little more than the row of 嘘), a
	// short column's as a column.
	for k := range refs {
		for _, a := range refs[k].alts {
			if score(lines[a]) > score(lines[k])+0.15 {
				lines[k], refs[k].rect, refs[k].marks = withMarks(lines[a], lines[k], refs[a].marks), refs[a].rect, refs[a].marks
			} else {
				lines[k] = withMarks(lines[k], lines[a], refs[k].marks)
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
		text = unvoicedTwins(text, func(t string) bool { return roomFor(t, r.rect, blocks[r.block]) })
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
		if o.Text != "" && (!(cjk && lang.HasCJK(o.Text)) || spaced(o.Text, text)) {
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

// tonedMarks recognises the marks that end column l of b on d, the column with the tone around
// it taken out (crops.Descreen): the tone's dots stuck to a ！'s bar or a ？'s hook hide their
// shapes in the mask (何だと！？ on a coarse tone, its marks read by no look).
func tonedMarks(b *page.Block, l image.Rectangle, d *image.Gray) (image.Rectangle, string) {
	ink := page.NewMask(l)
	for i, v := range d.Pix {
		ink.Mask[i] = v < 128
	}
	descreened := *b
	descreened.Ink = ink
	return marks.TrailingMarks(d, 128, &descreened, l)
}

// lineList is lines one process reads, with one direction's model.
type lineList struct {
	vertical bool
	idx      []int
}

// splitChars is how many characters more one direction must have to read than the other before
// its lines are split between two processes: about what a second process costs to load its
// model, a third of a second, twice over.
const splitChars = 50

// shared is the lines of each direction (batch: rows, then columns) as the lists processes read.
// A page of columns with a few rows gave one process nearly all the work while the other core
// idled (a page's columns 2.6 s, its rows 0.5 s): when one direction has much more to read, its
// lines are split in two lists, the first as long as both directions' halves, so that the other
// direction's list and the rest end together. A line's characters stand for its cost: the
// models read a crop along its length.
func shared(refs []lineRef, blocks []*page.Block, batch [2][]int) []lineList {
	chars := func(idx []int) []int {
		n := make([]int, len(idx))
		for k, i := range idx {
			r := refs[i].rect
			n[k] = max(r.Dx(), r.Dy())/max(1, blocks[refs[i].block].Char) + 1
		}
		return n
	}
	sum := func(n []int) (s int) {
		for _, v := range n {
			s += v
		}
		return s
	}
	var lists []lineList
	n := [2][]int{chars(batch[0]), chars(batch[1])}
	rows, cols := sum(n[0]), sum(n[1])
	big := 1 // the direction with more to read
	if rows > cols {
		big = 0
	}
	for d := range batch {
		if len(batch[d]) == 0 {
			continue
		}
		l := lineList{vertical: d == 1, idx: batch[d]}
		if d == big && len(batch[d]) >= 2 && max(rows-cols, cols-rows) >= splitChars {
			half, acc, cut := (rows+cols)/2, 0, 0
			for cut < len(n[d])-1 && acc+n[d][cut] <= half {
				acc += n[d][cut]
				cut++
			}
			lists = append(lists, lineList{vertical: l.vertical, idx: batch[d][:max(cut, 1)]})
			l.idx = batch[d][max(cut, 1):]
		}
		lists = append(lists, l)
	}
	return lists
}

// wordGap reports whether a word that starts at left in a crop (characters crops.ReadPx tall)
// stands a word's space after the one that ended at right: a quarter of a character, the word
// space of Korean type. Tesseract's Korean models also part one word in two here and there
// (비 밀이야, 포 기하지) where its syllables stand as close as the rest.
func wordGap(left, right int) bool { return left-right >= crops.ReadPx/4 }
