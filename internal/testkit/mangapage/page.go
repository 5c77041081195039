package mangapage

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
)

// Kinds of annotated text.
const (
	KindBubble  = "bubble"  // dialogue in a balloon
	KindCaption = "caption" // narration in a box
	KindFree    = "free"    // lettering on the art, without a balloon
	KindSFX     = "sfx"     // a sound effect drawn as art: not dialogue
)

// Options chooses what kind of page Generate draws. The zero value draws a Japanese page of
// a random size with random degradations.
type Options struct {
	// Lang is the lettering's language: "ja" (the default), "ko" (a webtoon strip) or
	// "zh-Hans".
	Lang string
	// Width and Height force the page size; zero picks one of the usual sizes.
	Width, Height int
	// Format forces "png" or "jpeg"; empty picks one.
	Format string
	// Pristine turns degradations off (resampling, rotation, blur, noise, paper tint and JPEG
	// loss): the page as drawn.
	Pristine bool
}

// Page is a generated page and its annotations.
type Page struct {
	Seed int64
	// Image is Encoded decoded: the pixels an engine sees.
	Image   image.Image
	Encoded []byte
	Format  string // "png" or "jpeg"
	Lang    string
	// Bubbles lists the lettering in reading order.
	Bubbles []Bubble
	// Notes says how the page was drawn and degraded, for reports.
	Notes string
}

// Bubble is one annotated piece of lettering.
type Bubble struct {
	// Box is the bounding box of the lettering's ink (with its furigana).
	Box image.Rectangle
	// Balloon is the bounding box of the balloon or caption box around it (without its tail);
	// zero for free text and sound effects.
	Balloon     image.Rectangle
	Kind        string // KindBubble, KindCaption, KindFree or KindSFX
	Lang        string
	Vertical    bool
	Text        string // as lettered, without furigana; Japanese and Chinese have no spaces
	Translation string // natural English
	// Ink is the coverage of this lettering's own glyphs (255 = fully ink) in page
	// coordinates: the pixels a cleaned page must no longer show. Nil when unknown.
	Ink *image.Alpha
}

// Dialogue reports whether b is text a translation must carry: anything but a sound effect.
func (b Bubble) Dialogue() bool { return b.Kind != KindSFX }

// Generate draws the page of the given seed. The same seed and options give the same page,
// byte for byte.
func Generate(seed int64, opt Options) (Page, error) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6d616e6761706167))
	lang := opt.Lang
	if lang == "" {
		lang = "ja"
	}
	if _, ok := dialogueFaces[lang]; !ok {
		return Page{}, fmt.Errorf("mangapage: language %q is not drawn (ja, ko, zh-Hans)", lang)
	}
	g := &generator{rng: rng, lang: lang, opt: opt}
	if err := g.fonts(); err != nil {
		return Page{}, err
	}
	g.size()
	if lang == "ko" {
		g.webtoonPanels()
	} else {
		g.panels = layoutPanels(rng, g.rw, g.rh)
	}
	g.page = image.NewGray(image.Rect(0, 0, g.rw, g.rh))
	for i := range g.page.Pix {
		g.page.Pix[i] = 255
	}
	for i := range g.panels {
		drawPanel(rng, g.page, &g.panels[i], g.u)
	}
	if err := g.letter(); err != nil {
		return Page{}, err
	}
	p, err := g.finish(seed)
	if err != nil {
		return Page{}, err
	}
	return p, nil
}

// Corpus generates n Japanese pages from seeds seed, seed+1, ….
func Corpus(n int, seed int64) ([]Page, error) {
	out := make([]Page, 0, n)
	for i := range n {
		p, err := Generate(seed+int64(i), Options{})
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

type generator struct {
	rng  *rand.Rand
	lang string
	opt  Options

	w, h   int     // the output size
	rw, rh int     // the drawing size (larger when the page is later shrunk, as a screenshot)
	u      float64 // a thousandth of the drawing width
	s      float64 // the em size of dialogue
	page   *image.Gray
	tint   *image.RGBA // webtoon colour, multiplied in at the end; nil for paper
	panels []panel

	face, bold, sfx *sfnt.Font
	kanji           *sfnt.Font // gothic kanji for the antique style; nil when unused
	faceName        string
	items           []*item
	taken           []image.Rectangle
	notes           []string
}

// item is a piece of lettering placed on the page.
type item struct {
	Kind     string
	D        dialogue
	Text     string
	Vertical bool
	Mask     *image.Alpha // the glyphs' coverage in drawing coordinates
	Balloon  *balloon
	Halo     float64 // radius of a white outline around the glyphs (free text)
	SFXWhite bool    // a white sound effect outlined in black
	Panel    int
}

func (g *generator) fonts() error {
	faces := available(dialogueFaces[g.lang])
	sfx := available(sfxFaces[g.lang])
	if len(faces) == 0 || len(sfx) == 0 {
		return fmt.Errorf("mangapage: no font for %s installed (fonts-ipafont, fonts-noto-cjk)", g.lang)
	}
	tf := pick(g.rng, faces)
	var err error
	if g.face, err = tf.load(); err != nil {
		return err
	}
	g.faceName = tf.Name
	var bold []typeface
	for _, f := range faces {
		if f.Bold {
			bold = append(bold, f)
		}
	}
	bt := tf
	if len(bold) > 0 {
		bt = pick(g.rng, bold)
	}
	if g.bold, err = bt.load(); err != nil {
		return err
	}
	g.sfx, err = pick(g.rng, sfx).load()
	if err != nil {
		return err
	}
	// The "antique" style of most published manga: mincho kana with gothic kanji.
	if g.lang == "ja" && (strings.Contains(tf.Name, "Mincho") || strings.Contains(tf.Name, "Serif")) {
		if g.rng.Float64() < 0.6 {
			kt := pick(g.rng, []typeface{{Name: "IPAGothic", Path: ipaGothic}, {Name: "Noto Sans CJK JP Bold", Path: notoSansB, Index: notoJP}})
			if len(available([]typeface{kt})) == 1 {
				if g.kanji, err = kt.load(); err != nil {
					return err
				}
				g.faceName += " + " + kt.Name + " kanji"
			}
		}
	}
	return nil
}

// size picks the page size: phone screenshots, web releases, 300-dpi scans; webtoons are
// tall strips.
func (g *generator) size() {
	w, h := g.opt.Width, g.opt.Height
	if w == 0 || h == 0 {
		if g.lang == "ko" {
			w = pick(g.rng, []int{690, 720, 800, 800})
			h = 4000 + g.rng.IntN(1800)
		} else {
			sz := pick(g.rng, [][2]int{{720, 1024}, {750, 1080}, {827, 1170}, {960, 1378}, {1100, 1600}, {1280, 1820}, {1654, 2339}, {2048, 2912}, {2400, 3400}})
			w = int(float64(sz[0]) * uniform(g.rng, 0.97, 1.03))
			h = int(float64(sz[1]) * uniform(g.rng, 0.97, 1.03))
		}
	}
	g.w, g.h = w, h
	f := 1.0
	// A phone-sized page is often a shrunk scan: drawing it larger and resampling it down
	// without filtering gives the tone its moiré.
	if !g.opt.Pristine && w < 1000 && g.lang != "ko" && g.rng.Float64() < 0.5 {
		f = uniform(g.rng, 1.3, 1.8)
		g.notes = append(g.notes, fmt.Sprintf("resampled ×%.2f", 1/f))
	}
	g.rw, g.rh = int(float64(w)*f), int(float64(h)*f)
	g.u = float64(g.rw) / 1000
	switch g.lang {
	case "ko":
		g.s = math.Max(15*f, float64(g.rw)*uniform(g.rng, 0.024, 0.032))
	default:
		// Thin mincho strokes need a few more pixels than gothic ones to survive a phone
		// screen.
		least := 13.0
		if strings.Contains(g.faceName, "Mincho") || strings.Contains(g.faceName, "Serif") {
			least = 15
		}
		g.s = math.Max(least*f, float64(g.rw)*uniform(g.rng, 0.018, 0.026))
	}
}

// webtoonPanels stacks full-width panels with wide gaps down a tall strip, in colour.
func (g *generator) webtoonPanels() {
	g.tint = image.NewRGBA(image.Rect(0, 0, g.rw, g.rh))
	for i := range g.tint.Pix {
		g.tint.Pix[i] = 255
	}
	y := float64(g.rh) * uniform(g.rng, 0.01, 0.04)
	for y < float64(g.rh)*0.9 {
		ph := float64(g.rw) * uniform(g.rng, 0.7, 1.4)
		m := 0.0
		if g.rng.Float64() < 0.5 {
			m = float64(g.rw) * uniform(g.rng, 0.04, 0.08)
		}
		if y+ph > float64(g.rh) {
			ph = float64(g.rh) - y - 10
		}
		q := []pt{{m, y}, {float64(g.rw) - m, y}, {float64(g.rw) - m, y + ph}, {m, y + ph}}
		g.panels = append(g.panels, panel{Quad: q, Box: bounds(q).Intersect(image.Rect(0, 0, g.rw, g.rh))})
		// A pastel gradient for the panel's colour.
		c0 := [3]float64{uniform(g.rng, 150, 255), uniform(g.rng, 150, 255), uniform(g.rng, 150, 255)}
		c1 := [3]float64{uniform(g.rng, 180, 255), uniform(g.rng, 180, 255), uniform(g.rng, 180, 255)}
		b := g.panels[len(g.panels)-1].Box
		for py := b.Min.Y; py < b.Max.Y; py++ {
			t := float64(py-b.Min.Y) / float64(b.Dy())
			for px := b.Min.X; px < b.Max.X; px++ {
				i := g.tint.PixOffset(px, py)
				for k := range 3 {
					g.tint.Pix[i+k] = uint8(c0[k] + (c1[k]-c0[k])*t)
				}
			}
		}
		y += ph + float64(g.rw)*uniform(g.rng, 0.2, 0.6)
	}
}

// letter plans and draws every piece of lettering: sound effects on the art first, then free
// text, then balloons and captions.
func (g *generator) letter() error {
	face, err := newFace(g.face, g.s)
	if err != nil {
		return err
	}
	defer face.Close()
	g.notes = append([]string{fmt.Sprintf("%s %.0fpx", g.faceName, g.s*float64(g.w)/float64(g.rw))}, g.notes...)

	var lines, captions, sfx []dialogue
	switch g.lang {
	case "ja":
		lines, captions, sfx = japanese, captionsJA, sfxJA
	case "ko":
		lines, sfx = korean, sfxKO
	case "zh-Hans":
		lines, sfx = chinese, sfxZH
	}
	order := g.rng.Perm(len(lines))
	next := func() dialogue {
		d := lines[order[0]]
		order = append(order[1:], order[0])
		return d
	}

	// Sound effects.
	for range g.rng.IntN(4) {
		if it := g.placeSFX(pick(g.rng, sfx)); it != nil {
			g.items = append(g.items, it)
		}
	}
	// Dialogue.
	n := 3 + g.rng.IntN(7)
	for i := range n {
		kind := KindBubble
		d := next()
		switch {
		case i == 0 && captions != nil && g.rng.Float64() < 0.35:
			kind, d = KindCaption, pick(g.rng, captions)
		case i == n-1 && g.rng.Float64() < 0.35:
			kind = KindFree
		}
		it, err := g.placeText(kind, d)
		if err != nil {
			return err
		}
		if it != nil {
			g.items = append(g.items, it)
		}
	}
	// Draw in layers.
	for _, it := range g.items {
		if it.Kind == KindSFX {
			halo := dilate(it.Mask, g.s*uniform(g.rng, 0.15, 0.35))
			if it.SFXWhite {
				paint(g.page, halo, nil, 0, 1)
				paint(g.page, it.Mask, nil, 255, 1)
			} else {
				paint(g.page, halo, nil, 255, 1)
				paint(g.page, it.Mask, nil, 0, 1)
			}
		}
	}
	for _, it := range g.items {
		switch {
		case it.Kind == KindSFX:
		case it.Balloon != nil:
			it.Balloon.draw(g.page)
			g.clearTint(it.Balloon)
			ink := uint8(0)
			if it.Balloon.Dark {
				ink = 255
			}
			paint(g.page, it.Mask, nil, ink, 1)
		default:
			if it.Halo > 0 {
				paint(g.page, dilate(it.Mask, it.Halo), nil, 255, 1)
			}
			paint(g.page, it.Mask, nil, 0, 1)
		}
	}
	return nil
}

// clearTint keeps balloons white on a colour page.
func (g *generator) clearTint(b *balloon) {
	if g.tint == nil {
		return
	}
	polys := append(append([][]pt{b.outer()}, b.TailOut...), b.Puffs...)
	for _, p := range polys {
		m := rasterize(g.tint.Rect, p)
		if m == nil {
			continue
		}
		for y := m.Rect.Min.Y; y < m.Rect.Max.Y; y++ {
			for x := m.Rect.Min.X; x < m.Rect.Max.X; x++ {
				a := int(m.Pix[m.PixOffset(x, y)])
				i := g.tint.PixOffset(x, y)
				for k := range 3 {
					v := int(g.tint.Pix[i+k])
					g.tint.Pix[i+k] = uint8(v + (255-v)*a/255)
				}
			}
		}
	}
}

// fits reports whether r is on the page and clear of everything placed so far.
func (g *generator) fits(r image.Rectangle, margin int) bool {
	m := max(2, int(g.s/2))
	page := image.Rect(m, m, g.rw-m, g.rh-m)
	if !r.In(page) {
		return false
	}
	for _, t := range g.taken {
		if r.Inset(-margin).Overlaps(t) {
			return false
		}
	}
	return true
}

// placeText lays out d, wraps it in a balloon of a style fitting kind, and finds it a place.
// It returns nil when the page has no room left.
func (g *generator) placeText(kind string, d dialogue) (*item, error) {
	rng := g.rng
	style := styleEllipse
	switch k := rng.Float64(); {
	case kind == KindCaption:
		style = styleCaption
	case kind == KindFree:
	case k < 0.42:
	case k < 0.64:
		style = styleRound
	case k < 0.72:
		style = styleCloud
	case k < 0.81:
		style = styleSpiky
	default:
		style = styleBorderless
	}
	var busy []int
	for i, p := range g.panels {
		if p.Busy {
			busy = append(busy, i)
		}
	}
	if style == styleBorderless && len(busy) == 0 {
		style = styleEllipse
	}
	size := g.s * uniform(rng, 0.92, 1.08)
	fnt := g.face
	if style == styleSpiky {
		size *= uniform(rng, 1.1, 1.3)
		fnt = g.bold
	}
	if kind == KindFree {
		size *= uniform(rng, 0.75, 0.95)
	}
	for range 3 {
		it, err := g.layout(kind, d, fnt, size, style)
		if err != nil {
			return nil, err
		}
		tb := it.Mask.Rect
		w, h := float64(tb.Dx()), float64(tb.Dy())
		var b balloon
		if kind != KindFree {
			b = makeBalloon(rng, style, w, h, size, g.u)
		}
		for range 60 {
			pi := rng.IntN(len(g.panels))
			if style == styleBorderless {
				pi = pick(rng, busy)
			}
			pb := g.panels[pi].Box
			ext := int(float64(min(pb.Dx(), pb.Dy())) * 0.12)
			pb = pb.Inset(-ext)
			var c pt
			if kind == KindCaption {
				// Captions hang in a panel's top corner.
				x := float64(pb.Min.X+ext) + w/2 + size
				if rng.Float64() < 0.6 {
					x = float64(pb.Max.X-ext) - w/2 - size
				}
				c = pt{x, float64(pb.Min.Y+ext) + h/2 + size}
			} else if kind == KindBubble && style != styleBorderless && rng.Float64() < 0.3 {
				// Over the frame: centred near one of the panel's edges.
				q := g.panels[pi].Quad
				k := rng.IntN(len(q))
				c = lerp(q[k], q[(k+1)%len(q)], uniform(rng, 0.15, 0.85)).add(pt{uniform(rng, -0.2, 0.2) * w, uniform(rng, -0.2, 0.2) * h})
			} else {
				c = pt{uniform(rng, float64(pb.Min.X), float64(pb.Max.X)), uniform(rng, float64(pb.Min.Y), float64(pb.Max.Y))}
			}
			c = pt{math.Round(c.X), math.Round(c.Y)}
			var occupied image.Rectangle
			var placed balloon
			if kind == KindFree {
				occupied = tb.Add(image.Pt(int(c.X-w/2), int(c.Y-h/2))).Inset(-int(size / 2))
			} else {
				placed = b.translate(c)
				occupied = placed.box()
			}
			if !g.fits(occupied, int(size/2)) {
				continue
			}
			off := image.Pt(int(c.X-w/2)-tb.Min.X, int(c.Y-h/2)-tb.Min.Y)
			it.Mask = moved(it.Mask, off)
			if kind != KindFree {
				it.Balloon = &placed
			} else if halo := rng.Float64() < 0.5; halo || g.dark(it.Mask.Rect) {
				// Text on the art has a white outline, unless the art under it is white.
				it.Halo = size * uniform(rng, 0.12, 0.25)
			}
			it.Panel = pi
			g.taken = append(g.taken, occupied)
			return it, nil
		}
		size *= 0.85
	}
	return nil, nil
}

// dark reports whether more than 2 % of the drawing under r is darker than mid-grey.
func (g *generator) dark(r image.Rectangle) bool {
	r = r.Intersect(g.page.Rect)
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if g.page.Pix[g.page.PixOffset(x, y)] < 128 {
				n++
			}
		}
	}
	return n*50 > r.Dx()*r.Dy()
}

// layout sets d's text at size into a trimmed mask with its origin at the ink's top-left.
func (g *generator) layout(kind string, d dialogue, fnt *sfnt.Font, size float64, style balloonStyle) (*item, error) {
	rng := g.rng
	face, err := newFace(fnt, size)
	if err != nil {
		return nil, err
	}
	defer face.Close()
	it := &item{Kind: kind, D: d}
	var m *image.Alpha
	switch {
	case g.lang == "ja" && (kind != KindCaption || rng.Float64() < 0.5):
		s := parseJA(d.Source)
		it.Text, it.Vertical = s.text(), true
		maxLen := 5 + rng.IntN(6)
		if style == styleSpiky {
			maxLen = 4 + rng.IntN(4)
		}
		every := rng.Float64() < 0.35
		cols := columns(s, maxLen, every)
		for len(cols) > 5 {
			maxLen++
			cols = columns(s, maxLen, every)
		}
		var kanji font.Face
		if g.kanji != nil && fnt == g.face {
			if kanji, err = newFace(g.kanji, size); err != nil {
				return nil, err
			}
			defer kanji.Close()
		}
		rs := size * uniform(rng, 0.42, 0.52)
		rface, err := newFace(fnt, rs)
		if err != nil {
			return nil, err
		}
		defer rface.Close()
		m = setVertical(s, cols, vstyle{
			Face: face, Kanji: kanji, Size: size, Ruby: rface, RubySize: rs,
			Pitch: size * uniform(rng, 1.0, 1.1), Gap: size * uniform(rng, 0.12, 0.35),
			Centered: rng.Float64() < 0.3, TCY: rng.Float64() < 0.5,
		})
	case g.lang == "ja":
		// A horizontal caption.
		s := parseJA(d.Source)
		it.Text = s.text()
		m = setHorizontal(wrapLines(s, 8+rng.IntN(8)), face, size, size*1.35)
	default:
		s := parsePlain(d.Source, g.lang != "ko")
		it.Text = d.Source
		m = setHorizontal(wrapLines(s, g.lineLength(s)), face, size, size*uniform(rng, 1.2, 1.45))
	}
	m = trim(m, 1)
	it.Mask = moved(m, m.Rect.Min.Mul(-1))
	return it, nil
}

// lineLength is how many characters a horizontal line holds: balloons are about as wide as
// tall.
func (g *generator) lineLength(s script) int {
	n := len(s.Glyphs)
	l := int(math.Ceil(math.Sqrt(float64(n) * uniform(g.rng, 2, 4))))
	if g.lang == "ko" {
		l += 3
	}
	return max(4, l)
}

// placeSFX draws a sound effect's glyphs large, turned, along a slanted path, into a mask,
// and finds it room on the art.
func (g *generator) placeSFX(d dialogue) *item {
	rng := g.rng
	size := g.s * uniform(rng, 2.5, 5)
	face, err := newFace(g.sfx, size)
	if err != nil {
		return nil
	}
	defer face.Close()
	runes := []rune(d.Source)
	vertical := rng.Float64() < 0.6
	angle := uniform(rng, -0.5, 0.5)
	step := size * uniform(rng, 0.8, 1.0)
	dir := polar(1, angle+math.Pi/2)
	if !vertical {
		dir = polar(1, angle)
	}
	span := step*float64(len(runes)) + size*2
	for range 40 {
		pi := rng.IntN(len(g.panels))
		pb := g.panels[pi].Box
		start := pt{uniform(rng, float64(pb.Min.X), float64(pb.Max.X)), uniform(rng, float64(pb.Min.Y), float64(pb.Max.Y))}
		end := start.add(dir.mul(span))
		r := bounds([]pt{start.sub(pt{size, size}), end.add(pt{size, size})})
		if !g.fits(r, 0) {
			continue
		}
		mask := image.NewAlpha(r)
		for i, ch := range runes {
			tmp := image.NewAlpha(image.Rect(0, 0, int(size*1.6), int(size*1.6)))
			adv, _ := face.GlyphAdvance(ch)
			drawGlyph(tmp, face, ch, (size*1.6-fx(adv))/2, size*1.6/2+0.38*size)
			c := start.add(dir.mul(step * (float64(i) + 0.5))).add(dir.perp().mul(uniform(rng, -0.15, 0.15) * size))
			rot := rotation(pt{size * 0.8, size * 0.8}, angle+uniform(rng, -0.25, 0.25))
			scale := uniform(rng, 0.85, 1.15)
			m := affine{A: rot.A * scale, B: rot.B * scale, C: c.X - (rot.A*size*0.8+rot.B*size*0.8)*scale, D: rot.D * scale, E: rot.E * scale, F: c.Y - (rot.D*size*0.8+rot.E*size*0.8)*scale}
			over(mask, transformAlpha(tmp, m, r))
		}
		g.taken = append(g.taken, r)
		return &item{Kind: KindSFX, D: d, Text: d.Source, Vertical: vertical, Mask: trim(mask, 1), SFXWhite: rng.Float64() < 0.4, Panel: pi}
	}
	return nil
}

// finish sorts the lettering into reading order, degrades the page and encodes it.
func (g *generator) finish(seed int64) (Page, error) {
	rng := g.rng
	// Reading order: panel by panel (right to left in a row for Japanese), then top to
	// bottom and right to left inside a panel.
	rtl := g.lang == "ja"
	slices.SortStableFunc(g.items, func(a, b *item) int {
		pa, pb := g.panelOrder(a.Panel, rtl), g.panelOrder(b.Panel, rtl)
		if pa != pb {
			return pa - pb
		}
		ka, kb := readKey(a, rtl), readKey(b, rtl)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})

	d := degradation{Format: g.opt.Format, Ink: 0, Paper: [3]float64{255, 255, 255}, Gray: g.tint == nil}
	scale := float64(g.w) / float64(g.rw)
	m := affine{A: scale, E: scale}
	if !g.opt.Pristine {
		if rng.Float64() < 0.6 {
			d.Angle = uniform(rng, -2, 2)
			m = rotation(pt{float64(g.w) / 2, float64(g.h) / 2}, d.Angle*math.Pi/180)
			m = affine{A: m.A * scale, B: m.B * scale, C: m.C, D: m.D * scale, E: m.E * scale, F: m.F}
		}
		if rng.Float64() < 0.6 {
			// A shrunk or small page is soft already.
			most := 1.1
			if g.rw != g.w || g.w < 1000 {
				most = 0.6
			}
			d.Blur = uniform(rng, 0.3, most)
		}
		d.Noise = uniform(rng, 0, 7)
		d.Ink = uniform(rng, 0, 45)
		if g.tint == nil && rng.Float64() < 0.35 {
			// A colour scan of yellowed paper.
			d.Gray = false
			p := uniform(rng, 228, 252)
			d.Paper = [3]float64{p + 3, p - uniform(rng, 2, 10), p - uniform(rng, 12, 35)}
		} else {
			p := uniform(rng, 232, 255)
			d.Paper = [3]float64{p, p, p}
		}
		d.Dust = rng.IntN(30)
		d.Quality = 55 + rng.IntN(38)
		if d.Format == "" {
			d.Format = "png"
			if rng.Float64() < 0.55 {
				d.Format = "jpeg"
			}
		}
	}
	if d.Format == "" {
		d.Format = "png"
	}
	img := d.apply(rng, g.page, g.tint, m, g.w, g.h)

	var buf bytes.Buffer
	switch d.Format {
	case "png":
		if err := png.Encode(&buf, img); err != nil {
			return Page{}, fmt.Errorf("mangapage: encoding png: %w", err)
		}
	case "jpeg":
		q := d.Quality
		if q == 0 {
			q = 92
		}
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
			return Page{}, fmt.Errorf("mangapage: encoding jpeg: %w", err)
		}
		dec, err := jpeg.Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			return Page{}, fmt.Errorf("mangapage: decoding own jpeg: %w", err)
		}
		img = dec
	default:
		return Page{}, errors.New("mangapage: format must be png or jpeg")
	}
	page := Page{Seed: seed, Image: img, Encoded: buf.Bytes(), Format: d.Format, Lang: g.lang}
	out := image.Rect(0, 0, g.w, g.h)
	for _, it := range g.items {
		ink := transformAlpha(it.Mask, m, out)
		b := Bubble{Kind: it.Kind, Lang: g.lang, Vertical: it.Vertical, Text: it.Text, Translation: it.D.English, Ink: ink, Box: inkBounds(ink)}
		if it.Balloon != nil {
			body := make([]pt, len(it.Balloon.Body))
			for i, p := range it.Balloon.outer() {
				body[i] = m.apply(p)
			}
			b.Balloon = bounds(body).Intersect(out)
		}
		if b.Box.Empty() {
			continue
		}
		if ink != nil {
			ink = trimmedTo(ink, b.Box.Inset(-2).Intersect(out))
			b.Ink = ink
		}
		page.Bubbles = append(page.Bubbles, b)
	}
	page.Notes = strings.Join(append(g.notes, d.String()), ", ")
	return page, nil
}

func (g *generator) panelOrder(i int, rtl bool) int {
	if !rtl || i >= len(g.panels) {
		return i
	}
	// Panels were made row by row, left to right; a row's panels share their top.
	row := func(j int) int { return g.panels[j].Box.Min.Y / max(1, g.rh/40) }
	first, last := i, i
	for first > 0 && abs(row(first-1)-row(i)) <= 1 {
		first--
	}
	for last < len(g.panels)-1 && abs(row(last+1)-row(i)) <= 1 {
		last++
	}
	return first + last - i
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func readKey(it *item, rtl bool) float64 {
	r := it.Mask.Rect
	x := float64(r.Min.X+r.Max.X) / 2
	if rtl {
		x = -x
	}
	return float64(r.Min.Y) + 0.3*x
}

// trimmedTo copies the part of a inside r.
func trimmedTo(a *image.Alpha, r image.Rectangle) *image.Alpha {
	r = r.Intersect(a.Rect)
	out := image.NewAlpha(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		copy(out.Pix[out.PixOffset(r.Min.X, y):out.PixOffset(r.Max.X, y)], a.Pix[a.PixOffset(r.Min.X, y):a.PixOffset(r.Max.X, y)])
	}
	return out
}
