package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

// The reconciler asks JobExists of every blob prefix: a job's canonical ID finds it; anything else
// (another spelling, a stray prefix) names no job and is no error.
func TestJobExistsByCanonicalID(t *testing.T) {
	s := pgtest.NewStore(t)
	ctx := context.Background()
	id := uuid.NewString()
	if _, err := s.ReserveJob(ctx, store.NewJob{ID: id, UserID: "u", Spec: job.Spec{Mode: "standard", Resolution: "original"}, Pages: 1}); err != nil {
		t.Fatal(err)
	}
	for prefix, want := range map[string]bool{id: true, uuid.NewString(): false, strings.ToUpper(id): false, "stray": false} {
		got, err := s.JobExists(ctx, prefix)
		if err != nil || got != want {
			t.Errorf("JobExists(%q) = %v, %v; want %v", prefix, got, err, want)
		}
	}
}
