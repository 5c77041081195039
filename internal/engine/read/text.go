package read

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vtsproject/vts/internal/lang"
)

// What Tesseract reads, joined and cleaned into the text a reader would have written.

// spaced reports whether text b follows text a after a space: Korean sets a space between its
// words, as Tesseract's Korean models read them; Japanese and Chinese set none.
func spaced(a, b string) bool {
	last, _ := utf8.DecodeLastRuneInString(a)
	first, _ := utf8.DecodeRuneInString(b)
	return unicode.Is(unicode.Hangul, first) && (unicode.Is(unicode.Hangul, last) || unicode.IsPunct(last))
}

// CleanCJK strips spaces Tesseract puts between CJK characters and the noise it reads from the
// edges of a crop: a stroke of art or a bubble's edge read as \, | or _, which lettering
// never holds. A long-vowel mark that follows no kana is the kanji 一 misread (ー方 for 一方): the
// mark only ever lengthens a kana, and a column's bar looks the same either way. Between
// katakana a 1, an l or a hyphen is that mark standing in a column (ジュ1ス). At the end of the
// lettering, a 1, l, I or ' after CJK is an exclamation mark whose dot was lost or read apart
// (助けて1), a 7 after a question's particle or a ！ its question mark (なの7), and the marks that end
// it are set full-width, as lettering sets them. A lone Latin letter between CJK characters is
// a speck of ink read as one, as is a hyphen amid other Japanese (別-に: Japanese sets none),
// and a lone katakana letter amid hiragana its twin.
func CleanCJK(s string) string {
	var out []rune
	rs := []rune(strings.TrimSpace(s))
	prev := rune(0)
	for i, r := range rs {
		if r == '\\' || r == '|' || r == '_' || (r == ' ' && i > 0 && i < len(rs)-1 && (lang.HasCJK(string(prev)) || lang.HasCJK(string(rs[i+1]))) &&
			!spaced(string(prev), string(rs[i+1]))) {
			continue
		}
		if r == 'ー' && (prev < 0x3041 || prev > 0x30ff) {
			r = '一'
		}
		if (r == '1' || r == 'l' || r == '-') && katakana(prev) && i+1 < len(rs) && katakana(rs[i+1]) {
			r = 'ー'
		} else if r == '-' && i+1 < len(rs) && japanese(prev, rs[i+1]) {
			continue
		} else if r < 0x80 && unicode.IsLetter(r) && lang.HasCJK(string(prev)) && i+1 < len(rs) && lang.HasCJK(string(rs[i+1])) {
			continue // a lone Latin letter amid kana is a speck read as one (間に合わなtい)
		} else if w, ok := fullWidth[r]; ok && i+1 < len(rs) && japanese(prev, rs[i+1]) {
			r = w // a mark amid Japanese is the full-width one (俺が守る。必ず。, 静かに！誰か来る)
		}
		if r != ' ' {
			prev = r
		}
		out = append(out, r)
	}
	// A katakana letter that looks like its hiragana twin, alone amid hiragana, is that twin: a
	// katakana word is katakana all through (誰カいる, じゃないカ！, ヘえ).
	for i, r := range out {
		before, after := rune(0), rune(0)
		if i > 0 {
			before = out[i-1]
		}
		if i+1 < len(out) {
			after = out[i+1]
		}
		if twin, ok := hiraganaTwin[r]; ok && !katakana(before) && !katakana(after) &&
			(unicode.Is(unicode.Hiragana, before) || unicode.Is(unicode.Hiragana, after)) {
			out[i] = twin
		}
	}
	// A ？ read as 7, its dot read apart or lost, after the particle that ends a question
	// (あるのか7?, なの7), or after the ！ of a ！？ (何だ17); its hook read as a 2 beside it
	// (いいですか2?); a count ends otherwise (あと7).
	particle := func(r rune) bool { return strings.ContainsRune("かのねよなわ", r) }
	if n := len(out); n >= 2 && out[n-1] == '7' && (particle(out[n-2]) || n >= 3 && strings.ContainsRune("1!！", out[n-2]) && lang.HasCJK(string(out[n-3]))) {
		out[n-1] = '？'
	} else if n >= 3 && (out[n-2] == '7' || out[n-2] == '2') && (out[n-1] == '?' || out[n-1] == '？') && particle(out[n-3]) {
		out = append(out[:n-2], '？')
	}
	// Three dots set as periods (Korean's ...) come back as a period and an ellipsis (돼.…): the
	// ellipsis alone is what the lettering holds.
	for i := 0; i+1 < len(out); i++ {
		if out[i] == '.' && out[i+1] == '…' && i > 0 && lang.HasCJK(string(out[i-1])) {
			out = append(out[:i], out[i+1:]...)
		}
	}
	// A speck read as a period after the ！ and ？ that end CJK is none: Japanese sets no 。
	// after them (使えない!?.).
	if n := len(out); n >= 3 && (out[n-1] == '.' || out[n-1] == '。') {
		k := n - 1
		for k > 0 && strings.ContainsRune("!?！？", out[k-1]) {
			k--
		}
		if k < n-1 && k > 0 && lang.HasCJK(string(out[k-1])) {
			out = out[:n-1]
		}
	}
	// The run of marks that ends the lettering, if what it ends is CJK; Korean sets them
	// half-width, as it does within.
	end := len(out)
	for end > 0 && strings.ContainsRune("1lIi;'!?！？", out[end-1]) {
		end--
	}
	if end > 0 && end < len(out) && lang.HasCJK(string(out[end-1])) {
		bang, question := '！', '？'
		if unicode.Is(unicode.Hangul, out[end-1]) {
			bang, question = '!', '?'
		}
		for i := end; i < len(out); i++ {
			switch out[i] {
			case '?', '？':
				out[i] = question
			case '1', 'l', 'I', 'i', ';', '\'', '!', '！':
				out[i] = bang
			}
		}
	}
	return strings.TrimSpace(string(out))
}

// fullWidth are the marks Tesseract reads half-width that Japanese sets full-width (Korean
// sets them half-width, and Chinese its comma as ，).
var fullWidth = map[rune]rune{'!': '！', '?': '？', '.': '。', ',': '、'}

// hiraganaTwin are the katakana letters set like a hiragana one, in print and to Tesseract.
var hiraganaTwin = map[rune]rune{'カ': 'か', 'ヘ': 'へ', 'ベ': 'べ', 'ペ': 'ぺ', 'リ': 'り'}

// japanese reports whether a and b, either side of a mark, are Japanese: kana or kanji, and
// one of them kana (kanji alone may be Chinese).
func japanese(a, b rune) bool {
	kana := func(r rune) bool { return unicode.In(r, unicode.Hiragana, unicode.Katakana) }
	cjk := func(r rune) bool { return kana(r) || unicode.Is(unicode.Han, r) }
	return cjk(a) && cjk(b) && (kana(a) || kana(b))
}

// katakana reports whether r is a katakana letter (the long-vowel mark included).
func katakana(r rune) bool { return r >= 0x30a1 && r <= 0x30fc }

// unvoicedTwins drops, from a line's reading that has more characters than its line has room
// for (fits says), the kana read beside their voiced twin, one by one until it fits: a voiced
// kana now and then reads as itself and its twin without the dakuten (だ as ただ or ただた, ぞ as
// ぞそ, ず as ずす), an extra character the line has no room for, where a word such as ただ has.
func unvoicedTwins(text string, fits func(string) bool) string {
	const unvoiced, half = "かきくけこさしすせそたちつてとはひふへほカキクケコサシスセソタチツテトハヒフヘホ", "はひふへほハヒフヘホ"
	voices := func(u, v rune) bool {
		return strings.ContainsRune(unvoiced, u) && (v == u+1 || v == u+2 && strings.ContainsRune(half, u))
	}
	for !fits(text) {
		rs := []rune(text)
		i := 0
		for i < len(rs) && !(i+1 < len(rs) && voices(rs[i], rs[i+1]) || i > 0 && voices(rs[i], rs[i-1])) {
			i++
		}
		if i == len(rs) {
			return text
		}
		text = string(slices.Delete(rs, i, i+1))
	}
	return text
}
