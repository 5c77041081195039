package find

import (
	"image"
	"slices"

	"github.com/vtsproject/vts/internal/engine/page"
)

// Lettering on the art is often given a white halo that hugs its strokes. Where its lines are set
// further apart than the halo is wide, each line's halo is a paper area of its own, and the paper
// finder makes a block of each: 今度こそ倒して and やる！ were read, translated and lettered as two
// speeches, the second a fragment. joinHalos gives such lines back to one block.

// haloed reports whether b's paper area is a halo: it hugs the lettering, running past it by
// two thirds of a character at most on every side, where a balloon leaves a margin.
func haloed(b *page.Block) bool { return b.Ink != nil && b.Hugged(b.Char*2/3) }

// haloedTogether reports whether a and b are lines of one piece of lettering with halos of their
// own: both haloed, set in the same direction side by side (within one and a half of the smaller
// character of each other, and level for half the shorter's length at least), their thinnest
// lines within two fifths of each other's width. (A block's character may measure a line with
// the furigana beside it; a haloed sound effect beside the dialogue is twice its size.)
func haloedTogether(a, b *page.Block) bool {
	ta, tb := thinnest(a), thinnest(b)
	if a.Vertical != b.Vertical || !haloed(a) || !haloed(b) || 5*max(ta, tb) > 7*min(ta, tb) {
		return false
	}
	ab, bb := a.Box, b.Box
	if !a.Vertical { // work as if the lines were columns
		ab, bb = image.Rect(ab.Min.Y, ab.Min.X, ab.Max.Y, ab.Max.X), image.Rect(bb.Min.Y, bb.Min.X, bb.Max.Y, bb.Max.X)
	}
	gap := max(ab.Min.X, bb.Min.X) - min(ab.Max.X, bb.Max.X)
	level := min(ab.Max.Y, bb.Max.Y) - max(ab.Min.Y, bb.Min.Y)
	return gap <= min(a.Char, b.Char)*3/2 && level*2 >= min(ab.Dy(), bb.Dy())
}

// thinnest is the width of b's thinnest line across its direction.
func thinnest(b *page.Block) int {
	t := 1 << 30
	for _, l := range b.Lines {
		if b.Vertical {
			t = min(t, l.Dx())
		} else {
			t = min(t, l.Dy())
		}
	}
	return t
}

// joinHalos merges the blocks that are lines of one haloed piece of lettering, rtl ordering
// columns right to left.
func joinHalos(blocks []*page.Block, rtl bool) []*page.Block {
	for joined := true; joined; {
		joined = false
		for i := 0; i < len(blocks) && !joined; i++ {
			for j := i + 1; j < len(blocks) && !joined; j++ {
				if haloedTogether(blocks[i], blocks[j]) {
					blocks[i] = joinedHalos(blocks[i], blocks[j], rtl)
					blocks = slices.Delete(blocks, j, j+1)
					joined = true
				}
			}
		}
	}
	return blocks
}

// joinedHalos is one block of the lines of a and b. Its character is the one of more lines (the
// larger, of as many): every line's crop is scaled by it, and so the main lines read as they did
// alone. (The smaller may be the right one, and the larger measured with furigana: read at the
// smaller, 今度こそ read with its furigana as 今度こそたお.)
func joinedHalos(a, b *page.Block, rtl bool) *page.Block {
	j := *a
	j.Box = a.Box.Union(b.Box)
	if n, m := len(a.Lines), len(b.Lines); m > n || m == n && b.Char > a.Char {
		j.Char = b.Char
	}
	j.Lines = append(slices.Clone(a.Lines), b.Lines...)
	j.Ruby = append(slices.Clone(a.Ruby), b.Ruby...)
	j.Ink, j.Bubble = a.Ink.Union(b.Ink), a.Bubble.Union(b.Bubble)
	slices.SortStableFunc(j.Lines, func(p, q image.Rectangle) int {
		if !j.Vertical {
			return p.Min.Y - q.Min.Y
		}
		if rtl {
			return q.Max.X - p.Max.X
		}
		return p.Min.X - q.Min.X
	})
	return &j
}
