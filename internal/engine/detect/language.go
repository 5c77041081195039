package detect

import (
	"context"
	"image"
	"log/slog"
	"strings"
	"unicode"

	"github.com/vtsproject/vts/internal/lang"
)

// stopwords are frequent short words that tell Latin-script languages apart in a handful of
// speech bubbles, where OCR has already done the hard part.
var stopwords = map[string][]string{
	"en": {"the", "and", "you", "to", "is", "it", "of", "i", "a", "what", "that", "my", "have", "this", "we", "are", "in", "on", "with", "not", "be", "do", "for", "he", "she"},
	"es": {"el", "la", "de", "que", "y", "en", "los", "las", "es", "no", "un", "una", "por", "con", "mi", "tengo", "qué", "se", "lo", "para", "yo", "está", "del", "al"},
	"fr": {"le", "la", "les", "de", "et", "est", "je", "tu", "il", "que", "pas", "un", "une", "des", "du", "en", "ce", "qui", "mon", "vous", "nous", "avec", "pour"},
	"de": {"der", "die", "das", "und", "ist", "ich", "nicht", "du", "ein", "eine", "zu", "mit", "was", "es", "sie", "wir", "den", "dem", "mein", "auf", "für"},
	"it": {"il", "la", "di", "che", "e", "è", "non", "un", "una", "per", "mi", "io", "sono", "con", "del", "della", "ho", "lo", "gli"},
	"pt": {"o", "a", "de", "que", "e", "não", "um", "uma", "com", "para", "eu", "você", "do", "da", "os", "as", "meu", "está", "é"},
	"nl": {"de", "het", "een", "en", "is", "ik", "niet", "je", "van", "dat", "wat", "met", "zijn", "op", "we"},
	"ca": {"el", "la", "de", "que", "i", "no", "un", "una", "per", "amb", "els", "les", "és", "jo"},
}

// Language picks, among candidates, the language whose stopwords occur most in text. With
// no evidence it answers the first candidate, which callers order by preference.
func Language(text string, candidates []string) string {
	if len(candidates) == 0 {
		return ""
	}
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\''
	})
	counts := map[string]int{}
	for _, w := range words {
		counts[w]++
	}
	best, bestScore := candidates[0], 0
	for _, c := range candidates {
		score := 0
		for _, sw := range stopwords[c] {
			score += counts[sw]
		}
		if score > bestScore {
			best, bestScore = c, score
		}
	}
	return best
}

// NarrowByScript keeps the candidates written in the script OSD sees in g, when OSD is installed
// and the candidates span several scripts; a single script needs no OSD run.
func NarrowByScript(ctx context.Context, r Reader, g *image.Gray, cands []string, hasOSD bool, log *slog.Logger) []string {
	scripts := map[string]bool{}
	for _, c := range cands {
		scripts[lang.Script(c)] = true
	}
	if len(scripts) < 2 || !hasOSD {
		return cands
	}
	script, err := r.Script(ctx, g)
	if err != nil {
		log.DebugContext(ctx, "script detection failed; reading with all candidate languages", "err", err)
		return cands
	}
	var kept []string
	for _, c := range cands {
		if lang.Script(c) == script {
			kept = append(kept, c)
		}
	}
	if len(kept) == 0 {
		return cands
	}
	return kept
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }
