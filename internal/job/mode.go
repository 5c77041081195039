package job

import "fmt"

// Mode is how much effort (and which engine) a job's pages get. Its values are on the wire, in
// the database and in workflow histories: they never change.
type Mode string

// The modes an upload may ask for.
const (
	Fast     Mode = "fast"
	Standard Mode = "standard"
	Advanced Mode = "advanced"

	// DefaultMode is the mode of an upload that names none.
	DefaultMode = Standard
)

// Modes lists the accepted modes, cheapest first.
var Modes = []Mode{Fast, Standard, Advanced}

// modeHalves is each mode's cost multiplier in halves, so that fast's 0.5× stays an integer.
var modeHalves = map[Mode]int64{Fast: 1, Standard: 2, Advanced: 4}

// Halves is the mode's cost multiplier in halves; 0 for an unknown mode. plans.Cost applies it.
func (m Mode) Halves() int64 { return modeHalves[m] }

// ParseMode reads a mode as an upload names it.
func ParseMode(s string) (Mode, error) { return parse(s, Mode.Halves, "mode") }

// Resolution is the size a job's pages come back at: the source's, or a long edge of 1K, 2K or
// 4K pixels. Its values never change, as Mode's.
type Resolution string

// The resolutions an upload may ask for.
const (
	Original Resolution = "original"
	Res1K    Resolution = "1K"
	Res2K    Resolution = "2K"
	Res4K    Resolution = "4K"

	// DefaultResolution is the resolution of an upload that names none.
	DefaultResolution = Original
)

// Resolutions lists the accepted resolutions, cheapest first.
var Resolutions = []Resolution{Original, Res1K, Res2K, Res4K}

// resolutionSizes is each resolution's cost multiplier and the long edge, in pixels, its pages
// are scaled to (0: the page keeps its size). The OCR engine and Gemini both read the edges here.
var resolutionSizes = map[Resolution]struct {
	multiplier int64
	longEdge   int
}{Original: {1, 0}, Res1K: {1, 1024}, Res2K: {2, 2048}, Res4K: {4, 4096}}

// Multiplier is the resolution's cost multiplier; 0 for an unknown resolution. plans.Cost
// applies it.
func (r Resolution) Multiplier() int64 { return resolutionSizes[r].multiplier }

// LongEdge is the long edge, in pixels, a page is scaled to: 0 for Original (and for an empty or
// unknown resolution), which keeps the page's size.
func (r Resolution) LongEdge() int { return resolutionSizes[r].longEdge }

// ParseResolution reads a resolution as an upload names it.
func ParseResolution(s string) (Resolution, error) {
	return parse(s, Resolution.Multiplier, "resolution")
}

// Lettering is how a job's translations are lettered: in mixed case, or in capitals as comics
// are. Its values never change, as Mode's.
type Lettering string

// The lettering styles an upload may ask for.
const (
	Mixed Lettering = "mixed"
	Upper Lettering = "upper"

	// DefaultLettering is the lettering of an upload that names none (and of a deployment that
	// sets no VTS_LETTERING).
	DefaultLettering = Mixed
)

// Letterings lists the accepted lettering styles.
var Letterings = []Lettering{Mixed, Upper}

// ParseLettering reads a lettering style as an upload or VTS_LETTERING names it.
func ParseLettering(s string) (Lettering, error) {
	return parse(s, func(l Lettering) int64 {
		if l == Mixed || l == Upper {
			return 1
		}
		return 0
	}, "lettering")
}

// parse reads s as a T, known when its multiplier is not 0.
func parse[T ~string](s string, multiplier func(T) int64, what string) (T, error) {
	if multiplier(T(s)) == 0 {
		return "", fmt.Errorf("unknown %s %q", what, s)
	}
	return T(s), nil
}
