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

	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/job"
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
	// OrphanJobs: job prefixes with blobs but no job record, deleted.
	OrphanJobs  []string
	OrphanBlobs int
	// Expired: jobs past their expiry with no expiry workflow running, whose expiry was re-armed.
	Expired []string
	// SettledEdits: page edits claimed whose workflow never ran, settled as failed (refunded).
	SettledEdits []string
}

// Reconcile is the safety net behind the job lifecycle: it settles reservations that nothing
// else will settle (the update-with-start reported unavailable after the reservation committed;
// an operator terminated the workflow), carries out deletes that Temporal missed, removes blobs
// that no job owns, and re-arms lost expiries. Every action is idempotent: settlement is keyed by
// the job, cancelling a cancelled workflow and deleting deleted blobs change nothing, and an
// expiry is started under its job's workflow ID.
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
	if err := a.reconcileJobs(ctx, in, now, res); err != nil {
		return nil, err
	}
	if err := a.reconcileExpiries(ctx, in, now, res); err != nil {
		return nil, err
	}
	if err := a.reconcileBlobs(ctx, in, now, res); err != nil {
		return nil, err
	}
	if err := a.reconcileEdits(ctx, in, now, res); err != nil {
		return nil, err
	}
	reconcileCounters.Add("runs", 1)
	reconcileCounters.Add("settled", int64(len(res.Settled)))
	reconcileCounters.Add("cancelled", int64(len(res.Cancelled)))
	reconcileCounters.Add("orphan_jobs", int64(len(res.OrphanJobs)))
	reconcileCounters.Add("orphan_blobs", int64(res.OrphanBlobs))
	reconcileCounters.Add("expiries_rearmed", int64(len(res.Expired)))
	log.Info("reconciled", "settled", len(res.Settled), "cancelled", len(res.Cancelled),
		"orphan_jobs", len(res.OrphanJobs), "orphan_blobs", res.OrphanBlobs, "expiries_rearmed", len(res.Expired), "edits_settled", len(res.SettledEdits))
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

func (a *Activities) reconcileJobs(ctx context.Context, in ReconcileInput, now time.Time, res *ReconcileResult) error {
	jobs, err := a.Store.UnsettledJobs(ctx, now.Add(-in.Grace))
	if err != nil {
		return err
	}
	for _, j := range jobs {
		activity.RecordHeartbeat(ctx, j.ID)
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
					return fmt.Errorf("cancelling deleted job %s: %w", j.ID, err)
				}
				log.Info("reconcile: deleted job cancelled")
				res.Cancelled = append(res.Cancelled, j.ID)
			}
			continue
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
	}
	return nil
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

func (a *Activities) reconcileExpiries(ctx context.Context, in ReconcileInput, now time.Time, res *ReconcileResult) error {
	jobs, err := a.Store.OverdueExpiries(ctx, now.Add(-in.Grace))
	if err != nil {
		return err
	}
	queue := activity.GetInfo(ctx).TaskQueue
	for _, j := range jobs {
		activity.RecordHeartbeat(ctx, j.ID)
		id := job.ExpiryWorkflowID(j.ID)
		gone, err := a.workflowGone(ctx, id)
		if err != nil {
			return err
		}
		if !gone {
			continue // running late, but running
		}
		_, err = a.Temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue,
			WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
			WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
			StaticSummary:            "expiry re-armed by the reconciler"},
			expireJobWorkflow, expireJobInput{JobID: j.ID, ExpiresAt: *j.ExpiresAt})
		if err != nil {
			return fmt.Errorf("re-arming expiry of job %s: %w", j.ID, err)
		}
		a.log(ctx, j.ID).Warn("reconcile: lost expiry re-armed", "expires_at", j.ExpiresAt)
		res.Expired = append(res.Expired, j.ID)
	}
	return nil
}

// reconcileBlobs deletes every job prefix whose job has no record and whose newest blob is older
// than the grace period: the pages of an upload the API crashed under.
func (a *Activities) reconcileBlobs(ctx context.Context, in ReconcileInput, now time.Time, res *ReconcileResult) error {
	it := a.Bucket.List(&blob.ListOptions{Prefix: jobsPrefix, Delimiter: "/"})
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("listing job prefixes: %w", err)
		}
		if !o.IsDir {
			continue
		}
		id := strings.TrimSuffix(strings.TrimPrefix(o.Key, jobsPrefix), "/")
		activity.RecordHeartbeat(ctx, id)
		owned, err := a.Store.JobExists(ctx, id)
		if err != nil {
			return err
		}
		if owned {
			continue
		}
		newest, err := newestBlob(ctx, a.Bucket, o.Key)
		if err != nil {
			return err
		}
		if newest.After(now.Add(-in.Grace)) {
			continue // an upload may still be streaming
		}
		n, err := blobstore.DeletePrefix(ctx, a.Bucket, o.Key)
		if err != nil {
			return err
		}
		if n > 0 {
			a.log(ctx, id).Warn("reconcile: orphan blobs deleted", "blobs", n)
			res.OrphanJobs = append(res.OrphanJobs, id)
			res.OrphanBlobs += n
		}
	}
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
