package ocr

import (
	"slices"

	"github.com/vtsproject/vts/internal/engine/detect"
	"github.com/vtsproject/vts/internal/engine/page"
	"github.com/vtsproject/vts/internal/lang"
)

// Every block the finder found goes into the transcript, so that a proofreader sees what the
// machine saw: a block it could not read with confidence is kept as skipped, with its box and
// why, and left untouched on the page (neither erased nor lettered), for a person to fill in.
// Sound effects drawn into the art are kept as kind sfx: their translation goes into the
// transcript only and the art stays as drawn.

// sfxScale is how much larger than the page's dialogue the characters of free text must be to
// be a sound effect: dialogue keeps one size across a page, sound effects are drawn two to five
// times larger.
const sfxScale = 1.8

// soundEffects marks the blocks that are sound effects: outside any bubble, with characters far
// larger than the page's dialogue. The dialogue is what was read with confidence in bubbles (a
// tone's dots the finder took for a bubble of small characters say nothing of its size); without
// any to compare with, nothing is a sound effect.
func soundEffects(blocks []*page.Block, readings []page.Reading) []bool {
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
	out := make([]bool, len(blocks))
	if len(chars) == 0 {
		return out
	}
	slices.Sort(chars)
	dialogue := chars[len(chars)/2]
	for i, b := range blocks {
		out[i] = b.Bubble == nil && float64(b.Char) >= sfxScale*float64(dialogue)
	}
	return out
}

// reasonSFX is why a sound effect is left in the art.
const reasonSFX = "sound effect: left in the art, its translation in the transcript only"
