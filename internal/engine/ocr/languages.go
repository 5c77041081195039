package ocr

import (
	"strings"
	"unicode"

	"github.com/vtsproject/vts/internal/lang"
)

// tessLang maps the service's language codes to Tesseract's traineddata names (internal/lang's
// table).
var tessLang = lang.TesseractNames()

// scriptOf groups languages by writing system, named as Tesseract's OSD names scripts, so that
// OSD's answer narrows the candidates for automatic detection.
func scriptOf(code string) string {
	switch code {
	case "ru", "uk", "bg", "sr":
		return "Cyrillic"
	case "el":
		return "Greek"
	case "ar", "fa", "ur":
		return "Arabic"
	case "he":
		return "Hebrew"
	case "hi":
		return "Devanagari"
	case "bn":
		return "Bengali"
	case "ta":
		return "Tamil"
	case "th":
		return "Thai"
	case "ja":
		return "Japanese"
	case "ko":
		return "Hangul"
	case "zh-Hans", "zh-Hant":
		return "Han"
	}
	return "Latin"
}

// isCJK is lang.IsCJK, named so here because this package's functions call their language
// argument "lang".
var isCJK = lang.IsCJK

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

// guessLanguage picks, among candidates, the language whose stopwords occur most in text. With
// no evidence it answers the first candidate, which callers order by preference.
func guessLanguage(text string, candidates []string) string {
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
