package find

import (
	"image"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/vtsproject/vts/internal/engine/raster"
)

// everyPair is a span that makes cluster test every pair, as it did before its sweep.
func everyPair[T any](T) (int, int) { return math.MinInt / 2, math.MaxInt / 2 }

// The sweep finds the groups testing every pair finds: joinSpan covers every gap joins allows
// (were joins to reach farther, blobs the sweep never compares would stay apart).
func TestClusterSweepGroupsLikeEveryPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	mixed := 0 // rounds with groups of several blobs and more than one group
	for round := range 200 {
		minChar := 7 + rng.IntN(20)
		var blobs []blob
		for range 20 + rng.IntN(150) {
			w, h := 1+rng.IntN(2*minChar), 1+rng.IntN(2*minChar)
			x, y := rng.IntN(40*minChar), rng.IntN(20*minChar)
			blobs = append(blobs, blob{Box: image.Rect(x, y, x+w, y+h), Thick: min(w, h), Ink: 3 + rng.IntN(w*h)})
		}
		same := func(a, b blob) bool { return joins(a, b, minChar) }
		want := raster.Cluster(blobs, everyPair[blob], same)
		if got := raster.Cluster(blobs, joinSpan(minChar), same); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d (minChar %d): the sweep found %d groups, every pair %d", round, minChar, len(got), len(want))
		}
		if len(want) > 1 && len(want) < len(blobs) {
			mixed++
		}
	}
	if mixed < 150 {
		t.Fatalf("%d of 200 rounds had both joined and separate blobs: the test compares little", mixed)
	}
}
