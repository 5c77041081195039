package lifecycle

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"gocloud.dev/blob"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/plans"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/workflows"
)

// Edit is a proofreader's edit of one translated page, checked by the API.
type Edit struct {
	Job    *store.Job
	Page   job.PageResult
	UserID string
	// Transcript is the edited transcript, every block with its ID.
	Transcript  *engine.Transcript
	Retranslate []string
}

// Edit starts applying an edit and answers the revision it will make. The page's next revision
// is claimed, and a retranslation's credit reserved, in one transaction (store.BeginEdit, whose
// refusals it returns as they are); the edited transcript is kept under the job's prefix; then
// the EditPage workflow letters the page again and settles the edit. Anything failing after the
// claim settles the edit as failed, which gives the credit back; an API that dies in between
// leaves the edit to the reconciler, which settles edits whose workflow never started.
func (l *Lifecycle) Edit(ctx context.Context, e Edit) (int, error) {
	credits := 0
	if len(e.Retranslate) > 0 {
		credits = plans.RetranslateCost
	}
	name := e.Page.OutputName
	rev, err := l.store.BeginEdit(ctx, store.NewEdit{JobID: e.Job.ID, OutputName: name, UserID: e.UserID, Credits: credits})
	if err != nil {
		return 0, err
	}
	log := l.log.With("job", e.Job.ID, "file", name, "revision", rev)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	abandon := func(doing string, err error) (int, error) {
		log.Error("edit not started", "doing", doing, "err", err)
		if _, serr := l.store.SettleEdit(ctx, store.EditOutcome{JobID: e.Job.ID, OutputName: name, Revision: rev,
			Failure: "the edit could not be started; try again"}); serr != nil {
			log.Error("releasing the edit failed; the reconciler will", "err", serr)
		}
		return 0, fmt.Errorf("%s: %w", doing, err)
	}
	data, err := json.Marshal(e.Transcript)
	if err != nil {
		return abandon("encoding the edited transcript", err)
	}
	key := job.EditKey(e.Job.ID, name, rev)
	if err := l.bucket.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: "application/json"}); err != nil {
		return abandon("keeping the edited transcript", err)
	}
	in := workflows.EditPageInput{ApplyEditInput: activities.ApplyEditInput{JobID: e.Job.ID, OutputName: name, Revision: rev,
		InputKey: e.Page.InputKey, Mode: e.Job.Mode, CustomPrompt: e.Job.CustomPrompt, Retranslate: e.Retranslate}}
	_, err = l.temporal.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: job.EditWorkflowID(e.Job.ID, name, rev), TaskQueue: l.queue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		StaticSummary:            fmt.Sprintf("edit %d of %s, %d block(s) retranslated, user %s", rev, name, len(e.Retranslate), e.UserID),
	}, workflows.EditPage, in)
	if err != nil {
		_ = l.bucket.Delete(ctx, key)
		return abandon("starting the edit", err)
	}
	log.Info("edit started", "blocks", len(e.Transcript.Blocks), "retranslate", len(e.Retranslate), "credits", credits)
	return rev, nil
}
