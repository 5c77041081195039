package ocr

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"strings"
	"sync"
	"unicode"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/engine/clean"
	"github.com/vtsproject/vts/internal/engine/detect"
	"github.com/vtsproject/vts/internal/engine/find"
	"github.com/vtsproject/vts/internal/engine/letter"
	"github.com/vtsproject/vts/internal/engine/ocr/translator"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/read"
	"github.com/vtsproject/vts/internal/glossary"
	"github.com/vtsproject/vts/internal/imageio"
)

// Translate implements engine.Engine.
func (e *Engine) Translate(ctx context.Context, req engine.Request) (*engine.Response, error) {
	p, err := e.plan(req.SourceLang, req.TargetLang, req.Mode)
	if err != nil {
		return nil, engine.Permanent("this translation is not available", err)
	}
	src, info, err := imageio.Decode(req.Image)
	if err != nil {
		return nil, engine.Permanent("the image could not be read", err)
	}
	size, err := targetSize(src.Bounds(), req.Resolution)
	if err != nil {
		return nil, engine.Permanent("the resolution is not offered", err)
	}
	format := req.Format
	if format == "" {
		format = info.Format
	}
	img := toRGBA(src, size)
	src = nil // the decoded source can be collected while OCR runs

	progress := func(stage string) {
		if req.Progress != nil {
			req.Progress(stage)
		}
	}

	progress("ocr")
	var detection *engine.Detection
	if len(p.cjk) > 0 {
		mp, err := e.readCJK(ctx, img, p)
		if err != nil {
			return nil, err
		}
		detection = mp.detection
		switch {
		case mp.lang != "":
			pg, cleaned, err := e.translateCJK(ctx, req, p, img, format, mp, progress)
			if err != nil {
				return nil, err
			}
			resp, err := respond(pg, format)
			if err != nil {
				return nil, err
			}
			resp.Cleaned = cleaned
			e.log.DebugContext(ctx, "ocr engine translated manga page", "file", req.Filename, "lang", mp.lang, "blocks", resp.Blocks, "detection", detect.Reason(detection))
			return resp, nil
		case mp.latin && len(p.candidates) == 0:
			return nil, engine.Permanent(fmt.Sprintf("the text on this page is in the Latin script, which cannot be translated to %s here", languageName(p.dst)), nil)
		case !mp.latin && len(p.candidates) == 0 && mp.looksLikeText():
			// Lettering was found, but not in a script we can read with confidence: an
			// honest failure (refunded) rather than a page returned as if translated.
			return nil, engine.Permanent("the text on this page could not be read with confidence in "+strings.Join(p.cjk, ", "), nil)
		}
	}
	if len(p.candidates) == 0 {
		return e.unchanged(req, img, format)
	}
	pg, err := e.translateLatin(ctx, req, p, img, detection, progress)
	if err != nil {
		return nil, err
	}
	if pg == nil {
		return e.unchanged(req, img, format)
	}
	return respond(pg, format)
}

// respond encodes the lettered page and its transcript, the page model's serialized form.
func respond(pg *page.Page, format string) (*engine.Response, error) {
	data, err := encodeLike(pg.Image, format)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, b := range pg.Blocks {
		if b.Status == page.Lettered {
			n++
		}
	}
	return &engine.Response{Image: data, Format: format, Blocks: n, Transcript: pg.Transcript()}, nil
}

// translateLatin reads a page in a Latin-script (or other non-CJK) language, translates, cleans
// and letters it. It returns nil when nothing on the page was lettered.
func (e *Engine) translateLatin(ctx context.Context, req engine.Request, p planned, img *image.RGBA, detection *engine.Detection, progress func(string)) (*page.Page, error) {
	groups, lang, err := e.recognise(ctx, img, p)
	if err != nil {
		return nil, err
	}
	tr := e.translatorFor(p.mode, lang, p.dst)
	if len(groups) == 0 || lang == p.dst || tr == nil {
		return nil, nil
	}
	pg := &page.Page{Image: img, Name: req.Filename, SourceLang: lang, TargetLang: p.dst, Engine: "ocr"}
	if p.auto {
		pg.Detection = detect.LatinDetection(detection, lang, p.candidates)
	}
	progress("translate")
	texts := make([]string, len(groups))
	shout := make([]bool, len(groups))
	for i, g := range groups {
		texts[i], shout[i] = unshout(g.Text)
	}
	res, err := tr.Translate(ctx, translator.Request{Src: lang, Dst: p.dst, Texts: texts, CustomPrompt: req.CustomPrompt,
		Glossary: parseGlossary(req.Glossary), Previous: previousExchange(req.Previous)})
	if err != nil {
		return nil, translationError(tr.Name(), err)
	}
	out := res.Translations
	for i := range out {
		if shout[i] {
			out[i] = strings.ToUpper(out[i])
		}
	}
	for i, g := range groups {
		conf := 0.0
		for _, l := range g.Lines {
			for _, w := range l.Words {
				conf += w.Conf / 100 / float64(len(l.Words)*len(g.Lines))
			}
		}
		b := page.Block{ID: page.ID(i), Box: g.Box, Kind: page.Free, Lang: lang, Source: g.Text, Confidence: round2(conf), Status: page.Translated}
		if i < len(out) {
			b.Translation = out[i]
		}
		if strings.TrimSpace(b.Translation) == "" {
			// Nothing to put back: the original stays rather than a hole.
			b.Status, b.Reason = page.Skipped, "the translator gave no translation"
		}
		pg.Blocks = append(pg.Blocks, b)
	}
	progress("render")
	n := e.render(pg, groups)
	e.log.DebugContext(ctx, "ocr engine translated page", "file", req.Filename, "lang", lang, "blocks", n, "detection", detect.Reason(pg.Detection))
	if n == 0 {
		return nil, nil
	}
	return pg, nil
}

// unchanged answers a page without text to translate: the upload itself when no resizing was
// asked for, so a text-free page comes back byte for byte.
func (e *Engine) unchanged(req engine.Request, img *image.RGBA, format string) (*engine.Response, error) {
	if req.Resolution == "" || req.Resolution == "original" {
		return &engine.Response{Image: req.Image, Format: format}, nil
	}
	data, err := encodeLike(img, format)
	if err != nil {
		return nil, err
	}
	return &engine.Response{Image: data, Format: format}, nil
}

func encodeLike(img *image.RGBA, format string) ([]byte, error) {
	data, err := imageio.EncodeBytes(img, format)
	if err != nil {
		return nil, fmt.Errorf("encoding translated page as %s: %w", format, err)
	}
	return data, nil
}

// parseGlossary reads the job's glossary, validated at upload; what cannot be read is dropped
// rather than failing a page that has already been paid for.
func parseGlossary(text string) []glossary.Entry {
	entries, _ := glossary.Parse(text)
	return entries
}

// previousExchange turns the previous page's transcript into translator context.
func previousExchange(prev *engine.Transcript) *translator.Exchange {
	if prev == nil {
		return nil
	}
	ex := &translator.Exchange{}
	for _, b := range prev.Blocks {
		if b.Translation != "" {
			ex.Source = append(ex.Source, b.Source)
			ex.Translation = append(ex.Translation, b.Translation)
		}
	}
	if len(ex.Source) == 0 {
		return nil
	}
	return ex
}

// recognise finds the blocks of lettering on the page, in page coordinates, and the language
// they are in.
func (e *Engine) recognise(ctx context.Context, img *image.RGBA, p planned) ([]find.Group, string, error) {
	view := read.Prepare(img, p.mode.Effort >= EffortBest)
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
	case p.mode.Effort == EffortFast && read.MostlyDark(view.Gray):
		passes = []pass{{read.Inverted(view.Gray), true}}
	case p.mode.Effort == EffortFast:
		passes = []pass{{view.Gray, false}}
	default:
		passes = []pass{{view.Gray, false}, {read.Inverted(view.Gray), true}}
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
	words := find.CleanWords(all, view.Gray.Bounds().Dy())
	bounds := img.Bounds()
	kept := words[:0]
	for _, w := range words {
		w.Box = scaleRect(w.Box, 1/view.Scale).Intersect(bounds)
		// Tesseract binarises the whole page at once, so a smooth gradient or soft shading
		// yields "words" at its threshold edge. Real lettering stands out from its own
		// surroundings.
		if find.LocalContrast(img, w.Box) >= find.MinInkContrast {
			kept = append(kept, w)
		}
	}
	words = kept
	blocks := find.GroupBlocks(find.GroupLines(words))
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

// render erases the original lettering of the translated blocks of pg (found as groups) and
// letters the translations; each lettered block keeps the area it was lettered into as its shape,
// the others their box. It returns how many it lettered.
func (e *Engine) render(pg *page.Page, groups []find.Group) int {
	img := pg.Image
	m := &page.Mask{Box: img.Bounds(), Mask: make([]bool, img.Bounds().Dx()*img.Bounds().Dy())}
	type style struct {
		bg, ink color.RGBA
		hasInk  bool
	}
	styles := make([]style, len(groups))
	for i, g := range groups {
		if pg.Blocks[i].Status != page.Translated {
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
		styles[i] = style{bg: best.Background, ink: best.Ink, hasInk: best.InkPixels > 0}
	}
	clean.Fill(img, m)

	n := 0
	for i, g := range groups {
		b := &pg.Blocks[i]
		b.Shape = page.Corners(b.Box)
		if b.Status != page.Translated {
			continue
		}
		lh := 0
		for _, l := range g.Lines {
			lh = max(lh, find.LineHeight(l))
		}
		area := e.areaFor(img, groups, i, styles[i].bg, lh)
		// A word box spans about 0.8 em (cap height plus some descenders); the translation may
		// not grow past the original lettering's size, only shrink to fit.
		e.fonts.Box(img, area, b.Translation, pg.TargetLang, float64(lh)/0.8*1.1, letter.InkFor(styles[i].ink, styles[i].bg, styles[i].hasInk))
		b.Shape, b.Status = page.Corners(area), page.Lettered
		n++
	}
	return n
}

// areaFor is the box to letter block i into: the block's own box, grown into the surrounding
// background (the rest of the bubble) by up to two line heights across and one down where that background is plain,
// so a longer translation keeps a readable size, then inset by a small margin.
func (e *Engine) areaFor(img *image.RGBA, blocks []find.Group, i int, bg color.RGBA, lh int) image.Rectangle {
	box := blocks[i].Box
	bounds := img.Bounds()
	plain := func(r image.Rectangle) bool {
		r = r.Intersect(bounds)
		if r.Empty() || r != r.Intersect(bounds) {
			return false
		}
		for j, o := range blocks {
			if j != i && r.Overlaps(o.Box) {
				return false
			}
		}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if colorDiff(img.RGBAAt(x, y), bg) > 40 {
					return false
				}
			}
		}
		return true
	}
	step := max(1, lh/8)
	limitX, limitY := 2*lh, lh
	for grown := 0; grown < limitX; grown += step {
		l := image.Rect(box.Min.X-step, box.Min.Y, box.Min.X, box.Max.Y)
		r := image.Rect(box.Max.X, box.Min.Y, box.Max.X+step, box.Max.Y)
		if l.Min.X < bounds.Min.X || r.Max.X > bounds.Max.X || !plain(l) || !plain(r) {
			break
		}
		box.Min.X, box.Max.X = l.Min.X, r.Max.X
	}
	for grown := 0; grown < limitY; grown += step {
		t := image.Rect(box.Min.X, box.Min.Y-step, box.Max.X, box.Min.Y)
		b := image.Rect(box.Min.X, box.Max.Y, box.Max.X, box.Max.Y+step)
		if t.Min.Y < bounds.Min.Y || b.Max.Y > bounds.Max.Y || !plain(t) || !plain(b) {
			break
		}
		box.Min.Y, box.Max.Y = t.Min.Y, b.Max.Y
	}
	margin := lh / 6
	if box.Dx() > 4*margin && box.Dy() > 2*margin {
		box = box.Inset(margin)
	}
	return box
}

// colorDiff is page.ColorDist.
var colorDiff = page.ColorDist
