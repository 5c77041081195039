package lines

import (
	"cmp"
	"image"
	"slices"
	"strings"
	"unicode"

	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/raster"
)

// Line is a run of words on one baseline.
type Line struct {
	Box   image.Rectangle
	Words []page.Word
}

// Group is a unit of Latin lettering translated and typeset as one: a speech bubble, a caption,
// a paragraph.
type Group struct {
	Box   image.Rectangle
	Lines []Line
	Text  string
}

// minConfidence drops recognitions Tesseract itself doubts: on comic art those are mostly
// hatching, speed lines and sound effects read as letters.
const minConfidence = 55

// CleanWords removes junk and merges the words of several passes (normal and inverted image),
// keeping the more confident reading where two passes saw the same word.
func CleanWords(words []page.Word, pageH int) []page.Word {
	var kept []page.Word
	for _, w := range words {
		if w.Conf < minConfidence || w.Box.Dy() < 6 || w.Box.Dy() > pageH/4 {
			continue
		}
		letters := 0
		for _, r := range w.Text {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				letters++
			}
		}
		if letters == 0 || (letters == 1 && len([]rune(w.Text)) == 1 && w.Conf < 80 && !unicode.IsUpper([]rune(w.Text)[0])) {
			continue
		}
		// Very wide or very tall boxes for few characters are art, not text.
		if n := len([]rune(w.Text)); w.Box.Dx() > w.Box.Dy()*3*max(n, 1)+w.Box.Dy() {
			continue
		}
		kept = append(kept, w)
	}
	slices.SortFunc(kept, func(a, b page.Word) int { return cmp.Compare(b.Conf, a.Conf) })
	var out []page.Word
next:
	for _, w := range kept {
		for _, o := range out {
			if raster.OverlapRatio(w.Box, o.Box) > 0.3 {
				continue next
			}
		}
		out = append(out, w)
	}
	return out
}

// GroupLines joins words whose boxes share most of their height and sit close along x.
func GroupLines(words []page.Word) []Line {
	slices.SortFunc(words, func(a, b page.Word) int { return cmp.Compare(a.Box.Min.X, b.Box.Min.X) })
	var lines []Line
	for _, w := range words {
		best, bestScore := -1, 0.0
		for i, l := range lines {
			last := l.Words[len(l.Words)-1].Box
			h := min(w.Box.Dy(), last.Dy())
			ov := min(w.Box.Max.Y, l.Box.Max.Y) - max(w.Box.Min.Y, l.Box.Min.Y)
			gap := w.Box.Min.X - last.Max.X
			if float64(ov) < 0.5*float64(h) || gap > int(1.5*float64(max(w.Box.Dy(), last.Dy()))) || gap < -h {
				continue
			}
			score := float64(ov) / float64(h)
			if score > bestScore {
				best, bestScore = i, score
			}
		}
		if best < 0 {
			lines = append(lines, Line{Box: w.Box, Words: []page.Word{w}})
			continue
		}
		lines[best].Words = append(lines[best].Words, w)
		lines[best].Box = lines[best].Box.Union(w.Box)
	}
	return lines
}

// GroupBlocks joins lines stacked closely above one another with overlapping horizontal
// extents and similar letter heights: lettering in a bubble is centred, so lines of different
// widths still overlap.
func GroupBlocks(lines []Line) []Group {
	groups := raster.Cluster(lines, func(l Line) (int, int) { return l.Box.Min.X, l.Box.Max.X }, sameBlock)
	var blocks []Group
	for _, ls := range groups {
		slices.SortFunc(ls, func(a, b Line) int { return cmp.Compare(a.Box.Min.Y, b.Box.Min.Y) })
		b := Group{Box: ls[0].Box, Lines: ls}
		for _, l := range ls[1:] {
			b.Box = b.Box.Union(l.Box)
		}
		b.Text = blockText(ls)
		blocks = append(blocks, b)
	}
	// Reading order: top to bottom, then left to right, so a translator sees dialogue in order.
	slices.SortFunc(blocks, func(a, b Group) int {
		if c := cmp.Compare(a.Box.Min.Y, b.Box.Min.Y); c != 0 {
			return c
		}
		return cmp.Compare(a.Box.Min.X, b.Box.Min.X)
	})
	return blocks
}

// LineHeight is the median height of a line's words: the letter size, which a word with a
// descender or a tall capital alone does not set.
func LineHeight(l Line) int {
	hs := make([]int, len(l.Words))
	for i, w := range l.Words {
		hs[i] = w.Box.Dy()
	}
	slices.Sort(hs)
	return hs[len(hs)/2]
}

func sameBlock(a, b Line) bool {
	if a.Box.Min.Y > b.Box.Min.Y {
		a, b = b, a
	}
	ha, hb := float64(LineHeight(a)), float64(LineHeight(b))
	if max(ha, hb) > 1.7*min(ha, hb) {
		return false
	}
	gap := float64(b.Box.Min.Y - a.Box.Max.Y)
	if gap > 0.9*max(ha, hb) || gap < -0.5*min(ha, hb) {
		return false
	}
	xov := min(a.Box.Max.X, b.Box.Max.X) - max(a.Box.Min.X, b.Box.Min.X)
	return xov > 0
}

// blockText joins the lines of a block into running text, rejoining words hyphenated at a line
// end.
func blockText(ls []Line) string {
	var sb strings.Builder
	for i, l := range ls {
		ws := slices.Clone(l.Words)
		slices.SortFunc(ws, func(a, b page.Word) int { return cmp.Compare(a.Box.Min.X, b.Box.Min.X) })
		for j, w := range ws {
			if j > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(w.Text)
		}
		if i < len(ls)-1 {
			s := sb.String()
			if strings.HasSuffix(s, "-") && len(s) > 1 && unicode.IsLetter(rune(s[len(s)-2])) {
				sb.Reset()
				sb.WriteString(s[:len(s)-1])
				continue
			}
			sb.WriteByte(' ')
		}
	}
	return sb.String()
}
