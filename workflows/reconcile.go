package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/vtsproject/vts/activities"
)

// ReconcileInput tunes one pass of the reconciler.
type ReconcileInput struct {
	// Grace is how old what the reconciler acts on must be (DefaultReconcileGrace when zero).
	Grace time.Duration
}

// DefaultReconcileGrace leaves alone anything younger than this: an upload still streaming, a job
// being started.
const DefaultReconcileGrace = time.Hour

// Reconcile is one pass of the safety net, run by the Temporal Schedule ReconcileScheduleID: it
// settles reservations whose workflow is gone or closed, cancels deleted jobs that still run,
// re-arms lost expiries and deletes blobs that no job owns, and returns what it did (shown as
// the run's result in the Temporal UI). Every action is idempotent, so overlapping or repeated
// passes are harmless.
func Reconcile(ctx workflow.Context, in ReconcileInput) (*activities.ReconcileResult, error) {
	if in.Grace == 0 {
		in.Grace = DefaultReconcileGrace
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Minute,
		HeartbeatTimeout:    time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: time.Minute, MaximumAttempts: 3},
	})
	var res activities.ReconcileResult
	if err := workflow.ExecuteActivity(ctx, a.Reconcile, activities.ReconcileInput{Grace: in.Grace}).Get(ctx, &res); err != nil {
		return nil, err
	}
	workflow.GetLogger(ctx).Info("reconciled", "settled", len(res.Settled), "cancelled", len(res.Cancelled),
		"orphanJobs", len(res.OrphanJobs), "orphanBlobs", res.OrphanBlobs, "expiriesRearmed", len(res.Expired))
	return &res, nil
}
