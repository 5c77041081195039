// Package workflows holds the durable side of a translation job. It does no I/O: every effect is
// an activity, a timer, a query, an update or a child workflow.
package workflows

import (
	"net/url"
	"time"
)

// Names shared by the worker, the API and operators in the Temporal UI.
const (
	// TaskQueue is the default queue of the translation worker.
	TaskQueue = "vts-translate"
	// StateQuery returns the job's JobState, the spec's event payload.
	StateQuery = "state"
	// ReserveUpdate reserves the job's credits; the upload sends it with Update-With-Start so that
	// the upload request itself answers 402 when credits are short.
	ReserveUpdate = "reserve"
	// reserveDeadline bounds how long a started job waits for its reservation.
	reserveDeadline = 5 * time.Minute
	// reserveCreditsActivity is the registered name of Activities.ReserveCredits, which runs as a
	// local activity (called by name, as local activities on a struct must be).
	reserveCreditsActivity = "ReserveCredits"
	// reserveLocalChange is the GetVersion change ID of moving the reservation to a local activity.
	reserveLocalChange = "reserve-as-local-activity"
)

// JobWorkflowID is the ID of a job's TranslateJob workflow.
func JobWorkflowID(jobID string) string { return "translate-" + jobID }

// ExpiryWorkflowID is the ID of a job's ExpireJob workflow.
func ExpiryWorkflowID(jobID string) string { return "expire-" + jobID }

// OutputURL is the spec's result url for a translated page: a path under /api/outputs/.
func OutputURL(jobID, outputName string) string {
	return "/api/outputs/" + jobID + "/" + url.PathEscape(outputName)
}

// TranscriptURL is where a translated page's transcript is served, as JSON.
func TranscriptURL(jobID, outputName string) string {
	return "/api/outputs/" + jobID + "/transcripts/" + url.PathEscape(outputName+".json")
}

// CleanedURL is where a page with its lettering removed is served.
func CleanedURL(jobID, outputName string) string {
	return "/api/outputs/" + jobID + "/cleaned/" + url.PathEscape(outputName)
}
