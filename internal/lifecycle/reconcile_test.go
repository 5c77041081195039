package lifecycle_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/workflows"
)

// runReconcile runs one pass of the reconciler on the env's task queue, acting on anything older
// than a nanosecond.
func runReconcile(t *testing.T, env *apitest.Env) *activities.ReconcileResult {
	t.Helper()
	ctx := context.Background()
	run, err := env.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: env.Queue},
		workflows.Reconcile, workflows.ReconcileInput{Grace: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	var res activities.ReconcileResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatal(err)
	}
	return &res
}

// holder holds the next attempt of one activity type open until the test releases it, which
// fails the attempt without running the activity.
type holder struct {
	activity chan string // the activity type to hold next; read by the hook
	entered  chan string // the workflow whose activity is held
	release  chan struct{}
}

func newHolder() *holder {
	return &holder{activity: make(chan string, 1), entered: make(chan string), release: make(chan struct{})}
}

func (h *holder) hook(ctx context.Context, activity, workflowID string, run func() (any, error)) (any, error) {
	select {
	case want := <-h.activity:
		if want != activity {
			h.activity <- want
			return run()
		}
	default:
		return run()
	}
	h.entered <- workflowID
	select {
	case <-h.release:
	case <-ctx.Done():
	}
	return nil, temporal.NewNonRetryableApplicationError("held by the test", "Held", nil)
}

// expiryRunning reports whether the job's expiry workflow is running.
func expiryRunning(t *testing.T, env *apitest.Env, jobID string) bool {
	d, err := env.Temporal.DescribeWorkflowExecution(context.Background(), job.ExpiryWorkflowID(jobID), "")
	return err == nil && d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
}

// Issue 18, item 3: a workflow closed between its settlement and RecordZip (an operator
// terminates it while the ZIP is built) left its job `processing` for ever: the download
// answered 409 and the files were never deleted. The reconciler concludes every such job: completed
// with its archive when the archive was built, completed without it when its pages are there,
// failed when nothing is, each with its expiry armed; a deleted one loses its files. A failed
// job whose expiry is lost is re-armed.
func TestReconcilerConcludesJobsClosedAfterSettlement(t *testing.T) {
	h := newHolder()
	env := apitest.Start(t, apitest.Options{AroundActivity: h.hook})
	ctx := context.Background()
	strand := func(activity string, n int, between func(jobID string)) string {
		h.activity <- activity
		a := upload(t, env, "stranded", pages(n)...)
		if wf := <-h.entered; wf != job.WorkflowID(a.JobID) {
			t.Fatalf("held %s, want the workflow of job %s", wf, a.JobID)
		}
		if between != nil {
			between(a.JobID)
		}
		if err := env.Temporal.TerminateWorkflow(ctx, job.WorkflowID(a.JobID), "", "operator"); err != nil {
			t.Fatal(err)
		}
		h.release <- struct{}{}
		return a.JobID
	}
	zipped := strand("RecordZip", 2, nil)
	unzipped := strand("BuildZip", 2, nil)
	lost := strand("BuildZip", 1, func(id string) {
		// Its one page is gone from storage (a failed disk): nothing is left to deliver.
		if err := env.Bucket.Delete(ctx, job.OutputKey(id, "page1.png")); err != nil {
			t.Fatal(err)
		}
	})
	deleted := strand("BuildZip", 1, func(id string) {
		if _, err := env.Store.DeleteJob(ctx, id, "stranded"); err != nil {
			t.Fatal(err)
		}
	})

	for _, id := range []string{zipped, unzipped, lost, deleted} {
		j, _ := env.Store.GetJob(ctx, id)
		if j.SettledAt == nil || j.Terminal() {
			t.Fatalf("job %s before reconciling: settled %v, status %s", id, j.SettledAt, j.Status)
		}
	}
	if r := env.Do("GET", "/api/download/"+zipped, nil, nil); r.Status != http.StatusConflict {
		t.Fatalf("download before reconciling: %d", r.Status)
	}

	res := runReconcile(t, env)
	t.Logf("reconciled: %+v", res)
	for _, id := range []string{zipped, unzipped, lost, deleted} {
		if !slices.Contains(res.Concluded, id) {
			t.Fatalf("job %s not concluded: %+v", id, res)
		}
	}
	j, _ := env.Store.GetJob(ctx, zipped)
	if j.Status != job.Completed || j.ZipKey != job.ZipKey(zipped) || j.CreditsCharged != 2 {
		t.Fatalf("zipped job: status %s, zip %q, charged %d", j.Status, j.ZipKey, j.CreditsCharged)
	}
	if r := env.Do("GET", "/api/download/"+zipped, nil, nil); r.Status != http.StatusOK {
		t.Fatalf("download after reconciling: %d %s", r.Status, r.Body)
	}
	j, _ = env.Store.GetJob(ctx, unzipped)
	if j.Status != job.Completed || j.ZipKey != "" || !slices.ContainsFunc(j.Errors, func(e job.PageError) bool {
		return e.Message == activities.ZipFailedMessage
	}) {
		t.Fatalf("job without its ZIP: status %s, zip %q, errors %v", j.Status, j.ZipKey, j.Errors)
	}
	j, _ = env.Store.GetJob(ctx, lost)
	if j.Status != job.Failed || j.CreditsCharged != 1 {
		t.Fatalf("job without pages: status %s, charged %d", j.Status, j.CreditsCharged)
	}
	for _, id := range []string{zipped, unzipped, lost} {
		if !expiryRunning(t, env, id) {
			t.Fatalf("job %s has no expiry", id)
		}
	}
	if env.Blobs(deleted) != 0 {
		t.Fatal("the deleted job's files are left")
	}
	if al, _ := env.Balance("stranded"); al != 10-6 {
		t.Fatalf("allowance %d, want 4: settlement is not redone", al)
	}

	// The failed job's expiry is lost and its retention over: the next pass re-arms it.
	if err := env.Temporal.TerminateWorkflow(ctx, job.ExpiryWorkflowID(lost), "", "lost"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.Pool().Exec(ctx, `UPDATE jobs SET expires_at = now() - interval '1 minute' WHERE id = $1`, lost); err != nil {
		t.Fatal(err)
	}
	res = runReconcile(t, env)
	if len(res.Concluded) != 0 || !slices.Contains(res.Expired, lost) {
		t.Fatalf("second pass: %+v", res)
	}
	// The re-armed expiry is found by its user in the Temporal UI, as the workflow's own is.
	d, err := env.Temporal.DescribeWorkflowExecution(ctx, job.ExpiryWorkflowID(lost), "")
	if err != nil {
		t.Fatal(err)
	}
	var owner string
	if p := d.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields()["VtsUserId"]; p == nil ||
		converter.GetDefaultDataConverter().FromPayload(p, &owner) != nil || owner != "stranded" {
		t.Fatalf("the re-armed expiry's VtsUserId: %q", owner)
	}
	waitFor(t, func() bool {
		j, _ := env.Store.GetJob(ctx, lost)
		return j.ExpiredAt != nil && env.Blobs(lost) == 0
	})
}

// Issue 18, items 2 and 6: the reconciler removes the files of a deleted job (a delete whose
// removal failed) and a page written late, after its job expired, by a worker that lost contact;
// it keeps a live job's. Before, it skipped every prefix with a record, deleted or not. One job
// the pass cannot handle (its record refuses the refund) is reported in the result's failures
// and the rest of the pass goes on; before, the error aborted the pass and every retry of it.
func TestReconcilerRemovesFilesNoJobKeeps(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	ctx := context.Background()
	env.SetPlan("files", "pro")
	finished := func() string {
		a := upload(t, env, "files", pages(2)...)
		waitFor(t, func() bool {
			j, _ := env.Store.GetJob(ctx, a.JobID)
			return j.ZipKey != "" && expiryRunning(t, env, a.JobID)
		})
		return a.JobID
	}
	live, deleted, expired := finished(), finished(), finished()
	// Marked deleted, but the removal of its files never happened.
	if _, err := env.Store.DeleteJob(ctx, deleted, "files"); err != nil {
		t.Fatal(err)
	}
	// Expired, then a page written late by a worker that had lost contact.
	if err := env.Temporal.TerminateWorkflow(ctx, job.ExpiryWorkflowID(expired), "", "expired"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.Pool().Exec(ctx, `UPDATE jobs SET expired_at = now() WHERE id = $1`, expired); err != nil {
		t.Fatal(err)
	}
	if err := env.Bucket.WriteAll(ctx, job.OutputKey(expired, "page2.png"), apitest.PNG(t, 4, 4, 2), nil); err != nil {
		t.Fatal(err)
	}
	// A reservation whose workflow never ran and whose record refuses its refund.
	broken := "00000000-0000-4000-9000-" + strings.Repeat("1", 12)
	if _, err := env.Store.ReserveJob(ctx, store.NewJob{ID: broken, UserID: "files",
		Spec: job.Spec{Mode: "standard", Resolution: "original", SourceLang: "auto", TargetLang: "es"}, Pages: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.Pool().Exec(ctx, `UPDATE jobs SET credits_reserved = 0 WHERE id = $1`, broken); err != nil {
		t.Fatal(err)
	}
	liveBlobs := env.Blobs(live)

	res := runReconcile(t, env)
	t.Logf("reconciled: %+v", res)
	if !slices.Contains(res.OrphanJobs, deleted) || !slices.Contains(res.OrphanJobs, expired) || slices.Contains(res.OrphanJobs, live) {
		t.Fatalf("files removed of %v; want those of the deleted and the expired job", res.OrphanJobs)
	}
	if env.Blobs(deleted) != 0 || env.Blobs(expired) != 0 || env.Blobs(live) != liveBlobs {
		t.Fatalf("blobs left: deleted %d, expired %d, live %d of %d", env.Blobs(deleted), env.Blobs(expired), env.Blobs(live), liveBlobs)
	}
	if len(res.Failures) != 1 || !strings.Contains(res.Failures[0], broken) {
		t.Fatalf("failures %q, want the broken job's", res.Failures)
	}
}
