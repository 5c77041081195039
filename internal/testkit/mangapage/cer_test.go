package mangapage

import (
	"math"
	"testing"
)

func TestLevenshtein(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"田中先輩", "田中先生", 1},
		{"なんだって", "なんだつて", 1},
		{"abc", "cab", 2},
	} {
		if got := Levenshtein([]rune(c.a), []rune(c.b)); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Levenshtein([]rune(c.b), []rune(c.a)); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.b, c.a, got, c.want)
		}
	}
}

func TestCER(t *testing.T) {
	for _, c := range []struct {
		ref, hyp string
		want     float64
	}{
		{"なんだって！？", "なんだって!?", 0},      // full and half width are one character
		{"ありがとう。", "ありがとう︒", 0},        // and so are the vertical presentation forms
		{"遅刻しちゃう〜！", "遅 刻\nしちゃう〜！", 0}, // whitespace does not count
		{"田中先輩", "田中先生", 0.25},
		{"はい", "", 1},
		{"はい", "ぜんぜんちがうもじれつ", 1}, // capped
		{"", "", 0},
		{"", "x", 1},
	} {
		if got := CER(c.ref, c.hyp); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("CER(%q, %q) = %v, want %v", c.ref, c.hyp, got, c.want)
		}
	}
}
