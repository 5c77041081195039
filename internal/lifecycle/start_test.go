package lifecycle_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// reserveHold holds the next attempt of the reservation (a local activity) open, before or after
// it runs, until released, and says whose it was.
type reserveHold struct {
	after   bool // hold once the reservation committed, instead of before it
	arm     chan struct{}
	entered chan string // the job ID
	release chan struct{}
}

func (h *reserveHold) hook(ctx context.Context, activity, workflowID string, run func() (any, error)) (any, error) {
	if activity != "ReserveCredits" {
		return run()
	}
	select {
	case <-h.arm:
	default:
		return run()
	}
	var res any
	var err error
	if h.after {
		res, err = run()
	}
	h.entered <- strings.TrimPrefix(workflowID, job.WorkflowID(""))
	<-h.release
	if !h.after {
		res, err = run()
	}
	return res, err
}

func keyedUpload(t *testing.T, env *apitest.Env, user, key string, n int) *apitest.Response {
	t.Helper()
	var files []apitest.File
	for i, name := range pages(n) {
		files = append(files, apitest.File{Name: name, Data: apitest.PNG(t, 40, 30, byte(i))})
	}
	body, ct := apitest.Form([][2]string{{"userId", user}}, files...)
	return env.Do(http.MethodPost, "/api/translate", body, http.Header{"Content-Type": {ct}, "Idempotency-Key": {key}})
}

// Issue 18, item 7: an upload whose start fails without an answer is exact about its job. When
// the reservation commits after the API gave up, it is refused (the upload was withdrawn): no job
// is charged under an ID the client never received, its pages go, and a retry with the same
// Idempotency-Key starts the one job that is charged. When the reservation committed and only its
// answer was late, the client is given that job (202), its pages are kept and it completes, and a
// retry with the key returns it. Before, both answered 503 and discarded the pages of a job that
// could still run and charge, and the first let a retry start and charge a second job.
func TestFailedStartIsExactAboutItsJob(t *testing.T) {
	for _, after := range []bool{false, true} {
		name := map[bool]string{false: "reservation after the failure", true: "answer lost after the reservation"}[after]
		t.Run(name, func(t *testing.T) {
			h := &reserveHold{after: after, arm: make(chan struct{}, 1), entered: make(chan string, 1), release: make(chan struct{})}
			env := apitest.Start(t, apitest.Options{AroundActivity: h.hook})
			env.Jobs.SetStartTimeout(5 * time.Second)
			ctx := context.Background()
			h.arm <- struct{}{}
			answered := make(chan *apitest.Response, 1)
			go func() { answered <- keyedUpload(t, env, "starter", "k", 2) }()
			// The reservation is held (before it runs, or once it committed) until the API has
			// given up on the start and answered.
			held := <-h.entered
			first := <-answered
			close(h.release)
			var a apitest.Accepted
			if !after {
				if first.Status != http.StatusServiceUnavailable {
					t.Fatalf("first upload: %d %s, want 503", first.Status, first.Body)
				}
				// The late reservation is refused and the withdrawn upload's pages go.
				waitFor(t, func() bool {
					_, err := env.Temporal.DescribeWorkflowExecution(ctx, job.WorkflowID(held), "")
					return err == nil && env.Blobs(held) == 0
				})
				waitFor(t, func() bool {
					r, err := env.Temporal.DescribeWorkflowExecution(ctx, job.WorkflowID(held), "")
					return err == nil && r.GetWorkflowExecutionInfo().GetCloseTime() != nil
				})
				if _, err := env.Store.GetJob(ctx, held); err == nil {
					t.Fatal("a job was reserved after its upload was answered 503")
				}
				retry := keyedUpload(t, env, "starter", "k", 2)
				if retry.Status != http.StatusAccepted {
					t.Fatalf("retry: %d %s", retry.Status, retry.Body)
				}
				retry.JSON(t, &a)
			} else {
				if first.Status != http.StatusAccepted {
					t.Fatalf("first upload: %d %s, want 202 with the job its reservation belongs to", first.Status, first.Body)
				}
				first.JSON(t, &a)
				if a.JobID != held {
					t.Fatalf("given job %s, the reservation was for %s", a.JobID, held)
				}
				retry := keyedUpload(t, env, "starter", "k", 2)
				var again apitest.Accepted
				retry.JSON(t, &again)
				if retry.Status != http.StatusAccepted || again.JobID != held {
					t.Fatalf("retry: %d %s, want the same job", retry.Status, retry.Body)
				}
			}
			waitFor(t, func() bool {
				j, _ := env.Store.GetJob(ctx, a.JobID)
				return j.Terminal()
			})
			j, _ := env.Store.GetJob(ctx, a.JobID)
			if j.Status != job.Completed || j.CreditsCharged != 2 {
				t.Fatalf("job %s: status %s, charged %d", a.JobID, j.Status, j.CreditsCharged)
			}
			var jobs int
			if err := env.Store.Pool().QueryRow(ctx, `SELECT count(*) FROM jobs WHERE user_id = 'starter'`).Scan(&jobs); err != nil || jobs != 1 {
				t.Fatalf("%d jobs of the user (%v), want 1", jobs, err)
			}
			if al, _ := env.Balance("starter"); al != 8 {
				t.Fatalf("allowance %d, want 8: one job of two pages charged", al)
			}
		})
	}
}
