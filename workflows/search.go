package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/vtsproject/vts/internal/job"
)

// The typed search attributes operators filter jobs by in the Temporal UI (and with
// `temporal workflow list --query`), e.g. VtsUserId='u-123' AND VtsStatus='failed'. A namespace
// must have them registered before a job starts with them: `vts temporal setup` registers them,
// `vts dev` starts its dev server with them, and the API and the worker refuse to start without.
var (
	// UserIDKey is the job's owner; the job's expiry workflow carries it too.
	UserIDKey = temporal.NewSearchAttributeKeyKeyword("VtsUserId")
	// StatusKey follows the job: pending, processing, then completed or failed.
	StatusKey = temporal.NewSearchAttributeKeyKeyword("VtsStatus")
	// PagesKey is the number of pages uploaded.
	PagesKey = temporal.NewSearchAttributeKeyInt64("VtsPages")
	// ModeKey is the translation mode (fast, standard, advanced).
	ModeKey = temporal.NewSearchAttributeKeyKeyword("VtsMode")
	// SourceLangKey and TargetLangKey are the languages asked for ("auto" as sent).
	SourceLangKey = temporal.NewSearchAttributeKeyKeyword("VtsSourceLang")
	TargetLangKey = temporal.NewSearchAttributeKeyKeyword("VtsTargetLang")
	// CreditsChargedKey is what settlement charged.
	CreditsChargedKey = temporal.NewSearchAttributeKeyInt64("VtsCreditsCharged")
)

// SearchAttributes lists every key above with its type: what registration creates and what the
// start-up check asks the namespace for.
var SearchAttributes = []temporal.SearchAttributeKey{UserIDKey, StatusKey, PagesKey, ModeKey, SourceLangKey,
	TargetLangKey, CreditsChargedKey}

// StartSearchAttributes are what a job carries from its start (Update-With-Start): everything
// the upload says, and the status pending.
func StartSearchAttributes(up job.Upload) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(UserIDKey.ValueSet(up.UserID), StatusKey.ValueSet(string(job.Pending)),
		PagesKey.ValueSet(int64(len(up.Pages))), ModeKey.ValueSet(up.Mode), SourceLangKey.ValueSet(up.SourceLang),
		TargetLangKey.ValueSet(up.TargetLang))
}

// setStatus records the job's status in VtsStatus, with any other updates in the same upsert.
// Jobs started before searchAttributesChange upsert nothing: their history has no such command.
// An upsert can only fail on an unregistered attribute, which the worker's start-up check rules
// out; the job goes on regardless, as what operators search by must never fail a job.
func (j *translateJob) setStatus(ctx workflow.Context, s job.Status, more ...temporal.SearchAttributeUpdate) {
	if !j.searchable {
		return
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, append([]temporal.SearchAttributeUpdate{StatusKey.ValueSet(string(s))}, more...)...); err != nil {
		workflow.GetLogger(ctx).Warn("search attributes not updated", "job", j.in.JobID, "status", s, "err", err)
	}
}
