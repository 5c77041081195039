package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/vtsproject/vts/activities"
)

// ExpireJobInput names the job and when its retention ends.
type ExpireJobInput struct {
	JobID     string
	ExpiresAt time.Time
}

// ExpireJob waits out the plan's retention on a durable timer, then deletes the job's files and
// marks it expired, so that download answers 410. It is a workflow of its own, not a timer in
// TranslateJob, so that a finished job shows as completed in the Temporal UI while its expiry
// shows, by its own ID, as the one thing still scheduled; deleting a job cancels it.
func ExpireJob(ctx workflow.Context, in ExpireJobInput) error {
	if wait := in.ExpiresAt.Sub(workflow.Now(ctx)); wait > 0 {
		if err := workflow.Sleep(ctx, wait); err != nil {
			return err // cancelled: the job was deleted, which removed its files already
		}
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: 10 * time.Minute},
	})
	return workflow.ExecuteActivity(ctx, a.DeleteFiles, activities.DeleteFilesInput{JobID: in.JobID, Expire: true}).Get(ctx, nil)
}
