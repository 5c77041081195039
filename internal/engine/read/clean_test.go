package read

import "testing"

// What Tesseract reads is cleaned the way a reader would correct it: a bar before a kanji or at
// a column's head is the kanji 一, a bar after kana the long-vowel mark; strokes of art read as
// \, | or _ are not lettering; a 1 or ' that ends the lettering is its ！, a 1 between
// katakana their long-vowel mark, a 7 that ends a question (after か, の, …, or a ！) its ？, as
// is a 2 beside a question's ?, and a katakana letter like a hiragana one (カ, ヘ) alone amid
// hiragana that hiragana. Korean keeps the spaces between its words and its half-width marks,
// and its ... read as .… is an ellipsis.
func TestCleanCJK(t *testing.T) {
	for in, want := range map[string]string{
		"ー方その頃":        "一方その頃",
		"いいですか2?":      "いいですか？",
		"見ろ！あれは何だ17":   "見ろ！あれは何だ！？",
		"あと2?":         "あと2?",
		"統ー された":       "統一された",
		"キャー！":         "キャー！",
		"すごーーい":        "すごーーい",
		"ラーメン食べに行こうぜ！": "ラーメン食べに行こうぜ！",
		"お腹すいた〜 \\":    "お腹すいた〜",
		"あと五分| だけ":     "あと五分だけ",
		"Hi there":     "Hi there",
		"ジュ1ス買ってくるね。":  "ジュース買ってくるね。",
		"助けて1":         "助けて！",
		"行くぞ、みんな'":     "行くぞ、みんな！",
		"魔法が使えない1?":    "魔法が使えない！？",
		"静かに!誰か来る?":    "静かに！誰か来る？",
		"俺が守る.必ず。":     "俺が守る。必ず。",
		"悪い,寝坊した。":     "悪い、寝坊した。",
		"괜찮아,내가있잖아.":   "괜찮아,내가있잖아.",   // Korean sets its marks half-width
		"괜찮아, 내가 있잖아.": "괜찮아, 내가 있잖아.", // and a space between its words
		"我们走吧,快点!":     "我们走吧,快点！",     // and Chinese its comma as ，
		"何だと!?":        "何だと！？",
		"行くぞ、みんな;":     "行くぞ、みんな！", // a column's ！ read as ; or i
		"いただきますi":      "いただきます！",
		"魔法が使えない!?.":   "魔法が使えない！？", // no 。 after ！？
		"Hi!?.":        "Hi!?.",
		"Taxi":         "Taxi",
		"1人で行く":        "1人で行く",
		"Level 1":      "Level 1",
		"Lv.1":         "Lv.1",
		"間に合わなtい！":     "間に合わない！",
		"別-に。":         "別に。",
		"ラ-メン":         "ラーメン",
		"그-그게":         "그-그게", // a Korean stammer keeps its hyphen
		"T-シャツ":        "T-シャツ",
		"Tシャツを着た":      "Tシャツを着た",
		"CDを買った":       "CDを買った",
		"本当に大丈夫なの7":    "本当に大丈夫なの？",
		"証拠はあるのか7?":    "証拠はあるのか？",
		"残り7":          "残り7",
		"まだ7":          "まだ7",
		"あと7":          "あと7",
		"ああ、るよ_ :":     "ああ、るよ:",
		"말도 안 돼.…":     "말도 안 돼…",
		"빨리 도망쳐1":      "빨리 도망쳐!",
		"어디 가는 거야？":    "어디 가는 거야?",
		"Wait.…":       "Wait.…",
		"誰カいるのか？":      "誰かいるのか？",
		"約束したじゃないカ！":   "約束したじゃないか！",
		"ヘえ、やるじゃん。":    "へえ、やるじゃん。",
		"カメラを買った":      "カメラを買った",
		"リーダーはベテランだ":   "リーダーはベテランだ",
		"ペンを貸して":       "ペンを貸して",
	} {
		if got := CleanCJK(in); got != want {
			t.Errorf("CleanCJK(%q) = %q, want %q", in, got, want)
		}
	}
}

// A voiced kana read as itself and its twin without the dakuten leaves the line with more
// characters than it has room for: the twins go, one by one, until it has room; a line with room
// for all it read keeps them (ただいま is a word), and one with no twins is left as read.
func TestUnvoicedTwinsGoWhereTheLineHasNoRoom(t *testing.T) {
	room := func(n int) func(string) bool {
		return func(s string) bool { return len([]rune(s)) <= n }
	}
	for _, c := range []struct {
		in   string
		room int
		want string
	}{
		{"忘れるわけないただたろ", 9, "忘れるわけないだろ"},
		{"遅いぞそ", 3, "遅いぞ"},
		{"朝ただよ", 3, "朝だよ"},
		{"ただいま", 4, "ただいま"},
		{"はぱは", 2, "ぱは"},
		{"すごいね", 3, "すごいね"},
	} {
		if got := unvoicedTwins(c.in, room(c.room)); got != c.want {
			t.Errorf("%q in room for %d: %q, want %q", c.in, c.room, got, c.want)
		}
	}
}
