package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

// The reconciler asks KeptJobs of the blob prefixes: a live job's canonical ID is kept; a deleted
// or expired job's files are not (the reconciler removes them), and anything else (another
// spelling, a stray prefix, an unknown ID) names no job and is no error.
func TestKeptJobsByCanonicalID(t *testing.T) {
	s := pgtest.NewStore(t)
	ctx := context.Background()
	pgtest.SetPlan(t, s, "u", "pro")
	reserve := func() string { return pgtest.Reserve(t, s, "u", "standard", 1) }
	live, deleted, expired := reserve(), reserve(), reserve()
	if _, err := s.DeleteJob(ctx, deleted, "u"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.MarkExpired(ctx, expired); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{live: true, deleted: false, expired: false, uuid.NewString(): false,
		strings.ToUpper(live): false, strings.ReplaceAll(live, "-", ""): false, "stray": false}
	var ids []string
	for id := range want {
		ids = append(ids, id)
	}
	kept, err := s.KeptJobs(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for id, w := range want {
		if kept[id] != w {
			t.Errorf("KeptJobs: %q kept %v, want %v", id, kept[id], w)
		}
	}
}
