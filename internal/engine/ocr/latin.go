package ocr

import (
	"context"
	"fmt"
	"image"
	"strings"
	"sync"
	"unicode"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/clean"
	"github.com/vtsproject/vts/internal/engine/crops"
	"github.com/vtsproject/vts/internal/engine/detect"
	"github.com/vtsproject/vts/internal/engine/letter"
	"github.com/vtsproject/vts/internal/engine/lines"
	"github.com/vtsproject/vts/internal/engine/page"
)

// latinReader reads a page in a Latin-script (or other non-CJK) language: Tesseract's words of
// the whole page grouped into paragraphs (lines.Group), each a free block lettered in rows over
// its own box grown into the plain background around it.
type latinReader struct {
	e *Engine
	// detection is the manga reader's evidence under auto, nil when it did not run.
	detection *engine.Detection
	// groups are the page's paragraphs, one per block of the page, in the same order.
	groups []lines.Group
}

// read answers nil, for the page to come back unchanged, when no text was found, when it is in
// the target language already, or when no translator serves its language.
func (r *latinReader) read(ctx context.Context, img *image.RGBA, p planned) (*page.Page, error) {
	groups, lang, err := r.e.recognise(ctx, img, p)
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 || lang == p.dst || r.e.translatorFor(p.mode, lang, p.dst) == nil {
		return nil, nil
	}
	r.groups = groups
	pg := &page.Page{Image: img, SourceLang: lang, TargetLang: p.dst, Engine: "ocr"}
	if p.auto {
		pg.Detection = detect.LatinDetection(r.detection, lang, p.candidates)
	}
	for i, g := range groups {
		conf := 0.0
		lh := 0
		for _, l := range g.Lines {
			lh = max(lh, lines.LineHeight(l))
			for _, w := range l.Words {
				conf += w.Conf / 100 / float64(len(l.Words)*len(g.Lines))
			}
		}
		pg.Blocks = append(pg.Blocks, page.Block{ID: page.ID(i), Box: g.Box, Kind: page.Free, Lang: lang, Source: g.Text,
			Confidence: round2(conf), Status: page.Read, Char: lh}) // a row's height, which the lettering may not outgrow
	}
	return pg, nil
}

// erase paints the glyphs of the translated blocks' words over from their surroundings, and
// keeps on each block the colours its lettering was set in, measured before: the translation is
// lettered in the same ink, on the same paper.
func (r *latinReader) erase(pg *page.Page) {
	img := pg.Image
	m := &page.Mask{Box: img.Bounds(), Mask: make([]bool, img.Bounds().Dx()*img.Bounds().Dy())}
	for i, g := range r.groups {
		b := &pg.Blocks[i]
		if b.Status != page.Translated {
			continue
		}
		var best clean.GlyphStats
		for _, l := range g.Lines {
			for _, w := range l.Words {
				st := clean.Glyphs(img, m, w.Box)
				if st.InkPixels > best.InkPixels {
					best = st
				}
			}
		}
		b.Paper, b.InkColor = best.Background, letter.InkFor(best.Ink, best.Background, best.InkPixels > 0)
	}
	clean.Fill(img, m)
}

// proofread: a Latin page keeps no cleaned page, and one with nothing lettered comes back as it
// was.
func (r *latinReader) proofread() bool { return false }

// recognise finds the blocks of lettering on the page, in page coordinates, and the language
// they are in.
func (e *Engine) recognise(ctx context.Context, img *image.RGBA, p planned) ([]lines.Group, string, error) {
	view := crops.Prepare(img, p.mode.Effort >= EffortBest)
	cands := p.candidates
	if len(cands) > 1 {
		cands = detect.NarrowByScript(ctx, e.tess, view.Gray, cands, e.hasOSD, e.log)
	}
	tl := make([]string, len(cands))
	for i, c := range cands {
		tl[i] = e.langs[c]
	}
	langs := strings.Join(tl, "+")

	// Sparse-text segmentation (--psm 11) finds lettering scattered over art; the blocks are
	// rebuilt from geometry below, so Tesseract's own layout analysis is not needed.
	type pass struct {
		img      *image.Gray
		inverted bool
	}
	var passes []pass
	switch {
	case p.mode.Effort == EffortFast && crops.MostlyDark(view.Gray):
		passes = []pass{{crops.Inverted(view.Gray), true}}
	case p.mode.Effort == EffortFast:
		passes = []pass{{view.Gray, false}}
	default:
		passes = []pass{{view.Gray, false}, {crops.Inverted(view.Gray), true}}
	}
	results := make([][]page.Word, len(passes))
	errs := make([]error, len(passes))
	var wg sync.WaitGroup
	for i, ps := range passes {
		wg.Go(func() {
			results[i], errs[i] = e.tess.Words(ctx, ps.img, langs, 11)
			for j := range results[i] {
				results[i][j].Inverted = ps.inverted
			}
		})
	}
	wg.Wait()
	var all []page.Word
	for i := range passes {
		if errs[i] != nil {
			return nil, "", fmt.Errorf("recognising text: %w", errs[i])
		}
		all = append(all, results[i]...)
	}
	words := lines.CleanWords(all, view.Gray.Bounds().Dy())
	bounds := img.Bounds()
	kept := words[:0]
	for _, w := range words {
		w.Box = scaleRect(w.Box, 1/view.Scale).Intersect(bounds)
		// Tesseract binarises the whole page at once, so a smooth gradient or soft shading
		// yields "words" at its threshold edge. Real lettering stands out from its own
		// surroundings.
		if page.LocalContrast(img, w.Box) >= page.MinInkContrast {
			kept = append(kept, w)
		}
	}
	words = kept
	blocks := lines.GroupBlocks(lines.GroupLines(words))
	var text strings.Builder
	for _, b := range blocks {
		text.WriteString(b.Text)
		text.WriteByte('\n')
	}
	return blocks, detect.Language(text.String(), cands), nil
}

func scaleRect(r image.Rectangle, s float64) image.Rectangle {
	return image.Rect(int(float64(r.Min.X)*s), int(float64(r.Min.Y)*s), int(float64(r.Max.X)*s+0.999), int(float64(r.Max.Y)*s+0.999))
}

// unshout turns all-caps lettering into sentence case for the translator, which reads capitals
// as names and acronyms, and reports that the translation should be capitalised again.
func unshout(s string) (string, bool) {
	upper, letters := 0, 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	if letters < 4 || upper*10 < letters*8 {
		return s, false
	}
	var sb strings.Builder
	start := true
	for _, r := range strings.ToLower(s) {
		if start && unicode.IsLetter(r) {
			r = unicode.ToUpper(r)
			start = false
		}
		if r == '.' || r == '!' || r == '?' {
			start = true
		}
		sb.WriteRune(r)
	}
	// "i" alone is the English pronoun, which lowercasing broke.
	out := strings.ReplaceAll(" "+sb.String()+" ", " i ", " I ")
	out = strings.ReplaceAll(out, " i'", " I'")
	return strings.TrimSpace(out), true
}
