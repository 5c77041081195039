package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/search"
)

// StartSearchAttributes are what a job carries from its start (Update-With-Start): everything
// the upload says, and the status pending.
func StartSearchAttributes(up job.Upload) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(search.UserID.ValueSet(up.UserID), search.Status.ValueSet(string(job.Pending)),
		search.Pages.ValueSet(int64(len(up.Pages))), search.Mode.ValueSet(string(up.Mode)), search.SourceLang.ValueSet(up.SourceLang),
		search.TargetLang.ValueSet(up.TargetLang))
}

// setStatus records the job's status in VtsStatus, with any other updates in the same upsert.
// Jobs started before searchAttributesChange upsert nothing: their history has no such command.
// An upsert can only fail on an unregistered attribute, which the worker's start-up check rules
// out; the job goes on regardless, as what operators search by must never fail a job.
func (j *translateJob) setStatus(ctx workflow.Context, s job.Status, more ...temporal.SearchAttributeUpdate) {
	if !j.searchable {
		return
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, append([]temporal.SearchAttributeUpdate{search.Status.ValueSet(string(s))}, more...)...); err != nil {
		workflow.GetLogger(ctx).Warn("search attributes not updated", "job", j.in.JobID, "status", s, "err", err)
	}
}
