package plans

import (
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/job"
)

func TestCost(t *testing.T) {
	cases := []struct {
		pages     int
		mode, res string
		want      int
	}{
		{2, "standard", "2K", 4}, // the spec's public example
		{1, "fast", "original", 1},
		{3, "fast", "original", 2},
		{4, "fast", "1K", 2},
		{3, "advanced", "4K", 24},
		{0, "standard", "original", 0},
		{200, "fast", "original", 100},
	}
	for _, c := range cases {
		got, err := Cost(c.pages, job.Mode(c.mode), job.Resolution(c.res))
		if err != nil || got != c.want {
			t.Errorf("Cost(%d, %s, %s) = %d, %v; want %d", c.pages, c.mode, c.res, got, err, c.want)
		}
	}
	if _, err := Cost(1, "turbo", "original"); err == nil {
		t.Error("unknown mode accepted")
	}
	if _, err := Cost(1, "standard", "8K"); err == nil {
		t.Error("unknown resolution accepted")
	}
}

func TestLookup(t *testing.T) {
	for _, name := range []string{"free", "Starter", "STANDARD", "pro"} {
		if _, ok := Lookup(name); !ok {
			t.Errorf("Lookup(%q) failed", name)
		}
	}
	if _, ok := Lookup("enterprise"); ok {
		t.Error("unknown plan found")
	}
	if !Pro.APIAccess || Standard.APIAccess {
		t.Error("API access must be Pro only")
	}
	if Free.MaxFileBytes != 5*MB || Pro.Retention != 90*24*time.Hour {
		t.Error("limits differ from the spec")
	}
}

func TestPeriodOf(t *testing.T) {
	s, e := PeriodOf(time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC))
	if !s.Equal(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)) || !e.Equal(time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("period = %v..%v", s, e)
	}
}
