// Package docpage draws ordinary printed pages (documents, letters, book pages, manuals,
// screenshots, signs) in English and Spanish, in many typefaces, on several kinds of paper, as
// PNG or JPEG. Language detection is tested on them: an ordinary Latin page must never be taken
// for Korean or Chinese, whatever its typeface or paper.
package docpage

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/vtsproject/vts/internal/imageio"
)

// Face is a typeface the pages are set in.
type Face struct {
	Name string
	Path string
	// Caps sets the page in capitals, as comic lettering is.
	Caps bool
}

// Faces are the typefaces of the corpus: serif, sans, monospace, condensed, bold, italic, comic
// capitals and a handwriting-like face. Liberation and Breip come from fonts-liberation and
// fonts-breip (scripts/setup.sh --test).
var Faces = []Face{
	{Name: "DejaVu Serif", Path: "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"},
	{Name: "Liberation Serif", Path: "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf"},
	{Name: "DejaVu Sans", Path: "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"},
	{Name: "Noto Sans", Path: "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"},
	{Name: "DejaVu Sans Mono", Path: "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"},
	{Name: "Liberation Mono", Path: "/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf"},
	{Name: "Liberation Sans Narrow", Path: "/usr/share/fonts/truetype/liberation/LiberationSansNarrow-Regular.ttf"},
	{Name: "DejaVu Sans Condensed", Path: "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf"},
	{Name: "Liberation Sans Bold", Path: "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf"},
	{Name: "Noto Serif Italic", Path: "/usr/share/fonts/truetype/noto/NotoSerif-Italic.ttf"},
	{Name: "Liberation Serif Italic", Path: "/usr/share/fonts/truetype/liberation/LiberationSerif-Italic.ttf"},
	{Name: "Comic Neue Bold", Path: "/usr/share/fonts/opentype/comic-neue/ComicNeue-Bold.otf", Caps: true},
	{Name: "Breip", Path: "/usr/share/fonts/truetype/breip/Breip.ttf"},
}

// FaceNamed returns the corpus face of that name.
func FaceNamed(name string) Face {
	for _, f := range Faces {
		if f.Name == name {
			return f
		}
	}
	panic("docpage: no face " + name)
}

// Kind is what the page is.
type Kind string

const (
	Paragraph  Kind = "paragraph"
	Letter     Kind = "letter"
	Book       Kind = "book"
	Manual     Kind = "manual"
	Screenshot Kind = "screenshot"
	Sign       Kind = "sign"
)

// Paper is what the page is printed on, and how it reached the service.
type Paper string

const (
	White Paper = "white"
	Cream Paper = "cream"
	Grey  Paper = "grey"
	// Photo is a page photographed by a phone: uneven light, a slight tilt, sensor noise, softness.
	Photo Paper = "photo"
)

// Spec says which page to draw.
type Spec struct {
	Kind   Kind
	Lang   string // en or es
	Face   Face
	Paper  Paper
	Format string // png or jpeg
	Seed   uint64
}

// Name is a file name for the page that says what it is.
func (s Spec) Name() string {
	face := strings.ToLower(strings.ReplaceAll(s.Face.Name, " ", "-"))
	return fmt.Sprintf("%s-%s-%s-%s.%s", s.Kind, s.Lang, face, s.Paper, imageio.Extension(s.Format)[1:])
}

// Page is a drawn page.
type Page struct {
	Spec
	Image []byte
	// Lines are the lines of text as set on the page, in reading order.
	Lines []string
}

// Corpus is the fixed set of pages the tests detect: every face, kind, paper and format, in
// both languages. The first three are the pages of the report that `auto` took for Korean.
func Corpus() []Spec {
	f := FaceNamed
	specs := []Spec{
		{Kind: Paragraph, Lang: "en", Face: f("DejaVu Serif"), Paper: White, Format: "png"},
		{Kind: Letter, Lang: "en", Face: f("Liberation Serif"), Paper: Cream, Format: "png"},
		{Kind: Book, Lang: "en", Face: f("DejaVu Sans"), Paper: White, Format: "png"},
		{Kind: Manual, Lang: "en", Face: f("Noto Sans"), Paper: White, Format: "jpeg"},
		{Kind: Paragraph, Lang: "es", Face: f("DejaVu Serif"), Paper: White, Format: "png"},
		{Kind: Sign, Lang: "en", Face: f("Comic Neue Bold"), Paper: White, Format: "png"},

		{Kind: Screenshot, Lang: "en", Face: f("DejaVu Sans"), Paper: White, Format: "png"},
		{Kind: Screenshot, Lang: "es", Face: f("Noto Sans"), Paper: Grey, Format: "jpeg"},
		{Kind: Manual, Lang: "es", Face: f("DejaVu Sans Mono"), Paper: Grey, Format: "png"},
		{Kind: Letter, Lang: "es", Face: f("Liberation Mono"), Paper: Cream, Format: "jpeg"},
		{Kind: Book, Lang: "es", Face: f("Liberation Sans Narrow"), Paper: Cream, Format: "png"},
		{Kind: Paragraph, Lang: "en", Face: f("DejaVu Sans Condensed"), Paper: Photo, Format: "jpeg"},
		{Kind: Sign, Lang: "es", Face: f("Liberation Sans Bold"), Paper: Grey, Format: "jpeg"},
		{Kind: Book, Lang: "en", Face: f("Noto Serif Italic"), Paper: Cream, Format: "jpeg"},
		{Kind: Letter, Lang: "en", Face: f("Liberation Serif Italic"), Paper: Photo, Format: "jpeg"},
		{Kind: Paragraph, Lang: "es", Face: f("Comic Neue Bold"), Paper: Cream, Format: "png"},
		{Kind: Letter, Lang: "en", Face: f("Breip"), Paper: White, Format: "png"},
		{Kind: Manual, Lang: "en", Face: f("Liberation Sans Bold"), Paper: Photo, Format: "jpeg"},
		{Kind: Book, Lang: "es", Face: f("DejaVu Serif"), Paper: Photo, Format: "jpeg"},
		{Kind: Sign, Lang: "en", Face: f("DejaVu Sans Condensed"), Paper: Cream, Format: "png"},
		{Kind: Paragraph, Lang: "es", Face: f("Breip"), Paper: Grey, Format: "jpeg"},
		{Kind: Screenshot, Lang: "en", Face: f("Liberation Sans Narrow"), Paper: White, Format: "jpeg"},
		{Kind: Manual, Lang: "es", Face: f("Noto Serif Italic"), Paper: White, Format: "png"},
		{Kind: Letter, Lang: "es", Face: f("DejaVu Sans Mono"), Paper: Photo, Format: "png"},
	}
	for i := range specs {
		specs[i].Seed = uint64(i + 1)
	}
	return specs
}

// Render draws the page.
func Render(s Spec) (Page, error) {
	rng := rand.New(rand.NewPCG(s.Seed, 0x5eed))
	t, ok := texts[s.Lang]
	if !ok {
		return Page{}, fmt.Errorf("docpage: no texts in %q", s.Lang)
	}
	p := &painter{spec: s, rng: rng}
	var err error
	switch s.Kind {
	case Paragraph:
		err = p.document(1000, 1300, 0.026, t.title, t.paragraphs[:2], false)
	case Letter:
		err = p.letter(t)
	case Book:
		err = p.book(t)
	case Manual:
		err = p.manual(t)
	case Screenshot:
		err = p.screenshot(t)
	case Sign:
		err = p.sign(t)
	default:
		err = fmt.Errorf("docpage: unknown kind %q", s.Kind)
	}
	if err != nil {
		return Page{}, err
	}
	img := p.finish()
	data, err := imageio.EncodeBytes(img, s.Format)
	if err != nil {
		return Page{}, fmt.Errorf("docpage: encoding %s: %w", s.Name(), err)
	}
	return Page{Spec: s, Image: data, Lines: p.lines}, nil
}

// painter sets text on a page and remembers what it set.
type painter struct {
	spec  Spec
	rng   *rand.Rand
	page  *image.RGBA
	ink   color.RGBA
	lines []string
}

func (p *painter) paper() color.RGBA {
	switch p.spec.Paper {
	case Cream:
		return color.RGBA{250, 243, 222, 255}
	case Grey:
		return color.RGBA{214, 214, 210, 255}
	case Photo:
		return color.RGBA{238, 234, 226, 255}
	}
	return color.RGBA{255, 255, 255, 255}
}

func (p *painter) start(w, h int) {
	p.page = image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(p.page, p.page.Bounds(), image.NewUniform(p.paper()), image.Point{}, draw.Src)
	p.ink = color.RGBA{22, 22, 26, 255}
	if p.spec.Paper == Photo {
		p.ink = color.RGBA{48, 44, 42, 255}
	}
}

var (
	faceMu    sync.Mutex
	faceCache = map[string]*opentype.Font{}
)

func (p *painter) face(size float64) (font.Face, error) {
	faceMu.Lock()
	defer faceMu.Unlock()
	f, ok := faceCache[p.spec.Face.Path]
	if !ok {
		data, err := os.ReadFile(p.spec.Face.Path)
		if err != nil {
			return nil, fmt.Errorf("docpage: reading %s (install it with scripts/setup.sh --test): %w", p.spec.Face.Name, err)
		}
		if f, err = opentype.Parse(data); err != nil {
			return nil, fmt.Errorf("docpage: parsing %s: %w", p.spec.Face.Name, err)
		}
		faceCache[p.spec.Face.Path] = f
	}
	return opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
}

// faces loads the page's typeface at each size.
func (p *painter) faces(sizes ...float64) ([]font.Face, error) {
	out := make([]font.Face, len(sizes))
	for i, size := range sizes {
		f, err := p.face(size)
		if err != nil {
			return nil, err
		}
		out[i] = f
	}
	return out, nil
}

func (p *painter) caps(s string) string {
	if p.spec.Face.Caps {
		return strings.ToUpper(s)
	}
	return s
}

// text draws one line with its left end at x and its baseline at y, and returns its width.
func (p *painter) text(face font.Face, ink color.Color, x, y int, s string) int {
	s = p.caps(s)
	d := font.Drawer{Dst: p.page, Src: image.NewUniform(ink), Face: face, Dot: fixed.P(x, y)}
	d.DrawString(s)
	p.lines = append(p.lines, s)
	return d.MeasureString(s).Ceil()
}

func (p *painter) width(face font.Face, s string) int {
	return font.MeasureString(face, p.caps(s)).Ceil()
}

// wrap breaks s into lines no wider than w.
func (p *painter) wrap(face font.Face, s string, w int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		try := word
		if line != "" {
			try = line + " " + word
		}
		if line != "" && p.width(face, try) > w {
			out = append(out, line)
			try = word
		}
		line = try
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// column sets paragraphs into the box starting at baseline y, and returns the next baseline.
func (p *painter) column(face font.Face, x, y, w int, paragraphs []string, indent bool) int {
	lh := face.Metrics().Height.Ceil() * 6 / 5
	for _, para := range paragraphs {
		lines := p.wrap(face, para, w)
		for i, l := range lines {
			dx := 0
			if indent && i == 0 {
				dx = lh * 2
			}
			p.text(face, p.ink, x+dx, y, l)
			y += lh
		}
		y += lh / 2
	}
	return y
}

// document is a titled page of paragraphs; size is the body size as a share of the width.
func (p *painter) document(w, h int, size float64, title string, paragraphs []string, centred bool) error {
	p.start(w, h)
	body, err := p.face(float64(w) * size)
	if err != nil {
		return err
	}
	head, err := p.face(float64(w) * size * 1.6)
	if err != nil {
		return err
	}
	margin := w / 9
	y := margin + head.Metrics().Ascent.Ceil()
	x := margin
	if centred {
		x = (w - p.width(head, title)) / 2
	}
	p.text(head, p.ink, x, y, title)
	y += head.Metrics().Height.Ceil() * 2
	p.column(body, margin, y, w-2*margin, paragraphs, centred)
	return nil
}

func (p *painter) letter(t text) error {
	p.start(1000, 1300)
	body, err := p.face(25)
	if err != nil {
		return err
	}
	lh := body.Metrics().Height.Ceil() * 6 / 5
	margin := 110
	y := margin + lh
	for _, l := range t.address {
		p.text(body, p.ink, 1000-margin-p.width(body, l), y, l)
		y += lh
	}
	y += lh
	p.text(body, p.ink, margin, y, t.greeting)
	y = p.column(body, margin, y+lh*3/2, 1000-2*margin, t.paragraphs[1:3], false)
	p.text(body, p.ink, margin, y+lh, t.closing)
	p.text(body, p.ink, margin, y+lh*3, t.signature)
	return nil
}

func (p *painter) book(t text) error {
	p.start(900, 1350)
	fs, err := p.faces(23, 40)
	if err != nil {
		return err
	}
	body, head := fs[0], fs[1]
	y := 220
	p.text(head, p.ink, (900-p.width(head, t.chapter))/2, y, t.chapter)
	y = p.column(body, 100, y+110, 700, t.paragraphs, true)
	folio := fmt.Sprint(7 + p.rng.IntN(200))
	p.text(body, p.ink, (900-p.width(body, folio))/2, 1350-80, folio)
	return nil
}

func (p *painter) manual(t text) error {
	p.start(1000, 1300)
	fs, err := p.faces(26, 38)
	if err != nil {
		return err
	}
	body, head := fs[0], fs[1]
	margin := 100
	y := margin + 40
	p.text(head, p.ink, margin, y, t.manualTitle)
	y += 90
	lh := body.Metrics().Height.Ceil() * 6 / 5
	for i, step := range t.steps {
		num := fmt.Sprintf("%d.", i+1)
		p.text(body, p.ink, margin, y, num)
		for _, l := range p.wrap(body, step, 1000-2*margin-50) {
			p.text(body, p.ink, margin+50, y, l)
			y += lh
		}
		y += lh / 2
	}
	return nil
}

// screenshot is an application window: a title bar, a menu, a form with labels and buttons.
func (p *painter) screenshot(t text) error {
	w, h := 1280, 800
	p.start(w, h)
	small, err := p.face(22)
	if err != nil {
		return err
	}
	bar := color.RGBA{52, 58, 70, 255}
	fill(p.page, image.Rect(0, 0, w, 56), bar)
	p.text(small, color.RGBA{240, 240, 240, 255}, 24, 36, t.window)
	fill(p.page, image.Rect(0, 56, w, 100), color.RGBA{232, 232, 236, 255})
	x := 24
	for _, m := range t.menu {
		x += p.text(small, p.ink, x, 86, m) + 36
	}
	y := 170
	for _, field := range t.fields {
		p.text(small, p.ink, 60, y, field)
		box := image.Rect(380, y-30, 1000, y+12)
		fill(p.page, box, color.RGBA{255, 255, 255, 255})
		outline(p.page, box, color.RGBA{150, 150, 160, 255})
		y += 80
	}
	p.column(small, 60, y+10, 1100, t.paragraphs[:1], false)
	bx := 60
	for _, b := range t.buttons {
		bw := p.width(small, b) + 48
		r := image.Rect(bx, h-110, bx+bw, h-60)
		fill(p.page, r, color.RGBA{220, 224, 232, 255})
		outline(p.page, r, color.RGBA{120, 124, 136, 255})
		p.text(small, p.ink, bx+24, h-76, b)
		bx += bw + 30
	}
	return nil
}

// sign is a few large words in a frame, as a notice on a door.
func (p *painter) sign(t text) error {
	w, h := 1200, 800
	p.start(w, h)
	fs, err := p.faces(84, 36)
	if err != nil {
		return err
	}
	big, small := fs[0], fs[1]
	outline(p.page, image.Rect(40, 40, w-40, h-40), p.ink)
	outline(p.page, image.Rect(46, 46, w-46, h-46), p.ink)
	y := 250
	for _, l := range t.sign {
		p.text(big, p.ink, (w-p.width(big, l))/2, y, l)
		y += big.Metrics().Height.Ceil()
	}
	for _, l := range p.wrap(small, t.signNote, w-240) {
		p.text(small, p.ink, (w-p.width(small, l))/2, y+30, l)
		y += small.Metrics().Height.Ceil()
	}
	return nil
}

// finish photographs the page when its paper asks for it.
func (p *painter) finish() image.Image {
	if p.spec.Paper != Photo {
		return p.page
	}
	src := p.page
	b := src.Bounds()
	out := image.NewRGBA(b)
	angle := (0.4 + 0.6*p.rng.Float64()) * math.Pi / 180
	if p.rng.IntN(2) == 0 {
		angle = -angle
	}
	sin, cos := math.Sin(angle), math.Cos(angle)
	cx, cy := float64(b.Dx())/2, float64(b.Dy())/2
	lx, ly := p.rng.Float64(), p.rng.Float64() // where the light is brightest
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			// Inverse rotation about the centre, bilinear sampling.
			fx := cos*(float64(x)-cx) + sin*(float64(y)-cy) + cx
			fy := -sin*(float64(x)-cx) + cos*(float64(y)-cy) + cy
			c := bilinear(src, fx, fy, p.paper())
			d := math.Hypot(float64(x)/float64(b.Dx())-lx, float64(y)/float64(b.Dy())-ly)
			light := 1.02 - 0.22*d
			var px [3]uint8
			for i, v := range c {
				v = v*light + p.rng.NormFloat64()*4
				px[i] = uint8(max(0, min(255, v)))
			}
			out.SetRGBA(x, y, color.RGBA{px[0], px[1], px[2], 255})
		}
	}
	return out
}

func bilinear(img *image.RGBA, fx, fy float64, bg color.RGBA) [3]float64 {
	x0, y0 := int(math.Floor(fx)), int(math.Floor(fy))
	ax, ay := fx-float64(x0), fy-float64(y0)
	at := func(x, y int) [3]float64 {
		c := bg
		if image.Pt(x, y).In(img.Bounds()) {
			c = img.RGBAAt(x, y)
		}
		return [3]float64{float64(c.R), float64(c.G), float64(c.B)}
	}
	a, b, c, d := at(x0, y0), at(x0+1, y0), at(x0, y0+1), at(x0+1, y0+1)
	var out [3]float64
	for i := range out {
		out[i] = (a[i]*(1-ax)+b[i]*ax)*(1-ay) + (c[i]*(1-ax)+d[i]*ax)*ay
	}
	return out
}

func fill(dst *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(dst, r, image.NewUniform(c), image.Point{}, draw.Src)
}

func outline(dst *image.RGBA, r image.Rectangle, c color.RGBA) {
	fill(dst, image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+2), c)
	fill(dst, image.Rect(r.Min.X, r.Max.Y-2, r.Max.X, r.Max.Y), c)
	fill(dst, image.Rect(r.Min.X, r.Min.Y, r.Min.X+2, r.Max.Y), c)
	fill(dst, image.Rect(r.Max.X-2, r.Min.Y, r.Max.X, r.Max.Y), c)
}
