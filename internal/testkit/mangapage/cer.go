package mangapage

import (
	"image"
	"image/draw"
	"math"
	"slices"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// How a reading compares with the lettering: the benchmark's measure, which engine tests use too.

// Normalize prepares text for comparison: NFKC (so that full-width ！ and half-width !, or
// the vertical presentation form ︒ and 。, are the same character) without whitespace.
func Normalize(s string) []rune {
	s = norm.NFKC.String(s)
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if !unicode.IsSpace(r) {
			out = append(out, r)
		}
	}
	return out
}

// Levenshtein is the edit distance between a and b in runes.
func Levenshtein(a, b []rune) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	return editRow(a, b, false)[len(b)]
}

// SubstringDistance is the edit distance from frag to the closest substring of ref: the
// alignment is free to start and end anywhere in ref.
func SubstringDistance(ref, frag []rune) int {
	return slices.Min(editRow(frag, ref, true))
}

// editRow is the last row of the edit-distance table of a against b: entry j is the distance
// from a to b[:j], or with freeStart, to the closest substring of b that ends at j.
func editRow(a, b []rune, freeStart bool) []int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	if !freeStart {
		for j := range prev {
			prev[j] = j
		}
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev
}

// CER is the character error rate of hyp against ref after Normalize, capped at 1: a missed
// bubble, or one read as garbage longer than itself, costs 1 and no more.
func CER(ref, hyp string) float64 {
	r, h := Normalize(ref), Normalize(hyp)
	if len(r) == 0 {
		if len(h) == 0 {
			return 0
		}
		return 1
	}
	return math.Min(1, float64(Levenshtein(r, h))/float64(len(r)))
}

// RGBA is the page's pixels as the engine's stages take them.
func (p Page) RGBA() *image.RGBA {
	out := image.NewRGBA(p.Image.Bounds())
	draw.Draw(out, out.Bounds(), p.Image, p.Image.Bounds().Min, draw.Src)
	return out
}
