package read_test

import (
	"context"
	"image"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine/find"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/read"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

func tesseract(t *testing.T) *read.Tesseract {
	t.Helper()
	path, err := exec.LookPath("tesseract")
	if err != nil {
		t.Fatalf("tesseract is needed: %v", err)
	}
	return read.NewTesseract(path, "", runtime.NumCPU())
}

// The columns the finder found on a generated Japanese page read, crop by crop in one Tesseract
// process per direction (and one more for the second look at doubtful lines), as the lettered
// text: no bubble misses half its characters, and the page reads at a character error rate
// under 0.3 (the corpus averages 0.23), one reading per block.
func TestOrientedReadsTheColumns(t *testing.T) {
	p, err := mangapage.Generate(1, mangapage.Options{Lang: "ja"})
	if err != nil {
		t.Fatal(err)
	}
	blocks, pa := find.Manga(p.RGBA(), true)
	tess := tesseract(t)
	rs, err := tess.Oriented(context.Background(), pa, blocks, read.JapaneseModel)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(blocks) {
		t.Fatalf("%d readings for %d blocks", len(rs), len(blocks))
	}
	if runs := tess.Runs(); runs > 4 {
		t.Errorf("%d Tesseract processes for one page: the crops are not batched", runs)
	}
	// Each bubble's text against what its blocks read, in block order.
	var errs float64
	var chars int
	for _, bb := range p.Bubbles {
		if !bb.Dialogue() {
			continue
		}
		got := readAt(blocks, rs, bb.Box)
		cer, n := mangapage.CER(bb.Text, got), len(mangapage.Normalize(bb.Text))
		t.Logf("%q read as %q", bb.Text, got)
		if cer > 0.5 {
			t.Errorf("the bubble %q read as %q", bb.Text, got)
		}
		errs, chars = errs+cer*float64(n), chars+n
	}
	if errs > 0.3*float64(chars) {
		t.Errorf("the page read with %.0f errors in %d characters", errs, chars)
	}
}

// Soft scans of small lettering, on a tone or on textured paper: the strokes are grey and blurred
// into the dots and grain beside them, which the mask takes in. Crisp, a line is a blot; in grey,
// the dots between its strokes read as strokes. Each of the harsh pages' bubbles read with more
// than half its characters wrong (ふざけるな！ as ふきるーー, 一方その頃 as ^~方その順) before the
// strokes' cores were given a look of their own. And a column's … whose three dots Tesseract
// reads as a colon is read as the … it is (嘘… read 距… before the cores, then 嘘:; まだだ…まだ as
// まだだ:まだ).
func TestSoftLetteringReadsByItsCores(t *testing.T) {
	readWithin(t,
		bubble{2, harsh, "ふざけるな！", 0.5},
		bubble{5, harsh, "一方その頃", 0.5},
		bubble{8, harsh, "私、ずっと先輩のことが好きでした。", 0.5},
		bubble{20, hard, "嘘…", 0},
		bubble{7, hard, "まだだ…まだ終わってない！", 0},
	)
}

// Small soft lettering in a balloon filled with a coarse tone: the dots are as large as the
// strokes are wide, as dark as their thin parts, and blurred into them; no preparation of the
// mask or the greys parts them, and each of these read wrong in every look (何だと！？ as 一ドよど
// and as 何だを！？, 明日、 as 井田。, 緊張 as 第張, 皆さん、 as ににる). Read with the tone taken
// out (crops.Descreened), they read right. So does lettering on a toned panel, no balloon about
// it (お兄ちゃん、起きて！ was お腕ちゃん、趣きぎで).
func TestLetteringOnACoarseToneReadsDescreened(t *testing.T) {
	readWithin(t,
		bubble{1, harsh, "何だと！？", 0},
		bubble{12, harsh, "明日、試合だろ？", 0},
		bubble{21, harsh, "緊張してる？", 0},
		bubble{11, harsh, "ラーメン食べに行こうぜ！", 0.1},
		bubble{11, harsh, "皆さん、準備はいいですか？", 0.2},
		bubble{11, harsh, "お兄ちゃん、起きて！朝だよ！", 0.2},
	)
}

// On a coarse tone, the dots stuck to a ！'s bar or a ？'s hook hide their shapes in the mask, and
// Tesseract drops a column's side-by-side ！？ even from a clean crop: the marks are recognised by
// shape on the column with the tone taken out (何だと！？ read 何だと, なんだって！？ なんだって,
// 何すんのよ！？ 何すんのより).
func TestMarksOnACoarseToneRecognisedDescreened(t *testing.T) {
	readWithin(t,
		bubble{11, harsh, "何だと！？", 0},
		bubble{17, harsh, "なんだって！？", 0},
		bubble{1, harsh, "ちょっ、何すんのよ！？", 0},
	)
}

// Small soft lettering: a voiced kana now and then reads as itself and its twin without the
// dakuten, a character more than the line has room for (遅いぞそ、, ないただたろ, 朝ただよ).
func TestVoicedKanaReadTwiceReadOnce(t *testing.T) {
	readWithin(t,
		bubble{19, harsh, "遅いぞ、健太。", 0},
		bubble{22, harsh, "忘れるわけないだろ。", 0},
		bubble{9, hard, "お兄ちゃん、起きて！朝だよ！", 0},
	)
}

// The generated pages the reading tests take their bubbles from.
var (
	plain = mangapage.Options{Lang: "ja"}
	hard  = mangapage.Options{Lang: "ja", Hard: true}
	harsh = mangapage.Options{Lang: "ja", Harsh: true}
)

// bubble is the bubble of text on the generated page of seed and opts, and the character error
// rate it must read at, or under.
type bubble struct {
	seed   int64
	opts   mangapage.Options
	text   string
	maxCER float64
}

// readWithin reads the generated pages the bubbles are on, each once, and asks that every bubble
// read within its maxCER.
func readWithin(t *testing.T, bubbles ...bubble) {
	t.Helper()
	tess := tesseract(t)
	type generated struct {
		seed int64
		opts mangapage.Options
	}
	type readPage struct {
		page   mangapage.Page
		blocks []*page.Block
		rs     []page.Reading
	}
	pages := map[generated]readPage{}
	for _, c := range bubbles {
		pg, ok := pages[generated{c.seed, c.opts}]
		if !ok {
			p, err := mangapage.Generate(c.seed, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			blocks, pa := find.Manga(p.RGBA(), true)
			rs, err := tess.Oriented(context.Background(), pa, blocks, read.JapaneseModel)
			if err != nil {
				t.Fatal(err)
			}
			pg = readPage{p, blocks, rs}
			pages[generated{c.seed, c.opts}] = pg
		}
		seen := false
		for _, bb := range pg.page.Bubbles {
			if bb.Text != c.text {
				continue
			}
			seen = true
			got := readAt(pg.blocks, pg.rs, bb.Box)
			if cer := mangapage.CER(bb.Text, got); cer > c.maxCER {
				t.Errorf("seed %d: %q read as %q (CER %.2f)", c.seed, bb.Text, got, cer)
			}
		}
		if !seen {
			t.Errorf("seed %d has no bubble %q", c.seed, c.text)
		}
	}
}

// Small lettering in a soft scan loses its thinnest strokes to every mask: the dakuten of でした
// and the tail of a ！ are a grey lighter than the mask's threshold or what its grey reach takes
// in. Read as the page shows them, in a plain balloon, they are there (before: を、ずっと先他0
// ことが好きてした; 魔法が使えない！ツ?.; ふざけるな;).
func TestSoftSmallLetteringReadsAsThePageShowsIt(t *testing.T) {
	readWithin(t,
		bubble{8, harsh, "私、ずっと先輩のことが好きでした。", 0.2},
		bubble{8, harsh, "魔法が使えない！？", 0.12},
		bubble{9, harsh, "ふざけるな！", 0},
	)
}

// readAt is what the blocks over box read, cleaned, in block order.
func readAt(blocks []*page.Block, rs []page.Reading, box image.Rectangle) string {
	var got strings.Builder
	for i, b := range blocks {
		if b.Box.Overlaps(box) {
			got.WriteString(read.CleanCJK(rs[i].Text))
		}
	}
	return got.String()
}

// A short column's ！？ that only its reading as a row saw are kept: 何だと！？ (default seed 11)
// was read as the page shows it, surer and without them, and lost them (before: 何だと).
func TestMarksOnlyOneLookReadAreKept(t *testing.T) {
	readWithin(t, bubble{11, plain, "何だと！？", 0})
}

// The marks that end a line of small lettering, now part of its block, are read: the thin 。
// after it (before: 静かに！誰か来る, ありがとう。助かったよ) and the ？ whose dot had been left out
// (before: 証拠はあるのかっ, 緊張してるっ).
func TestSmallMarksThatEndALineAreRead(t *testing.T) {
	readWithin(t,
		bubble{22, plain, "静かに！誰か来る。", 0},
		bubble{22, plain, "ありがとう。助かったよ。", 0},
		bubble{515, plain, "証拠はあるのか？", 0},
		bubble{515, plain, "緊張してる？", 0},
	)
}
