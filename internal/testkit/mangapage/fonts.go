package mangapage

import (
	"fmt"
	"os"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
)

// typeface is one font file (or one member of a collection) the generator letters with.
type typeface struct {
	Name  string
	Path  string
	Index int // member of a .ttc collection
	Bold  bool
}

const (
	ipaGothic  = "/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf"
	ipaMincho  = "/usr/share/fonts/opentype/ipafont-mincho/ipam.ttf"
	vlGothic   = "/usr/share/fonts/truetype/vlgothic/VL-Gothic-Regular.ttf"
	notoSansB  = "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"
	notoSansR  = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
	notoSerifR = "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc"
	notoSerifB = "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc"
)

// The members of the Noto CJK collections: JP, KR, SC, TC, HK, then the Mono faces.
const (
	notoJP = 0
	notoKR = 1
	notoSC = 2
)

// dialogueFaces are the typefaces of dialogue by language. Published manga letters dialogue
// in a mincho or an "antique" face (mincho kana, gothic kanji) and shouts in a bold gothic;
// these are the nearest free faces.
var dialogueFaces = map[string][]typeface{
	"ja": {
		{Name: "IPAMincho", Path: ipaMincho},
		{Name: "IPAGothic", Path: ipaGothic},
		{Name: "VL Gothic", Path: vlGothic},
		{Name: "Noto Sans CJK JP Bold", Path: notoSansB, Index: notoJP, Bold: true},
		{Name: "Noto Sans CJK JP", Path: notoSansR, Index: notoJP},
		{Name: "Noto Serif CJK JP", Path: notoSerifR, Index: notoJP},
		{Name: "Noto Serif CJK JP Bold", Path: notoSerifB, Index: notoJP, Bold: true},
	},
	"ko": {
		{Name: "Noto Sans CJK KR", Path: notoSansR, Index: notoKR},
		{Name: "Noto Sans CJK KR Bold", Path: notoSansB, Index: notoKR, Bold: true},
		{Name: "Noto Serif CJK KR", Path: notoSerifR, Index: notoKR},
	},
	"zh-Hans": {
		{Name: "Noto Sans CJK SC", Path: notoSansR, Index: notoSC},
		{Name: "Noto Sans CJK SC Bold", Path: notoSansB, Index: notoSC, Bold: true},
		{Name: "Noto Serif CJK SC", Path: notoSerifR, Index: notoSC},
	},
}

// otherFaces are Japanese typefaces the engines were never tuned on (Options.OtherFaces), of the
// kinds published manga letter with that dialogueFaces lack: a rounded gothic, a soft mincho, a
// thin and a bold gothic of other proportions, a pen hand for asides.
var otherFaces = []typeface{
	{Name: "Motoya L Maruberi", Path: "/usr/share/fonts/truetype/motoya-l-maruberi/MTLmr3m.ttf"},
	{Name: "Motoya L Cedar", Path: "/usr/share/fonts/truetype/motoya-l-cedar/MTLc3m.ttf"},
	{Name: "M+ 1 Regular", Path: "/usr/share/fonts/opentype/mplus/Mplus1-Regular.otf"},
	{Name: "M+ 2 Bold", Path: "/usr/share/fonts/opentype/mplus/Mplus2-Bold.otf", Bold: true},
	{Name: "Klee One SemiBold", Path: "/usr/share/fonts/truetype/klee/KleeOne-SemiBold.ttf"},
	{Name: "UmePlus Gothic", Path: "/usr/share/fonts/truetype/umeplus/umeplus-gothic.ttf"},
}

// sfxFaces are heavy faces for sound effects, by language.
var sfxFaces = map[string][]typeface{
	"ja":      {{Name: "Noto Sans CJK JP Bold", Path: notoSansB, Index: notoJP, Bold: true}, {Name: "Noto Serif CJK JP Bold", Path: notoSerifB, Index: notoJP, Bold: true}},
	"ko":      {{Name: "Noto Sans CJK KR Bold", Path: notoSansB, Index: notoKR, Bold: true}},
	"zh-Hans": {{Name: "Noto Sans CJK SC Bold", Path: notoSansB, Index: notoSC, Bold: true}},
}

var (
	fontMu    sync.Mutex
	fontCache = map[string]*sfnt.Collection{}
)

// load parses the typeface's file once per process.
func (t typeface) load() (*sfnt.Font, error) {
	fontMu.Lock()
	defer fontMu.Unlock()
	c, ok := fontCache[t.Path]
	if !ok {
		data, err := os.ReadFile(t.Path)
		if err != nil {
			return nil, fmt.Errorf("mangapage: reading font %s: %w", t.Name, err)
		}
		if c, err = opentype.ParseCollection(data); err != nil {
			return nil, fmt.Errorf("mangapage: parsing font %s: %w", t.Path, err)
		}
		fontCache[t.Path] = c
	}
	if t.Index >= c.NumFonts() {
		return nil, fmt.Errorf("mangapage: font %s has no member %d", t.Path, t.Index)
	}
	return c.Font(t.Index)
}

// available filters faces to those whose file exists.
func available(faces []typeface) []typeface {
	var out []typeface
	for _, f := range faces {
		if _, err := os.Stat(f.Path); err == nil {
			out = append(out, f)
		}
	}
	return out
}

// newFace opens fnt at size pixels per em. Faces are not safe for concurrent use; each page
// opens its own.
func newFace(fnt *sfnt.Font, size float64) (font.Face, error) {
	f, err := opentype.NewFace(fnt, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, fmt.Errorf("mangapage: opening face: %w", err)
	}
	return f, nil
}
