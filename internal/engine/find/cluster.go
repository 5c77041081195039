package find

import "github.com/vtsproject/vts/internal/engine/raster"

// joins says whether two blobs belong to the same lettering: columns or rows of about one
// thickness a character apart, or a small mark (punctuation, a dakuten that blurred apart) close
// to a column. Art beside a bubble's text is usually much thicker or thinner, which keeps it out.
func joins(a, b blob, minChar int) bool {
	small, big := a, b
	if small.Thick > big.Thick {
		small, big = big, small
	}
	gap := raster.Gap(a.Box, b.Box)
	// Characters of one column (or row) line up: a thin stroke such as a vertical ー, or a
	// small kana or mark, stacked right under its neighbour belongs to it whatever its size.
	xov := min(a.Box.Max.X, b.Box.Max.X) - max(a.Box.Min.X, b.Box.Min.X)
	yov := min(a.Box.Max.Y, b.Box.Max.Y) - max(a.Box.Min.Y, b.Box.Min.Y)
	if gap <= max(minChar, big.Thick)*4/5 && big.Thick <= 4*max(minChar, small.Thick) &&
		(xov*2 >= min(a.Box.Dx(), b.Box.Dx()) || yov*2 >= min(a.Box.Dy(), b.Box.Dy())) {
		return true
	}
	if small.Thick*9 >= big.Thick*5 { // comparable thickness
		return gap <= max(minChar, small.Thick)*6/5
	}
	// A small mark joins a column it nearly touches, never a large shape.
	return small.Ink*4 < big.Ink && gap <= max(minChar, big.Thick*3/5) && big.Thick <= 3*max(minChar, small.Thick)*2
}

// clusters groups blobs as joins joins them: each group the lettering of one block, or art.
func clusters(blobs []blob, minChar int) [][]blob {
	return raster.Cluster(blobs, joinSpan(minChar), func(a, b blob) bool { return joins(a, b, minChar) })
}

// joinSpan widens a blob's x extent by the widest gap joins allows: max(minChar, Thick)*6/5.
func joinSpan(minChar int) func(blob) (int, int) {
	return func(b blob) (int, int) {
		return b.Box.Min.X - max(minChar, b.Thick)*6/5, b.Box.Max.X + max(minChar, b.Thick)*6/5
	}
}
