package letter

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"

	"github.com/vtsproject/vts/internal/lang"
)

// Default font locations of the Debian packages fonts-noto-core, fonts-noto-cjk and
// fonts-dejavu-core. Bold reads best at small sizes in bubbles and is what lettering looks like.
var (
	defaultFonts = []string{
		"/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf",
		"/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
	}
	defaultCJKFonts = []string{
		"/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
		"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
		"/usr/share/fonts/truetype/noto/NotoSansCJK-Bold.ttc",
		"/usr/share/fonts/opentype/noto-cjk/NotoSansCJK-Bold.ttc",
	}
	// Comic lettering for bubbles (fonts-comic-neue); the primary font when it is missing.
	defaultComicFonts = []string{
		"/usr/share/fonts/opentype/comic-neue/ComicNeue-Bold.otf",
		"/usr/share/fonts/truetype/comic-neue/ComicNeue-Bold.ttf",
	}
	defaultFallbackFonts = []string{
		"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
		"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
	}
)

// FontPaths names the typefaces to load; an empty path takes the Debian package's default.
type FontPaths struct {
	Primary, Fallback, Comic, CJK string
}

// Fonts holds the parsed typefaces. CJK collections hold one face per region; the face is
// chosen by target language because the same code point has different preferred glyphs.
type Fonts struct {
	primary  *sfnt.Font
	comic    *sfnt.Font
	fallback *sfnt.Font
	cjk      map[string]*sfnt.Font // by language code: ja, ko, zh-Hans, zh-Hant
}

func firstExisting(configured string, defaults []string) string {
	if configured != "" {
		return configured
	}
	for _, p := range defaults {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// LoadFonts parses the typefaces, and says which package to install when none is found.
func LoadFonts(cfg FontPaths) (*Fonts, error) {
	f := &Fonts{cjk: map[string]*sfnt.Font{}}
	var err error
	if p := firstExisting(cfg.Primary, defaultFonts); p != "" {
		if f.primary, err = parseFont(p); err != nil {
			return nil, err
		}
	}
	if p := firstExisting(cfg.Fallback, defaultFallbackFonts); p != "" {
		if f.fallback, err = parseFont(p); err != nil {
			return nil, err
		}
	}
	if f.primary == nil {
		f.primary = f.fallback
	}
	if f.primary == nil {
		return nil, fmt.Errorf("no font found (looked for %s and %s): apt-get install fonts-noto-core or fonts-dejavu-core, or set FontPath",
			strings.Join(defaultFonts, ", "), strings.Join(defaultFallbackFonts, ", "))
	}
	if p := firstExisting(cfg.Comic, defaultComicFonts); p != "" {
		if f.comic, err = parseFont(p); err != nil {
			return nil, err
		}
	}
	if p := firstExisting(cfg.CJK, defaultCJKFonts); p != "" {
		if err := f.loadCJK(p); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func parseFont(path string) (*sfnt.Font, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading font: %w", err)
	}
	fnt, err := opentype.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("parsing font %s: %w", path, err)
	}
	return fnt, nil
}

// loadCJK reads a font or a collection such as NotoSansCJK-Bold.ttc, whose members are named
// "Noto Sans CJK JP", "... KR", "... SC", "... TC".
func (f *Fonts) loadCJK(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading CJK font: %w", err)
	}
	coll, err := opentype.ParseCollection(data)
	if err != nil {
		return fmt.Errorf("parsing CJK font %s: %w", path, err)
	}
	regions := map[string]string{" JP": "ja", " KR": "ko", " SC": "zh-Hans", " TC": "zh-Hant"}
	var buf sfnt.Buffer
	var any *sfnt.Font
	for i := 0; i < coll.NumFonts(); i++ {
		fnt, err := coll.Font(i)
		if err != nil {
			return fmt.Errorf("parsing CJK font %s #%d: %w", path, i, err)
		}
		name, _ := fnt.Name(&buf, sfnt.NameIDFamily)
		if any == nil {
			any = fnt
		}
		if strings.Contains(name, "Mono") {
			continue
		}
		for suffix, code := range regions {
			if strings.HasSuffix(name, suffix) && f.cjk[code] == nil {
				f.cjk[code] = fnt
			}
		}
	}
	for _, code := range []string{"ja", "ko", "zh-Hans", "zh-Hant"} {
		if f.cjk[code] == nil {
			f.cjk[code] = any
		}
	}
	return nil
}

// forText picks the face for a translation into lang: the CJK face for CJK targets, else the
// primary font when it has every glyph of text, else the fallback when that does.
func (f *Fonts) forText(target, text string) *sfnt.Font {
	if lang.IsCJK(target) && f.cjk[target] != nil {
		return f.cjk[target]
	}
	if covers(f.primary, text) || f.fallback == nil {
		return f.primary
	}
	if covers(f.fallback, text) {
		return f.fallback
	}
	return f.primary
}

// forBubble picks the face for lettering a bubble: the comic face when it has every glyph.
func (f *Fonts) forBubble(target, text string) *sfnt.Font {
	if !lang.IsCJK(target) && f.comic != nil && covers(f.comic, text) {
		return f.comic
	}
	return f.forText(target, text)
}

// CanWrite reports whether some loaded font can letter lang.
func (f *Fonts) CanWrite(target string) bool {
	if lang.IsCJK(target) {
		return f.cjk[target] != nil
	}
	return true
}

func covers(fnt *sfnt.Font, text string) bool {
	var buf sfnt.Buffer
	for _, r := range text {
		if r == ' ' || r == '\n' {
			continue
		}
		if gi, err := fnt.GlyphIndex(&buf, r); err != nil || gi == 0 {
			return false
		}
	}
	return true
}
