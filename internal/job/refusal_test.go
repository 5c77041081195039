package job_test

import (
	"testing"

	"github.com/vtsproject/vts/internal/job"
)

// A reservation that failed or never answered is refused as unavailable, with no numbers and the
// words that running workflows already hold in their state.
func TestNotReserved(t *testing.T) {
	r := job.NotReserved()
	if r.Reason != job.Unavailable || r.Message != "credits could not be reserved; try again" ||
		r.CreditsNeeded != 0 || r.CreditsAvailable != 0 || r.RetryAfter != 0 {
		t.Fatalf("NotReserved() = %+v", r)
	}
}
