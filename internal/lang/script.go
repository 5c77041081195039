package lang

import "unicode"

// HasCJK reports whether s holds a Chinese, Japanese or Korean character.
func HasCJK(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			return true
		}
	}
	return false
}

// ScriptCounts counts the letters of a text by script.
type ScriptCounts struct{ Kana, Han, Hangul, Latin, Other int }

// CountScripts counts the letters of s by script.
func CountScripts(s string) ScriptCounts {
	var c ScriptCounts
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			c.Kana++
		case unicode.Is(unicode.Han, r):
			c.Han++
		case unicode.Is(unicode.Hangul, r):
			c.Hangul++
		case unicode.Is(unicode.Latin, r):
			c.Latin++
		case unicode.IsLetter(r):
			c.Other++
		}
	}
	return c
}

// CJKLanguage names the language whose script dominates the counts: kana make Japanese (kanji
// alone could be Chinese, but no Japanese sentence goes long without kana), Hangul Korean, Han
// alone Chinese; "" when CJK letters are not the majority.
func (c ScriptCounts) CJKLanguage() string {
	cjk := c.Kana + c.Han + c.Hangul
	if cjk == 0 || cjk < c.Latin+c.Other {
		return ""
	}
	switch {
	case c.Hangul*2 >= cjk:
		return "ko"
	case c.Kana*10 >= cjk:
		return "ja"
	}
	return "zh"
}

// Script groups languages by writing system, named as Tesseract's OSD names scripts, so that
// OSD's answer narrows the candidates for automatic detection.
func Script(code string) string {
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
