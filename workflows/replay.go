package workflows

import (
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/worker"
)

// Replay runs a recorded history of one of the package's workflows (TranslateJob, ExpireJob,
// Reconcile, EditPage) against this code. It fails when
// the code would make different decisions than the ones recorded, which is what would break
// jobs in flight during a deploy; tests call it on recorded histories.
func Replay(h *historypb.History) error {
	r := worker.NewWorkflowReplayer()
	r.RegisterWorkflow(TranslateJob)
	r.RegisterWorkflow(ExpireJob)
	r.RegisterWorkflow(Reconcile)
	r.RegisterWorkflow(EditPage)
	return r.ReplayWorkflowHistory(nil, h)
}
