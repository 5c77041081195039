package ocr

import (
	"slices"
	"strings"
	"unicode"

	"github.com/vtsproject/vts/internal/engine/detect"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/engine/read"
	"github.com/vtsproject/vts/internal/lang"
)

// Every block the finder found goes into the transcript (but specks of art, below), so that a
// proofreader sees what the machine saw: a block it could not read with confidence is kept as
// skipped, with its box and why, and left untouched on the page (neither erased nor lettered),
// for a person to fill in.
// Sound effects drawn into the art are kept as kind sfx: their translation goes into the
// transcript only and the art stays as drawn.

// sfxScale is how much larger than the page's dialogue the characters of free text must be to
// be a sound effect: dialogue keeps one size across a page, sound effects are drawn two to five
// times larger.
const sfxScale = 1.8

// dialogueChar is the character size of the page's dialogue: the median, character by
// character, of what was read with confidence in bubbles (a tone's dots the finder took for a
// bubble of small characters say nothing of its size); 0 when nothing was.
func dialogueChar(blocks []*page.Block, readings []page.Reading) int {
	var chars []int
	for i, b := range blocks {
		if b.Bubble != nil && readings[i].Conf >= detect.MinReadConf && lang.HasCJK(readings[i].Text) {
			// Each character counts, so that specks of art the finder took for a bubble of a
			// character or two do not pass for the size of the page's dialogue.
			for range b.Chars() {
				chars = append(chars, b.Char)
			}
		}
	}
	if len(chars) == 0 {
		return 0
	}
	slices.Sort(chars)
	return chars[len(chars)/2]
}

// soundEffects marks the blocks that are sound effects: outside any balloon, with characters far
// larger than the page's dialogue (dialogueChar); without any dialogue to compare with, nothing
// is a sound effect. The finder gives a bubble to what has paper all about it, which is not
// always a balloon: a sound effect drawn with a white halo on the art has its halo, one that
// hugs the lettering within a sixth of a character on every side (a balloon, or a caption's
// box, leaves a third of a character or more). One drawn on a panel's white has that white
// for its bubble, as a short shout has its balloon, many times its lettering: the two are not
// told apart, and it is lettered as a shout would be. Lettering read as a sentence that a 。
// closes is narration or speech set large, never a sound effect (油断するなよ。 on the art, hard
// seed 10, was left in place as one); a sound effect misread is short, or has its 。 amid it.
func soundEffects(blocks []*page.Block, readings []page.Reading, dialogue int) []bool {
	out := make([]bool, len(blocks))
	for i, b := range blocks {
		out[i] = dialogue > 0 && (b.Bubble == nil || b.Hugged(b.Char/6)) && float64(b.Char) >= sfxScale*float64(dialogue) &&
			!closedSentence(read.CleanCJK(readings[i].Text))
	}
	return out
}

// closedSentence reports whether s is a sentence of five CJK letters or more that ends in 。.
func closedSentence(s string) bool {
	c := lang.CountScripts(s)
	return strings.HasSuffix(s, "。") && c.Kana+c.Han+c.Hangul >= 5
}

// Specks of art (a highlight in an eye, the light between strands of hair, a fold of cloth) are
// small paper areas holding small dark shapes, and Tesseract reads a kana or two in them, now
// and then with fair confidence: エキ, ャキ, 一一アーラッ. Sent to the translator they would be
// painted over; kept as skipped they crowd the proofreader's list with boxes on the art.
// Lettering keeps one size across a page (small asides are set at two thirds of the dialogue's
// size or more), so what is read at under half the dialogue's size is lettering only when read
// with near certainty, and is otherwise no block at all. On 60 pages of our three sets this
// leaves out 26 of the 49 specks on no lettering that reached the translator, and 208 of the
// 698 blocks skipped, and no lettering (docs/BENCHMARKS.md).
const (
	speckScale   = 0.5
	minSpeckConf = 0.9
)

// speck reports whether a block read at conf is a speck of art: far smaller than the page's
// dialogue (dialogueChar) and not read with near certainty.
func speck(b *page.Block, conf float64, dialogue int) bool {
	return dialogue > 0 && float64(b.Char) < speckScale*float64(dialogue) && conf < minSpeckConf
}

// Narration and shouts set on the art are read less surely than dialogue in a bubble (the art
// about them, a halo's cut edges), often under minFreeConf though read well: 俺が守る.必ず。 at
// 0.68, ねえ、間いてる？ at 0.67. What the art passes for lettering reads as a few marks, often
// the same one (いいいい, 一一 一一, ジス, ューンーの), or mixes in Latin letters (aれてたしes); so
// a reading between MinReadConf and minFreeConf is lettering when it reads as a sentence. On
// 96 pages of our four sets this lets seven readings through, all of lettering, none of art
// (docs/BENCHMARKS.md).

// sentenceLike reports whether s reads as a sentence: five CJK letters or more, none Latin, no
// one letter half of them, and a mark that ends or divides a sentence (。！？… or 、).
func sentenceLike(s string) bool {
	c := lang.CountScripts(s)
	cjk := c.Kana + c.Han + c.Hangul
	if cjk < 5 || c.Latin > 0 || !strings.ContainsAny(s, "。！？…、!?") {
		return false
	}
	seen := map[rune]int{}
	for _, r := range s {
		if seen[r]++; seen[r]*2 >= cjk && unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// reasonSFX is why a sound effect is left in the art.
const reasonSFX = "sound effect: left in the art, its translation in the transcript only"
