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
)

// Modes lists the accepted modes, cheapest first.
var Modes = []Mode{Fast, Standard, Advanced}

// DefaultMode is the mode of an upload that names none.
const DefaultMode = Standard

// ParseMode reads a mode as an upload names it.
func ParseMode(s string) (Mode, error) {
	m := Mode(s)
	if m.Halves() == 0 {
		return "", fmt.Errorf("unknown mode %q", s)
	}
	return m, nil
}

// Halves is the mode's cost multiplier in halves, so that fast's 0.5× stays an integer; 0 for an
// unknown mode. plans.Cost applies it.
func (m Mode) Halves() int64 {
	switch m {
	case Fast:
		return 1
	case Standard:
		return 2
	case Advanced:
		return 4
	}
	return 0
}

// Resolution is the size a job's pages come back at: the source's, or a long edge of 1K, 2K or
// 4K pixels. Its values never change, as Mode's.
type Resolution string

// The resolutions an upload may ask for.
const (
	Original Resolution = "original"
	Res1K    Resolution = "1K"
	Res2K    Resolution = "2K"
	Res4K    Resolution = "4K"
)

// Resolutions lists the accepted resolutions, cheapest first.
var Resolutions = []Resolution{Original, Res1K, Res2K, Res4K}

// DefaultResolution is the resolution of an upload that names none.
const DefaultResolution = Original

// ParseResolution reads a resolution as an upload names it.
func ParseResolution(s string) (Resolution, error) {
	r := Resolution(s)
	if r.Multiplier() == 0 {
		return "", fmt.Errorf("unknown resolution %q", s)
	}
	return r, nil
}

// LongEdge is the long edge, in pixels, a page is scaled to: 0 for Original (and for an empty or
// unknown resolution), which keeps the page's size.
func (r Resolution) LongEdge() int {
	switch r {
	case Res1K:
		return 1024
	case Res2K:
		return 2048
	case Res4K:
		return 4096
	}
	return 0
}

// Multiplier is the resolution's cost multiplier; 0 for an unknown resolution. plans.Cost applies
// it.
func (r Resolution) Multiplier() int64 {
	switch r {
	case Original, Res1K:
		return 1
	case Res2K:
		return 2
	case Res4K:
		return 4
	}
	return 0
}
