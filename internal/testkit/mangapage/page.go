package mangapage

import (
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

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
	// Hard adds the kinds of lettering engines miss on published pages (see hard.go): short
	// shouts, open balloons, text on tone or art, square blocks of columns. Japanese only.
	Hard bool
	// SFX adds two to four sound effects in the looks and faces published pages draw them (see
	// sfx.go): also straight on the art without a halo, hollow, in any heavy face.
	SFX bool
	// Harsh draws the page as a scan shared as JPEG (see harsh.go): quality 60–80, softened
	// strokes, tinted and textured paper, light screentone in some balloons.
	Harsh bool
	// OtherFaces letters the dialogue in typefaces the engines were never tuned on (otherFaces
	// in fonts.go: a rounded gothic, a soft mincho, a thin and a bold gothic, a pen hand), the
	// page otherwise drawn as any other. Japanese only.
	OtherFaces bool
	// Plate also draws the page without its dialogue's lettering, as Page.Plate: what a
	// perfect erase leaves. It changes nothing of the page itself.
	Plate bool
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
	// Plate is the page as it would be without its dialogue's lettering: the glyphs and the
	// halos set around them on the art gone, the balloons, their tone, the sound effects and
	// the art kept, degraded and encoded as Image was (the same noise, the same paper). Nil
	// unless Options.Plate, or an annotation, gives one.
	Plate image.Image
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
	// Hard names the kind of hard lettering this is (HardShort, HardOpen, HardOnArt,
	// HardSquare), or is empty; only pages drawn with Options.Hard have any.
	Hard string
	// Ink is the coverage of this lettering's own glyphs (255 = fully ink) in page
	// coordinates: the pixels a cleaned page must no longer show. Nil when unknown.
	Ink *image.Alpha
}

// Dialogue reports whether b is text a translation must carry: anything but a sound effect.
func (b Bubble) Dialogue() bool { return b.Kind != KindSFX }

// Generate draws the page of the given seed. The same seed and options give the same page,
// byte for byte.
func Generate(seed int64, opt Options) (Page, error) {
	p, _, err := generate(seed, opt)
	return p, err
}

// generate draws the page and hands back the drawing too, for the tests.
func generate(seed int64, opt Options) (Page, *generator, error) {
	src := rand.NewPCG(uint64(seed), 0x6d616e6761706167)
	rng := rand.New(src)
	lang := opt.Lang
	if lang == "" {
		lang = "ja"
	}
	if _, ok := dialogueFaces[lang]; !ok {
		return Page{}, nil, fmt.Errorf("mangapage: language %q is not drawn (ja, ko, zh-Hans)", lang)
	}
	if opt.OtherFaces && lang != "ja" {
		return Page{}, nil, fmt.Errorf("mangapage: other faces are Japanese; %s pages are drawn in their own", lang)
	}
	g := &generator{rng: rng, src: src, lang: lang, opt: opt}
	if err := g.fonts(); err != nil {
		return Page{}, nil, err
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
		return Page{}, nil, err
	}
	p, err := g.finish(seed)
	if err != nil {
		return Page{}, nil, err
	}
	return p, g, nil
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
	src  *rand.PCG // rng's source, whose state the plate's degradation replays
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
	// under holds, for Options.Plate, what the dialogue's lettering was painted over, in the
	// order it was painted.
	under []patch
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
	SFXLook  sfxLook // the look of a sound effect of Options.SFX; unused otherwise
	Panel    int
	Hard     string // one of the Hard kinds, or empty
}

func (g *generator) fonts() error {
	faces := available(dialogueFaces[g.lang])
	if g.opt.OtherFaces {
		if faces = available(otherFaces); len(faces) < len(otherFaces) {
			return errors.New("mangapage: other faces not installed (fonts-motoya-l-maruberi, fonts-motoya-l-cedar, fonts-mplus, fonts-klee, fonts-umeplus)")
		}
	}
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
	if g.opt.SFX {
		if err := g.letterSFX(sfx); err != nil {
			return err
		}
	}
	if g.opt.Hard {
		if err := g.letterHard(next); err != nil {
			return err
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
		if it.Kind == KindSFX && g.opt.SFX && it.SFXLook != sfxHalo {
			g.drawSFX(it)
		} else if it.Kind == KindSFX {
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
			if g.opt.Harsh && !it.Balloon.Dark && g.rng.Float64() < 0.35 {
				g.toneBalloon(it.Balloon)
			}
			g.clearTint(it.Balloon)
			ink := uint8(0)
			if it.Balloon.Dark {
				ink = 255
			}
			g.keepUnder(it.Mask)
			paint(g.page, it.Mask, nil, ink, 1)
		default:
			g.keepUnder(it.Mask)
			if it.Halo > 0 {
				halo := dilate(it.Mask, it.Halo)
				g.keepUnder(halo)
				paint(g.page, halo, nil, 255, 1)
			}
			paint(g.page, it.Mask, nil, 0, 1)
		}
	}
	return nil
}

// patch is what a mask of lettering was painted over.
type patch struct {
	mask  *image.Alpha
	under []uint8 // the page under mask.Rect, row by row
}

// keepUnder saves, for Options.Plate, the page under m before lettering is painted there.
func (g *generator) keepUnder(m *image.Alpha) {
	if !g.opt.Plate || m == nil {
		return
	}
	r := m.Rect.Intersect(g.page.Rect)
	p := patch{mask: m, under: make([]uint8, 0, r.Dx()*r.Dy())}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		p.under = append(p.under, g.page.Pix[g.page.PixOffset(r.Min.X, y):][:r.Dx()]...)
	}
	g.under = append(g.under, p)
}

// plate is the drawing without its dialogue's lettering: the page with what the lettering was
// painted over put back, the last painted first.
func (g *generator) plate() *image.Gray {
	p := image.NewGray(g.page.Rect)
	copy(p.Pix, g.page.Pix)
	for _, u := range slices.Backward(g.under) {
		r := u.mask.Rect.Intersect(p.Rect)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if u.mask.Pix[u.mask.PixOffset(x, y)] > 0 {
					p.Pix[p.PixOffset(x, y)] = u.under[(y-r.Min.Y)*r.Dx()+x-r.Min.X]
				}
			}
		}
	}
	return p
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
	return g.place(kind, style, size, busy, func(size float64) (*item, error) { return g.layout(kind, d, fnt, size, style) })
}

// place lays text out with lay at size (smaller when it does not fit), wraps it in a balloon of
// style unless kind is free text, and finds it a place; busy lists the panels a borderless
// balloon may go in. It returns nil when the page has no room left.
func (g *generator) place(kind string, style balloonStyle, size float64, busy []int, lay func(size float64) (*item, error)) (*item, error) {
	rng := g.rng
	for range 3 {
		it, err := lay(size)
		if err != nil {
			return nil, err
		}
		if it == nil {
			return nil, nil
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
