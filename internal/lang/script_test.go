package lang

import "testing"

// The script of what was read names its language: kana make Japanese even among kanji, Hangul
// Korean, Han alone Chinese, and text mostly in other letters none of them.
func TestCJKLanguage(t *testing.T) {
	for text, want := range map[string]string{
		"田中先輩、おはようございます！": "ja",
		"안녕하세요, 선배님":      "ko",
		"你好，我们走吧":         "zh",
		"Hello 田中":        "",
		"":                "",
	} {
		if got := CountScripts(text).CJKLanguage(); got != want {
			t.Errorf("CJKLanguage(%q) = %q, want %q", text, got, want)
		}
		if HasCJK(text) != (want != "" || text == "Hello 田中") {
			t.Errorf("HasCJK(%q) = %v", text, HasCJK(text))
		}
	}
	for code, want := range map[string]string{"ja": "Japanese", "ko": "Hangul", "zh-Hant": "Han", "ru": "Cyrillic", "es": "Latin"} {
		if got := Script(code); got != want {
			t.Errorf("Script(%s) = %s, want %s", code, got, want)
		}
	}
}
