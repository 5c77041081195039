package detect

import (
	"image"
	"slices"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
)

// Among Latin-script candidates the common words decide; with no evidence the first candidate,
// the caller's preference, stands.
func TestLanguageByCommonWords(t *testing.T) {
	cands := []string{"en", "es", "fr"}
	for text, want := range map[string]string{
		"¿Qué es lo que tengo en la mano? No lo sé.": "es",
		"Je ne sais pas ce que tu veux avec moi.":    "fr",
		"What is that thing you have in the box?":    "en",
		"12345 !!!": "en",
	} {
		if got := Language(text, cands); got != want {
			t.Errorf("Language(%q) = %s, want %s", text, got, want)
		}
	}
	if got := Language("anything", nil); got != "" {
		t.Errorf("no candidates gave %q", got)
	}
}

// The Latin look reads with the Latin candidates' models together, at most three, and with
// English's alone when no Latin language is a candidate, so a Latin page is never taken for CJK.
func TestLatinModel(t *testing.T) {
	models := map[string]string{"en": "eng", "es": "spa", "fr": "fra", "de": "deu", "ru": "rus", "ja": "jpn"}
	installed := []string{"eng", "spa", "fra", "deu", "rus", "jpn"}
	model, langs := LatinModel([]string{"en", "ru", "es", "fr", "de"}, models, installed)
	if model != "eng+spa+fra" || !slices.Equal(langs, []string{"en", "es", "fr"}) {
		t.Errorf("got %q %v, want eng+spa+fra for en, es, fr", model, langs)
	}
	if model, langs := LatinModel(nil, models, installed); model != "eng" || !slices.Equal(langs, []string{"en"}) {
		t.Errorf("without Latin candidates got %q %v, want English's model", model, langs)
	}
	if model, _ := LatinModel(nil, models, []string{"jpn"}); model != "" {
		t.Errorf("without English installed got %q, want none", model)
	}
}

// Text fits a script by the share of it that forms words of the script, times how well the
// number of characters fits the ink: kana read from square glyphs fit Japanese, and the same
// glyphs read as a handful of Latin letters fit Latin badly.
func TestScriptFit(t *testing.T) {
	if f := scriptFit("Japanese", "おはようございます", 9); f < 0.99 {
		t.Errorf("nine kana from nine glyphs fit Japanese %.2f", f)
	}
	if f := scriptFit(latinScript, "Il ok", 9); f > 0.4 {
		t.Errorf("four Latin letters from nine square glyphs fit Latin %.2f", f)
	}
	if f := scriptFit(latinScript, "Good morning", 6); f < 0.99 {
		t.Errorf("a Latin line fits Latin %.2f", f)
	}
	if f := scriptFit("Hangul", "1 ㅋ 2", 3); f != 0 {
		t.Errorf("digits and a loose jamo fit Hangul %.2f", f)
	}
	if f := scriptFit("Hangul", "안녕하세요 너", 6); f < 0.99 {
		t.Errorf("Korean words fit Hangul %.2f", f)
	}
}

// Kana in vertical columns are Japanese beyond doubt only from two blocks or more: a lone small
// shape in a Chinese page's balloon read as two kana with some confidence (ルル, 0.62) is not.
func TestKanaColumnsNeedTwoBlocks(t *testing.T) {
	col := func() *page.Block {
		return &page.Block{Vertical: true, Lines: []image.Rectangle{image.Rect(0, 0, 20, 60)}}
	}
	one := []page.Reading{{Text: "ルル", Conf: 0.62}}
	if kanaColumns([]*page.Block{col()}, one) {
		t.Error("one block of two kana taken for Japanese columns")
	}
	two := []page.Reading{{Text: "ルル", Conf: 0.62}, {Text: "行くぞ", Conf: 0.9}}
	if !kanaColumns([]*page.Block{col(), col()}, two) {
		t.Error("two columns with kana not taken for Japanese")
	}
	unsure := []page.Reading{{Text: "ルル", Conf: 0.62}, {Text: "行くぞ", Conf: 0.4}}
	if kanaColumns([]*page.Block{col(), col()}, unsure) {
		t.Error("a reading without confidence counted")
	}
}
