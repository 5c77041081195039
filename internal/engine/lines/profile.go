package lines

import (
	"slices"
	"sort"
)

// A block's ink projected across and along its lines: the runs of the profile are its lines,
// and the gaps between them, empty or faint, part them.

// segments splits a projection profile into runs of non-empty bins, joining runs separated by
// gaps of at most an eighth of minChar (a stroke-less sliver inside one character). A faint
// stretch, two pixels of ink or less and a sixteenth of the fullest bin's (a speck of JPEG noise,
// a stroke's antialiased tip), splits like a gap where it lies between two lines: it does not make
// two lines set close together one.
func segments(profile []int, minChar int) [][2]int {
	slack := max(1, minChar/8)
	var runs [][2]int
	start, lastOn := -1, -1
	for i, v := range profile {
		if v == 0 {
			continue
		}
		if start >= 0 && i-lastOn-1 > slack {
			runs = append(runs, [2]int{start, lastOn + 1})
			start = -1
		}
		if start < 0 {
			start = i
		}
		lastOn = i
	}
	if start >= 0 {
		runs = append(runs, [2]int{start, lastOn + 1})
	}
	top := slices.Max(profile)
	var out [][2]int
	for k, r := range runs {
		var others []int
		for j, o := range runs {
			if j != k {
				others = append(others, o[1]-o[0])
			}
		}
		out = append(out, splitFaint(profile, r, others, slack, minChar, top)...)
	}
	return out
}

// splitFaint is the run r of profile split in the middle of every faint stretch longer than
// slack but no longer than a narrow gap (half of minChar) that has ink on both sides, when r is
// far wider than the other runs (of the widths given) typically are and its parts are lines of
// small lettering like them: all of a width, as wide as the others, from minChar to six times
// it. A speck fills only a narrow gap: larger lettering leaves empty bins either side of it. The
// parts of one line of thin strokes (the gap down い) are not lines, nor are the pieces of a mass
// of art or the sides of an outlined shape; and where no other run shows how wide a line is, the
// faint gaps between the characters of columns side by side are no rows.
func splitFaint(profile []int, r [2]int, others []int, slack, minChar, top int) [][2]int {
	at, _ := faintCuts(profile, r, slack, minChar, top)
	if len(at) == 0 || len(others) == 0 {
		return [][2]int{r}
	}
	narrow, wide := partWidths(r, at)
	typical := slices.Sorted(slices.Values(others))[len(others)/2]
	if (r[1]-r[0])*5 < typical*8 || narrow < minChar || narrow*4 < wide*3 || narrow*4 < typical*3 || wide > 6*minChar {
		return [][2]int{r}
	}
	return partsOf(r, at)
}

// faintColumns parts the one run r of an x profile into columns about char wide (the rows'
// thickness) at its faint stretches, as splitFaint parts a run, but a faint stretch within a
// column's strokes (beside the left stroke of ご) that would leave a sliver is passed over: of
// the two stretches either side of a sliver, the one with more ink.
func faintColumns(profile []int, r [2]int, char, minChar int) [][2]int {
	at, ink := faintCuts(profile, r, max(1, minChar/8), minChar, slices.Max(profile))
	for len(at) > 0 {
		bounds := slices.Concat([]int{r[0]}, at, []int{r[1]})
		k := 0 // the narrowest part
		for j := 1; j < len(bounds)-1; j++ {
			if bounds[j+1]-bounds[j] < bounds[k+1]-bounds[k] {
				k = j
			}
		}
		if (bounds[k+1]-bounds[k])*4 >= char*3 {
			break
		}
		c := k // the cut on the part's right, unless the one on its left holds more ink
		if k == len(at) || k > 0 && ink[k-1] > ink[k] {
			c = k - 1
		}
		at, ink = slices.Delete(at, c, c+1), slices.Delete(ink, c, c+1)
	}
	narrow, wide := partWidths(r, at)
	if len(at) == 0 || narrow < minChar || narrow*4 < wide*3 || wide > 6*minChar {
		return [][2]int{r}
	}
	return partsOf(r, at)
}

// faintCuts are the middles of the faint stretches of run r of profile (two pixels of ink or
// less and a sixteenth of top) longer than slack but no longer than half of minChar, with ink
// before them, and the ink each stretch holds.
func faintCuts(profile []int, r [2]int, slack, minChar, top int) (at, ink []int) {
	faint, sum, inked := -1, 0, false // where the current faint stretch began, its ink; ink since the run's start
	for i := r[0]; i < r[1]; i++ {
		if v := profile[i]; v <= 2 && v*16 <= top {
			if faint < 0 {
				faint, sum = i, 0
			}
			sum += v
			continue
		}
		if faint >= 0 && inked && i-faint > slack && (i-faint)*2 <= minChar {
			at, ink = append(at, (faint+i)/2), append(ink, sum)
		}
		faint, inked = -1, true
	}
	return at, ink
}

// partsOf are the parts of run r between the cuts at.
func partsOf(r [2]int, at []int) [][2]int {
	bounds := slices.Concat([]int{r[0]}, at, []int{r[1]})
	out := make([][2]int, len(bounds)-1)
	for k := range out {
		out[k] = [2]int{bounds[k], bounds[k+1]}
	}
	return out
}

// partWidths are the narrowest and the widest of the parts of run r between the cuts at.
func partWidths(r [2]int, at []int) (narrow, wide int) {
	narrow = r[1] - r[0]
	for _, p := range partsOf(r, at) {
		narrow, wide = min(narrow, p[1]-p[0]), max(wide, p[1]-p[0])
	}
	return narrow, wide
}

// medianGap is the median width of the gaps between segments, 0 with fewer than two segments.
func medianGap(segs [][2]int) int {
	if len(segs) < 2 {
		return 0
	}
	gaps := make([]int, len(segs)-1)
	for i := 1; i < len(segs); i++ {
		gaps[i-1] = segs[i][0] - segs[i-1][1]
	}
	sort.Ints(gaps)
	return gaps[len(gaps)/2]
}
