package workflows

import "go.temporal.io/sdk/workflow"

// Every GetVersion change ID of the translation workflow, and the version each branch needs.
// A history without a change's marker replays its DefaultVersion branch, the behaviour before
// the change; new executions record the highest version and run the current code.
//
// Retiring an old branch: once no workflow started before the change can still be open
// (a translation job runs for at most reserveDeadline plus its pages, the ZIP's ZipAttempts and
// the cleanup; in practice a day) and the recorded histories in testdata that take that branch
// are deleted, the DefaultVersion branch and its recorded history may go, leaving the
// GetVersion call with its minimum raised to the current version (never removing the call
// itself while histories carrying the marker may replay). The recorded histories name the
// shape they cover: translate-job.json (before every change here), translate-job-local-reserve.json
// (reserveLocalChange and the rest before settleFirstChange), translate-job-settle-first.json
// (settleFirstChange).
const (
	// reserveLocalChange moved the reservation to a local activity.
	// DefaultVersion: a regular ReserveCredits activity. reserveLocal: a local activity.
	reserveLocalChange = "reserve-as-local-activity"
	reserveLocal       = workflow.Version(1)

	// waitPagesChange made a cancelled job wait for its running pages to end.
	// DefaultVersion: gave up on them at once. waitPages: waits.
	waitPagesChange = "wait-for-cancelled-pages"
	waitPages       = workflow.Version(1)

	// releaseUnavailableChange releases a reservation answered unavailable, which may have
	// committed all the same. DefaultVersion: did not look. releaseUnavailable: releases it.
	releaseUnavailableChange = "release-unavailable-reservation"
	releaseUnavailable       = workflow.Version(1)

	// settleFirstChange settles credits before the ZIP is built.
	// DefaultVersion: BuildZip, then FinishJob. settleFirst: FinishJob, then BuildZip and RecordZip.
	settleFirstChange = "settle-before-zip"
	settleFirst       = workflow.Version(1)

	// deleteAfterZipChange removes the files of a job deleted while its ZIP was built (commit
	// a1791e1 made the change without a marker). It is asked only when RecordZip reports the
	// delete, so jobs not deleted meanwhile record no marker. DefaultVersion: went on to schedule
	// the expiry, which removed the files later. deleteAfterZip: DeleteFiles, no expiry.
	// A job run between a1791e1 and this guard that took the delete branch carries no marker and
	// would not replay; only one still open at the deploy, between RecordZip and DeleteFiles
	// (seconds), or a query on its closed history, meets that.
	deleteAfterZipChange = "delete-after-zip"
	deleteAfterZip       = workflow.Version(1)
)

// searchAttributesChange upserts the job's search attributes (search.go) as it moves: VtsStatus
// processing, then completed or failed with VtsCreditsCharged at settlement, and starts the
// expiry with VtsUserId. DefaultVersion: no upsert, an expiry without attributes.
// Recorded history: translate-job-search-attributes.json.
const (
	searchAttributesChange = "search-attributes"
	searchAttributes       = workflow.Version(1)
)

// EditPage (edit.go) has no change IDs yet: it runs as it was first written. Its change IDs go
// here, beside the translation's, and its recorded history is edit-page-retranslate.json (an edit
// with a block translated again, settled), made by TestEditHistoryReplays in api with
// VTS_CAPTURE_HISTORY. An edit runs for minutes at most (editAttempts tries of ApplyEdit, then
// SettleEdit), so an old branch of it may go a day after the deploy that added its change.
