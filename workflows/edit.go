package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/vtsproject/vts/activities"
)

// EditPageInput is one edit of a translated page, whose revision the API claimed (and whose
// credit it reserved) before starting the workflow.
type EditPageInput struct {
	activities.ApplyEditInput
}

// EditPageResult is how the edit ended.
type EditPageResult struct {
	Applied bool
	Failure string
}

// editAttempts bounds the tries of an edit: a translator that does not answer within them fails
// the edit (refunded) rather than keep the page locked.
const editAttempts = 3

// EditPage letters a page again from its edited transcript, then settles the edit: the page's new
// revision and the credit captured, or the failure recorded and the credit refunded. It runs no
// OCR, and translates only the blocks the edit names. Its ID is job.EditWorkflowID.
func EditPage(ctx workflow.Context, in EditPageInput) (*EditPageResult, error) {
	e := &editPage{in: in}
	return e.run(ctx)
}

type editPage struct {
	in EditPageInput
}

func (e *editPage) run(ctx workflow.Context) (*EditPageResult, error) {
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: editAttempts,
			NonRetryableErrorTypes: []string{activities.ErrTypePermanentPage}},
	})
	res := &EditPageResult{Applied: true}
	if err := workflow.ExecuteActivity(actx, a.ApplyEdit, e.in.ApplyEditInput).Get(ctx, nil); err != nil {
		res.Applied, res.Failure = false, editFailure(err, len(e.in.Retranslate) > 0)
	}
	// Settled whatever happened, cancellation included: a reserved credit never stays reserved.
	sctx, cancel := workflow.NewDisconnectedContext(ctx)
	defer cancel()
	err := workflow.ExecuteActivity(settleOptions(sctx), a.SettleEdit, activities.SettleEditInput{JobID: e.in.JobID,
		OutputName: e.in.OutputName, Revision: e.in.Revision, Failure: res.Failure}).Get(sctx, nil)
	return res, err
}

// editFailure is what the user reads about an edit that could not be applied.
func editFailure(err error, charged bool) string {
	msg := "the page could not be lettered again"
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == activities.ErrTypePermanentPage {
		msg += ": " + app.Message()
	} else if charged {
		msg = "the blocks could not be translated again after several attempts"
	}
	if charged {
		msg += "; the credit was refunded"
	}
	return msg
}
