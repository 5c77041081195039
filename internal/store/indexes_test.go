package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

// Each hot query on the jobs table is answered by its index (checked with EXPLAIN on a table of
// 20,000 finished jobs and 200 users' live ones): the count of a user's active jobs (which the old
// jobs_active, made for a status-based count, no longer matched) and the reconciler's three
// lists, which scanned the whole table on every pass.
func TestHotJobQueriesUseTheirIndexes(t *testing.T) {
	s := pgtest.NewStore(t)
	ctx := context.Background()
	pgtest.SetPlan(t, s, "u", "pro")
	pgtest.SeedJobs(t, s, "u", 20000, 100)
	// Jobs in flight: the user's, and one each of 200 others.
	for i := range 203 {
		user := "u"
		if i >= 3 {
			user = fmt.Sprintf("other%d", i)
		}
		pgtest.Reserve(t, s, user, "standard", 1)
	}
	if _, err := s.Pool().Exec(ctx, `ANALYZE jobs`); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"jobs_active": "other7"}
	for index, query := range store.IndexedQueries {
		arg, ok := args[index]
		if !ok {
			arg = time.Now()
		}
		rows, err := s.Pool().Query(ctx, "EXPLAIN "+query, arg)
		if err != nil {
			t.Fatalf("%s: %v", index, err)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		rows.Close()
		if p := strings.Join(plan, "\n"); !strings.Contains(p, " "+index+" ") {
			t.Errorf("the query %s relies on is not answered by it:\n%s", index, p)
		}
	}
}
