// Package plans is the one place that knows the plans, their limits and the credit cost formula.
package plans

import (
	"github.com/vtsproject/vts/internal/job"

	"fmt"
	"strings"
	"time"
)

// MB is the unit of the spec's file-size limits. We read "MB" generously, as mebibytes.
const MB = 1 << 20

// MaxFilesPerJob bounds one upload; it also bounds a job's workflow history.
const MaxFilesPerJob = 200

// Plan is what a user's subscription allows.
type Plan struct {
	ID             string // lower case: free, starter, standard, pro
	Name           string // as the spec writes it: Free, Starter, Standard, Pro
	PagesPerMonth  int    // also the monthly allowance in credits
	ConcurrentJobs int
	MaxFileBytes   int64
	Retention      time.Duration
	APIAccess      bool
}

// The plans of the spec's Limits part.
var (
	Free     = Plan{ID: "free", Name: "Free", PagesPerMonth: 10, ConcurrentJobs: 1, MaxFileBytes: 5 * MB, Retention: 3 * 24 * time.Hour}
	Starter  = Plan{ID: "starter", Name: "Starter", PagesPerMonth: 75, ConcurrentJobs: 2, MaxFileBytes: 10 * MB, Retention: 14 * 24 * time.Hour}
	Standard = Plan{ID: "standard", Name: "Standard", PagesPerMonth: 500, ConcurrentJobs: 5, MaxFileBytes: 25 * MB, Retention: 30 * 24 * time.Hour}
	Pro      = Plan{ID: "pro", Name: "Pro", PagesPerMonth: 1000, ConcurrentJobs: 10, MaxFileBytes: 50 * MB, Retention: 90 * 24 * time.Hour, APIAccess: true}
)

// All lists the plans from smallest to largest.
var All = []Plan{Free, Starter, Standard, Pro}

// Lookup finds a plan by its ID or name, case-insensitively.
func Lookup(id string) (Plan, bool) {
	for _, p := range All {
		if strings.EqualFold(p.ID, id) {
			return p, true
		}
	}
	return Plan{}, false
}

// MustLookup is Lookup for IDs that come from our own database, where an unknown plan is a bug.
func MustLookup(id string) Plan {
	p, ok := Lookup(id)
	if !ok {
		panic(fmt.Sprintf("plans: unknown plan %q", id))
	}
	return p
}

// Cost is the spec's formula, ceil(pages × resolution_multiplier × mode_multiplier), computed in
// integers so that no float rounding can charge a credit too many. The multipliers are the mode's
// and the resolution's own (internal/job).
func Cost(pages int, mode job.Mode, resolution job.Resolution) (int, error) {
	h := mode.Halves()
	if h == 0 {
		return 0, fmt.Errorf("unknown mode %q", mode)
	}
	r := resolution.Multiplier()
	if r == 0 {
		return 0, fmt.Errorf("unknown resolution %q", resolution)
	}
	if pages < 0 {
		return 0, fmt.Errorf("negative page count %d", pages)
	}
	halves := int64(pages) * r * h
	return int((halves + 1) / 2), nil
}

// PeriodOf returns the calendar month containing t, in UTC: the Free plan's billing period.
func PeriodOf(t time.Time) (start, end time.Time) {
	t = t.UTC()
	start = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start, start.AddDate(0, 1, 0)
}

// RetranslateCost is what one edit's request to translate some of a page's blocks again costs,
// however many blocks it names. An edit that only re-letters is free.
const RetranslateCost = 1
