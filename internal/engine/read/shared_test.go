package read

import (
	"image"
	"slices"
	"testing"

	"github.com/vtsproject/vts/internal/engine/page"
)

// A page of many columns and a few rows has its columns split between two processes, the first
// as long as half of everything to read, so that the rows' process and the rest of the columns
// end together; a page whose directions have about as much to read keeps one list each. Every
// line is read once, by its direction's model.
func TestSharedSplitsTheLargerDirection(t *testing.T) {
	blocks := []*page.Block{{Char: 20, Vertical: true}, {Char: 20}}
	var refs []lineRef
	var batch [2][]int
	add := func(vertical bool, chars int) {
		r := image.Rect(0, 0, 20, 20*chars)
		b := 0
		if !vertical {
			r, b = image.Rect(0, 0, 20*chars, 20), 1
		}
		d := 0
		if vertical {
			d = 1
		}
		batch[d] = append(batch[d], len(refs))
		refs = append(refs, lineRef{block: b, rect: r, line: r, vertical: vertical})
	}
	for range 12 {
		add(true, 7) // 8 characters counted a column
	}
	add(false, 3)
	add(false, 4)
	lists := shared(refs, blocks, batch)
	if len(lists) != 3 || lists[0].vertical || !lists[1].vertical || !lists[2].vertical {
		t.Fatalf("%d lists %+v; want the rows', then the columns' in two", len(lists), lists)
	}
	// 96 characters of columns and 9 of rows: half of all is 52, six columns.
	if len(lists[1].idx) != 6 || len(lists[2].idx) != 6 {
		t.Errorf("the columns split %d and %d, want 6 and 6", len(lists[1].idx), len(lists[2].idx))
	}
	var all []int
	for _, l := range lists {
		for _, i := range l.idx {
			if refs[i].vertical != l.vertical {
				t.Errorf("line %d in a list of the other direction", i)
			}
		}
		all = append(all, l.idx...)
	}
	slices.Sort(all)
	if want := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}; !slices.Equal(all, want) {
		t.Errorf("lines read %v, want each once: %v", all, want)
	}

	// About as much each way, or a single long column: one list each.
	refs, batch = nil, [2][]int{}
	add(true, 30)
	add(false, 5)
	if lists := shared(refs, blocks, batch); len(lists) != 2 {
		t.Errorf("a single column split: %+v", lists)
	}
	refs, batch = nil, [2][]int{}
	for range 4 {
		add(true, 7)
		add(false, 6)
	}
	if lists := shared(refs, blocks, batch); len(lists) != 2 {
		t.Errorf("a page of as much each way split: %+v", lists)
	}
}
