package activities

import (
	"context"
	"errors"
	"expvar"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/search"
	"github.com/vtsproject/vts/internal/store"
)

// WorkflowControl is what the reconciler asks of Temporal; a client.Client is one.
type WorkflowControl interface {
	DescribeWorkflowExecution(ctx context.Context, workflowID, runID string) (*workflowservice.DescribeWorkflowExecutionResponse, error)
	CancelWorkflow(ctx context.Context, workflowID, runID string) error
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error)
}

// Counters of the reconciler's actions since the process started, published with expvar under
// vts_reconcile and scraped as vts_reconcile_actions_total{action} from /metrics.
var reconcileCounters = expvar.NewMap("vts_reconcile")

// ReconcileInput tunes one pass of the reconciler.
type ReconcileInput struct {
	// Grace is how old a job without a running workflow, a blob no job owns, or an overdue expiry
	// must be before the reconciler acts on it: an upload still streaming or a job still being
	// started is never touched.
	Grace time.Duration
}

// ReconcileResult is what one pass did; every count is of actions taken in that pass.
type ReconcileResult struct {
	// Settled: reservations whose workflow was gone or closed without settling, refunded in full.
	Settled []string
	// Cancelled: deleted jobs whose workflow still ran, cancelled (a delete made while Temporal
	// was down).
	Cancelled []string
	// Concluded: settled jobs whose workflow closed before they reached a terminal state (between
	// settlement and the archive), now completed or failed, with their expiry armed.
	Concluded []string
	// OrphanJobs: job prefixes whose files no job keeps (no record, or a deleted or expired
	// one), deleted.
	OrphanJobs  []string
	OrphanBlobs int
	// Expired: terminal jobs past their expiry with no expiry workflow running, whose expiry was
	// re-armed.
	Expired []string
	// Failures: what could not be done in this pass, one line each (the job and the error); the
	// rest of the pass went on, and the next pass tries again.
	Failures []string
	// SettledEdits: page edits claimed whose workflow never ran, settled as failed (refunded).
	SettledEdits []string
}

// failed records one thing the pass could not do and goes on.
func (r *ReconcileResult) failed(log *slog.Logger, what string, err error) {
	log.Error("reconcile: "+what, "err", err)
	r.Failures = append(r.Failures, what+": "+err.Error())
}

// Reconcile is the safety net behind the job lifecycle: it settles reservations that nothing
// else will settle (the update-with-start reported unavailable after the reservation committed;
// an operator terminated the workflow), concludes settled jobs whose workflow closed before
// recording their archive, carries out deletes that Temporal missed, removes files that no job
// keeps, and re-arms lost expiries. Every action is idempotent: settlement is keyed by the job,
// cancelling a cancelled workflow and deleting deleted blobs change nothing, and an expiry is
// started under its job's workflow ID. One failure does not stop the pass: it is logged and
// reported in Failures.
func (a *Activities) Reconcile(ctx context.Context, in ReconcileInput) (*ReconcileResult, error) {
	if a.Temporal == nil {
		return nil, errors.New("reconcile: the activities have no Temporal client")
	}
	log := a.Log
	if log == nil {
		log = slog.Default()
	}
	now := time.Now()
	res := &ReconcileResult{}
	a.reconcileJobs(ctx, in, now, res)
	a.reconcileStranded(ctx, in, now, res)
	a.reconcileExpiries(ctx, in, now, res)
	a.reconcileBlobs(ctx, in, now, res)
	a.reconcileEdits(ctx, in, now, res)
	reconcileCounters.Add("runs", 1)
	reconcileCounters.Add("settled", int64(len(res.Settled)))
	reconcileCounters.Add("cancelled", int64(len(res.Cancelled)))
	reconcileCounters.Add("concluded", int64(len(res.Concluded)))
	reconcileCounters.Add("orphan_jobs", int64(len(res.OrphanJobs)))
	reconcileCounters.Add("orphan_blobs", int64(res.OrphanBlobs))
	reconcileCounters.Add("expiries_rearmed", int64(len(res.Expired)))
	reconcileCounters.Add("failures", int64(len(res.Failures)))
	log.Info("reconciled", "settled", len(res.Settled), "cancelled", len(res.Cancelled), "concluded", len(res.Concluded),
		"orphan_jobs", len(res.OrphanJobs), "orphan_blobs", res.OrphanBlobs, "expiries_rearmed", len(res.Expired),
		"edits_settled", len(res.SettledEdits), "failures", len(res.Failures))
	return res, nil
}

// workflowGone reports whether the workflow is missing or closed (terminated, timed out, failed,
// or even completed without settling): then nothing but the reconciler will settle its job.
func (a *Activities) workflowGone(ctx context.Context, id string) (bool, error) {
	d, err := a.Temporal.DescribeWorkflowExecution(ctx, id, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("describing %s: %w", id, err)
	}
	return d.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, nil
}

// unsettledMessage is what the user reads on a job whose workflow ended without settling it.
const unsettledMessage = "the job stopped before it could finish; its credits were refunded"

func (a *Activities) reconcileJobs(ctx context.Context, in ReconcileInput, now time.Time, res *ReconcileResult) {
	jobs, err := a.Store.UnsettledJobs(ctx, now.Add(-in.Grace))
	if err != nil {
		res.failed(a.log(ctx, ""), "listing unsettled jobs", err)
		return
	}
	for _, j := range jobs {
		activity.RecordHeartbeat(ctx, j.ID)
		if err := a.reconcileJob(ctx, j, now, res); err != nil {
			res.failed(a.log(ctx, j.ID), "job "+j.ID, err)
		}
	}
}

func (a *Activities) reconcileJob(ctx context.Context, j *store.Job, now time.Time, res *ReconcileResult) error {
	log := a.log(ctx, j.ID)
	gone, err := a.workflowGone(ctx, job.WorkflowID(j.ID))
	if err != nil {
		return err
	}
	if !gone {
		if j.DeletedAt != nil {
			err := a.Temporal.CancelWorkflow(ctx, job.WorkflowID(j.ID), "")
			var nf *serviceerror.NotFound
			if err != nil && !errors.As(err, &nf) {
				return fmt.Errorf("cancelling deleted job: %w", err)
			}
			log.Info("reconcile: deleted job cancelled")
			res.Cancelled = append(res.Cancelled, j.ID)
		}
		return nil
	}
	// Which pages were translated is the workflow's knowledge, and it is gone: the user is
	// charged nothing.
	s, err := a.Store.FinishJob(ctx, job.Outcome{JobID: j.ID, Status: job.Failed, Progress: j.Progress,
		Results: []job.PageResult{}, Errors: []job.PageError{{Message: unsettledMessage}}, FinishedAt: now})
	if err != nil {
		return err
	}
	if _, err := blobstore.DeletePrefix(ctx, a.Bucket, job.Prefix(j.ID)); err != nil {
		return err
	}
	if !s.Already {
		log.Warn("reconcile: job settled whose workflow was gone", "refunded", s.Refunded, "lapsed", s.Lapsed)
		res.Settled = append(res.Settled, j.ID)
	}
	return nil
}

// reconcileStranded concludes the settled jobs whose workflow closed before they reached a
// terminal state (terminated, or failed, between settlement and RecordZip): completed with their
// archive when it was built, completed without it when their pages are there, failed when
// nothing is; then their expiry is armed (or their files removed, if deleted), so that every
// settled job ends and expires whatever happened to its workflow.
func (a *Activities) reconcileStranded(ctx context.Context, in ReconcileInput, now time.Time, res *ReconcileResult) {
	jobs, err := a.Store.StrandedJobs(ctx, now.Add(-in.Grace))
	if err != nil {
		res.failed(a.log(ctx, ""), "listing settled jobs left unfinished", err)
		return
	}
	for _, j := range jobs {
		activity.RecordHeartbeat(ctx, j.ID)
		if err := a.concludeJob(ctx, j, res); err != nil {
			res.failed(a.log(ctx, j.ID), "job "+j.ID, err)
		}
	}
}

// strandedMessage is what the user reads on a settled job concluded without any of its pages.
const strandedMessage = "the job stopped before its pages could be kept"

func (a *Activities) concludeJob(ctx context.Context, j *store.Job, res *ReconcileResult) error {
	gone, err := a.workflowGone(ctx, job.WorkflowID(j.ID))
	if err != nil || !gone {
		return err // still running: its archive is being built
	}
	status := job.Completed
	if attrs, err := a.Bucket.Attributes(ctx, job.ZipKey(j.ID)); err == nil {
		_, err = a.Store.RecordZip(ctx, j.ID, job.ZipKey(j.ID), attrs.Size, "")
		if err != nil {
			return err
		}
	} else if gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("looking for the archive: %w", err)
	} else if kept, err := a.anyPage(ctx, j); err != nil {
		return err
	} else if kept {
		if _, err := a.Store.RecordZip(ctx, j.ID, "", 0, ZipFailedMessage); err != nil {
			return err
		}
	} else {
		status = job.Failed
		if _, err := a.Store.FailSettledJob(ctx, j.ID, strandedMessage); err != nil {
			return err
		}
	}
	log := a.log(ctx, j.ID)
	if j.DeletedAt != nil {
		if _, err := blobstore.DeletePrefix(ctx, a.Bucket, job.Prefix(j.ID)); err != nil {
			return err
		}
	} else if err := a.armExpiry(ctx, j); err != nil {
		return err
	}
	log.Warn("reconcile: settled job concluded whose workflow was gone", "status", status)
	res.Concluded = append(res.Concluded, j.ID)
	return nil
}

// anyPage reports whether any translated page of the job is in storage.
func (a *Activities) anyPage(ctx context.Context, j *store.Job) (bool, error) {
	for _, r := range j.Results {
		ok, err := a.Bucket.Exists(ctx, job.OutputKey(j.ID, r.OutputName))
		if err != nil {
			return false, fmt.Errorf("looking for page %s: %w", r.OutputName, err)
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// jobsPrefix is where every job's blobs live, each under jobs/<jobId>/ (job.Prefix).
const jobsPrefix = "jobs/"

// expireJobWorkflow and expireJobInput are the expiry workflow's name and input, as registered
// by package workflows (which imports this one, so they cannot be named from here).
const expireJobWorkflow = "ExpireJob"

type expireJobInput struct {
	JobID     string
	ExpiresAt time.Time
}

func (a *Activities) reconcileExpiries(ctx context.Context, in ReconcileInput, now time.Time, res *ReconcileResult) {
	jobs, err := a.Store.OverdueExpiries(ctx, now.Add(-in.Grace))
	if err != nil {
		res.failed(a.log(ctx, ""), "listing overdue expiries", err)
		return
	}
	for _, j := range jobs {
		activity.RecordHeartbeat(ctx, j.ID)
		gone, err := a.workflowGone(ctx, job.ExpiryWorkflowID(j.ID))
		if err != nil {
			res.failed(a.log(ctx, j.ID), "job "+j.ID, err)
			continue
		}
		if !gone {
			continue // running late, but running
		}
		if err := a.armExpiry(ctx, j); err != nil {
			res.failed(a.log(ctx, j.ID), "job "+j.ID, err)
			continue
		}
		a.log(ctx, j.ID).Warn("reconcile: lost expiry re-armed", "expires_at", j.ExpiresAt)
		res.Expired = append(res.Expired, j.ID)
	}
}

// armExpiry starts the job's expiry workflow, unless one runs already; it deletes the job's files
// at once when the job's retention is over.
func (a *Activities) armExpiry(ctx context.Context, j *store.Job) error {
	if j.ExpiresAt == nil {
		return errors.New("arming the expiry: the job has no expiry time")
	}
	_, err := a.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: job.ExpiryWorkflowID(j.ID),
		TaskQueue:                activity.GetInfo(ctx).TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:            "expiry armed by the reconciler",
		TypedSearchAttributes:    search.Expiry(j.UserID)},
		expireJobWorkflow, expireJobInput{JobID: j.ID, ExpiresAt: *j.ExpiresAt})
	if err != nil {
		return fmt.Errorf("arming the expiry: %w", err)
	}
	return nil
}

// blobLookupBatch is how many job prefixes one query looks up.
const blobLookupBatch = 500

// reconcileBlobs deletes every job prefix that no job keeps (no record, or a deleted or expired
// one) and whose newest blob is older than the grace period: the pages of an upload the API
// crashed under, the files of a delete whose removal failed, a page written late by a worker
// that lost contact after its job was deleted or expired.
func (a *Activities) reconcileBlobs(ctx context.Context, in ReconcileInput, now time.Time, res *ReconcileResult) {
	it := a.Bucket.List(&blob.ListOptions{Prefix: jobsPrefix, Delimiter: "/"})
	var batch []string
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			res.failed(a.log(ctx, ""), "listing job prefixes", err)
			break
		}
		if !o.IsDir {
			continue
		}
		batch = append(batch, strings.TrimSuffix(strings.TrimPrefix(o.Key, jobsPrefix), "/"))
		if len(batch) == blobLookupBatch {
			a.reconcilePrefixes(ctx, in, now, batch, res)
			batch = batch[:0]
		}
	}
	a.reconcilePrefixes(ctx, in, now, batch, res)
}

func (a *Activities) reconcilePrefixes(ctx context.Context, in ReconcileInput, now time.Time, ids []string, res *ReconcileResult) {
	if len(ids) == 0 {
		return
	}
	activity.RecordHeartbeat(ctx, ids[0])
	kept, err := a.Store.KeptJobs(ctx, ids)
	if err != nil {
		res.failed(a.log(ctx, ""), "looking up job prefixes", err)
		return
	}
	for _, id := range ids {
		if kept[id] {
			continue
		}
		n, err := a.removeOrphan(ctx, in, now, id)
		if err != nil {
			res.failed(a.log(ctx, id), "files of "+id, err)
			continue
		}
		if n > 0 {
			a.log(ctx, id).Warn("reconcile: files no job keeps deleted", "blobs", n)
			res.OrphanJobs = append(res.OrphanJobs, id)
			res.OrphanBlobs += n
		}
	}
}

// removeOrphan deletes the files under a job prefix that no job keeps, unless one was written
// within the grace period (an upload may still be streaming).
func (a *Activities) removeOrphan(ctx context.Context, in ReconcileInput, now time.Time, id string) (int, error) {
	prefix := jobsPrefix + id + "/"
	newest, err := newestBlob(ctx, a.Bucket, prefix)
	if err != nil || newest.After(now.Add(-in.Grace)) {
		return 0, err
	}
	return blobstore.DeletePrefix(ctx, a.Bucket, prefix)
}

func newestBlob(ctx context.Context, b *blob.Bucket, prefix string) (time.Time, error) {
	var newest time.Time
	it := b.List(&blob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return newest, nil
		}
		if err != nil {
			return newest, fmt.Errorf("listing %s: %w", prefix, err)
		}
		if o.ModTime.After(newest) {
			newest = o.ModTime
		}
	}
}
