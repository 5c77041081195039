// Package bench measures the service against baselines taken in the same run. Run with
// `go test -run '^$' -bench . -benchtime 3x ./bench/`; see docs/BENCHMARKS.md.
package bench

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// TestMain starts the Temporal dev server only when benchmarks were asked for, so that the
// ordinary test run does not pay for it.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		os.Exit(m.Run())
	}
	apitest.Main(m)
}

const (
	pages    = 200
	parallel = 8
)

// noop is the baseline's activity: Temporal's own cost of one activity, nothing else.
func noop(_ context.Context, i int) (int, error) { return i, nil }

// fanOut is the baseline: the same fan-out shape as TranslateJob, with no-op activities.
func fanOut(ctx workflow.Context, n, par int) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	sem := workflow.NewSemaphore(ctx, int64(par))
	wg := workflow.NewWaitGroup(ctx)
	for i := 0; i < n; i++ {
		if err := sem.Acquire(ctx, 1); err != nil {
			return err
		}
		wg.Add(1)
		workflow.Go(ctx, func(gctx workflow.Context) {
			defer wg.Done()
			defer sem.Release(1)
			_ = workflow.ExecuteActivity(gctx, noop, i).Get(gctx, nil)
		})
	}
	wg.Wait(ctx)
	return nil
}

// BenchmarkOrchestration runs, per iteration, the raw fan-out baseline and a real job of the
// same size through the whole service (multipart upload, reservation, blob I/O per page with the
// zero-latency test engine, ZIP, settlement), one job alone and ten at once, and reports pages
// per second of each and their ratio to the baseline.
func BenchmarkOrchestration(b *testing.B) {
	for _, jobs := range []int{1, 10} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			env := apitest.Start(b, apitest.Options{Parallelism: parallel})
			base := worker.New(env.Temporal, env.Queue+"-baseline", worker.Options{MaxConcurrentActivityExecutionSize: parallel})
			base.RegisterWorkflow(fanOut)
			base.RegisterActivity(noop)
			if err := base.Start(); err != nil {
				b.Fatal(err)
			}
			defer base.Stop()
			ctx := context.Background()
			user := "bench"
			if _, err := env.Store.SetPlan(ctx, user, "pro", time.Now(), time.Now().AddDate(0, 1, 0)); err != nil {
				b.Fatal(err)
			}
			if _, err := env.Store.GrantCredits(ctx, user, int64(pages*jobs*(b.N+1)), "bench", fmt.Sprintf("bench:%d:%d", jobs, b.N)); err != nil {
				b.Fatal(err)
			}
			files := make([]apitest.File, pages)
			for i := range files {
				files[i] = apitest.File{Name: fmt.Sprintf("p%03d.png", i), Data: apitest.PNG(b, 64, 96, byte(i))}
			}
			var baseline, ours time.Duration
			b.ResetTimer()
			for it := 0; it < b.N; it++ {
				start := time.Now()
				var wg sync.WaitGroup
				for j := 0; j < jobs; j++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						run, err := env.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: env.Queue + "-baseline"}, fanOut, pages, parallel)
						if err == nil {
							err = run.Get(ctx, nil)
						}
						if err != nil {
							b.Error(err)
						}
					}()
				}
				wg.Wait()
				baseline += time.Since(start)

				start = time.Now()
				ids := make(chan string, jobs)
				for j := 0; j < jobs; j++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						body, ct := apitest.Form([][2]string{{"userId", user}}, files...)
						req, _ := http.NewRequest("POST", env.URL+"/api/translate", body)
						req.Header.Set("Content-Type", ct)
						resp, err := http.DefaultClient.Do(req)
						if err != nil {
							b.Error(err)
							return
						}
						var a struct{ JobID string }
						if resp.StatusCode != http.StatusAccepted {
							b.Errorf("upload: %d", resp.StatusCode)
							resp.Body.Close()
							return
						}
						if err := decode(resp, &a); err != nil {
							b.Error(err)
							return
						}
						ids <- a.JobID
					}()
				}
				wg.Wait()
				close(ids)
				for id := range ids {
					for {
						j, err := env.Store.GetJob(ctx, id)
						if err != nil {
							b.Fatal(err)
						}
						if j.Status == job.Completed {
							break
						}
						if j.Status == job.Failed {
							b.Fatalf("job %s failed", id)
						}
						time.Sleep(5 * time.Millisecond)
					}
				}
				ours += time.Since(start)
			}
			b.StopTimer()
			total := float64(pages * jobs * b.N)
			b.ReportMetric(total/baseline.Seconds(), "baseline-acts/s")
			b.ReportMetric(total/ours.Seconds(), "vts-pages/s")
			b.ReportMetric(ours.Seconds()/baseline.Seconds(), "time-ratio")
		})
	}
}
