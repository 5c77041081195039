package lifecycle_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

// BenchmarkReconcilePass times one pass of the reconciler's activity (real PostgreSQL, file
// bucket, Temporal dev server) over a table of 20,000 then 200,000 finished jobs, 2 % of them
// still in retention with files in storage, the rest expired: the steady state of a service that
// has run a while. Each size runs without the indexes of migration 0007 and then with them, in
// the same run, so that the ratio is what the indexes buy.
//
//	go test ./internal/lifecycle -run '^$' -bench BenchmarkReconcilePass -benchtime 5x
func BenchmarkReconcilePass(b *testing.B) {
	env := apitest.Start(b, apitest.Options{NoWorker: true})
	ctx := context.Background()
	if _, err := env.Store.EnsureUser(ctx, "bench"); err != nil {
		b.Fatal(err)
	}
	indexes, err := os.ReadFile("../store/migrations/0007_reconcile_indexes.sql")
	if err != nil {
		b.Fatal(err)
	}
	acts := &activities.Activities{Store: env.Store, Bucket: env.Bucket, Temporal: env.Temporal,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	tenv := suite.NewTestActivityEnvironment()
	tenv.RegisterActivity(acts)
	seeded := 0
	for _, n := range []int{20_000, 200_000} {
		more := n - seeded
		for _, id := range pgtest.SeedJobs(b, env.Store, "bench", more, more/50) {
			if err := env.Bucket.WriteAll(ctx, job.InputKey(id, 0, ".png"), []byte("page"), nil); err != nil {
				b.Fatal(err)
			}
		}
		seeded = n
		for _, indexed := range []bool{false, true} {
			sql := `DROP INDEX jobs_unsettled, jobs_stranded, jobs_expiry`
			if indexed {
				sql = string(indexes)
			}
			if _, err := env.Store.Pool().Exec(ctx, sql); err != nil {
				b.Fatal(err)
			}
			if _, err := env.Store.Pool().Exec(ctx, `ANALYZE jobs`); err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("jobs=%d/indexes=%v", n, indexed), func(b *testing.B) {
				for b.Loop() {
					v, err := tenv.ExecuteActivity(acts.Reconcile, activities.ReconcileInput{Grace: time.Hour})
					if err != nil {
						b.Fatal(err)
					}
					var res activities.ReconcileResult
					if err := v.Get(&res); err != nil || len(res.Failures)+len(res.OrphanJobs)+len(res.Settled) != 0 {
						b.Fatalf("the pass acted on a steady table: %+v %v", res, err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/job")
			})
		}
	}
}
