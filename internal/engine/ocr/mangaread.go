package ocr

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/image/draw"
)

// Reading manga lettering. Each line (column or row) is read as its own crop, prepared the way
// Tesseract's CJK models read best: only the line's own ink (no bubble outline, no tail, no
// furigana), black on white, scaled so a character is about readPx tall, padded. All crops of a
// page go to one Tesseract process as a list of images, so the large CJK models load once per
// page; lines read with doubt get a second look in a preparation that keeps the ink's grey
// anti-aliasing, and the reading with the better confidence is kept.

// readPx is the character size crops are scaled to. Tesseract's LSTM models see text lines
// normalised to a fixed height; around 48 px they stop losing detail of dense kanji.
const readPx = 48

// sureConf is the confidence above which a line's first reading is kept without a second look.
const sureConf = 0.85

// reading is one block's text as Tesseract read it.
type reading struct {
	Text string
	// Conf is the mean word confidence, 0 to 1, weighted by characters.
	Conf float64
}

// cropFor renders one line (column or row) of b's main lettering on white, scaled and padded.
// Tesseract reads a lone column far better than a block of columns of uneven length, whose
// layout it often misjudges.
func cropFor(g *image.Gray, b *textBlock, l image.Rectangle, soft bool, inkMax uint8) *image.Gray {
	src := image.NewGray(l)
	for i := range src.Pix {
		src.Pix[i] = 255
	}
	for y := l.Min.Y; y < l.Max.Y; y++ {
		for x := l.Min.X; x < l.Max.X; x++ {
			if !b.inkAt(x, y) {
				continue
			}
			v := g.GrayAt(x, y).Y
			if !soft {
				v = 0
			} else if v >= inkMax {
				v = 255
			}
			src.SetGray(x, y, color.Gray{Y: v})
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

// readBlocks reads every block with the Tesseract language lang ("jpn_vert", "kor", …), line by
// line, and returns one reading per block, keeping for each line the better of the two
// preparations; without secondLook, the crisp preparation alone reads (one pass).
func (e *Engine) readBlocks(ctx context.Context, pa *pageAnalysis, blocks []*textBlock, lang string, psm int, secondLook bool) ([]reading, error) {
	if len(blocks) == 0 {
		return nil, nil
	}
	type lineRef struct{ block, line int }
	var refs []lineRef
	for i, b := range blocks {
		for j := range b.Lines {
			refs = append(refs, lineRef{i, j})
		}
	}
	// The crisp binary preparation reads every line; the grey one only the lines it read with
	// doubt, which on clean lettering is few, so a page costs one pass and a little.
	read := func(idx []int, soft bool) ([]reading, error) {
		crops := make([]*image.Gray, len(idx))
		for k, i := range idx {
			b := blocks[refs[i].block]
			crops[k] = cropFor(pa.gray, b, b.Lines[refs[i].line], soft, pa.inkSoft)
		}
		return e.tess.readMany(ctx, crops, lang, psm)
	}
	all := make([]int, len(refs))
	for i := range all {
		all[i] = i
	}
	lines, err := read(all, false)
	if err != nil {
		return nil, err
	}
	var doubtful []int
	for i, r := range lines {
		if secondLook && r.Conf < sureConf {
			doubtful = append(doubtful, i)
		}
	}
	if len(doubtful) > 0 {
		again, err := read(doubtful, true)
		if err != nil {
			return nil, err
		}
		for k, i := range doubtful {
			if score(again[k]) > score(lines[i]) {
				lines[i] = again[k]
			}
		}
	}
	out := make([]reading, len(blocks))
	weights := make([]float64, len(blocks))
	for k, r := range refs {
		best := lines[k]
		text := strings.TrimSpace(best.Text)
		if text == "" {
			continue
		}
		o := &out[r.block]
		if o.Text != "" && !(isCJKText(text) && isCJKText(o.Text)) {
			o.Text += " "
		}
		o.Text += text
		n := float64(len([]rune(text)))
		o.Conf += best.Conf * n
		weights[r.block] += n
	}
	for i := range out {
		if weights[i] > 0 {
			out[i].Conf /= weights[i]
		}
	}
	return out, nil
}

// score ranks two readings of the same crop: confidence, with a reading of nothing worth nothing.
func score(r reading) float64 {
	if strings.TrimSpace(r.Text) == "" {
		return -1
	}
	return r.Conf
}

// readMany runs one Tesseract process over several images (a list file, one "page" per image)
// and returns each image's text with its confidence.
func (t *tesseract) readMany(ctx context.Context, imgs []*image.Gray, lang string, psm int) ([]reading, error) {
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
	listPath := filepath.Join(dir, "list.txt")
	if err := os.WriteFile(listPath, []byte(list.String()), 0o600); err != nil {
		return nil, fmt.Errorf("writing OCR list: %w", err)
	}
	out, err := t.runFile(ctx, listPath, "-l", lang, "--psm", strconv.Itoa(psm), "--dpi", "300",
		"-c", "preserve_interword_spaces=1", "tsv")
	if err != nil {
		return nil, err
	}
	return parseReadings(out, len(imgs))
}

// parseReadings gathers the words of TSV output by page, in Tesseract's reading order, into one
// text per page; words on new lines are joined without a space for CJK and with one otherwise.
func parseReadings(data []byte, pages int) ([]reading, error) {
	out := make([]reading, pages)
	weights := make([]float64, pages)
	lastLine := make([]string, pages)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		page, err := strconv.Atoi(f[1])
		if err != nil || page < 1 || page > pages {
			continue
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		text := strings.TrimSpace(f[11])
		if err != nil || conf < 0 || text == "" {
			continue
		}
		p := page - 1
		lineKey := f[2] + "." + f[3] + "." + f[4]
		if out[p].Text != "" && (lineKey != lastLine[p] || !isCJKText(text)) {
			if !isCJKText(text) || !isCJKText(out[p].Text) {
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

func isCJKText(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}

// scriptCounts counts the letters of s by script.
type scriptCounts struct{ Kana, Han, Hangul, Latin, Other int }

func countScripts(s string) scriptCounts {
	var c scriptCounts
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			c.Kana++
		case unicode.Is(unicode.Han, r):
			c.Han++
		case unicode.Is(unicode.Hangul, r):
			c.Hangul++
		case unicode.Is(unicode.Latin, r):
			c.Latin++
		case unicode.IsLetter(r):
			c.Other++
		}
	}
	return c
}

// cjkLanguage names the language whose script dominates the counts: kana make Japanese (kanji
// alone could be Chinese, but no Japanese sentence goes long without kana), Hangul Korean, Han
// alone Chinese; "" when CJK letters are not the majority.
func (c scriptCounts) cjkLanguage() string {
	cjk := c.Kana + c.Han + c.Hangul
	if cjk == 0 || cjk < c.Latin+c.Other {
		return ""
	}
	switch {
	case c.Hangul*2 >= cjk:
		return "ko"
	case c.Kana*10 >= cjk:
		return "ja"
	}
	return "zh"
}
