// Package workflows holds the durable side of a translation job. It does no I/O: every effect is
// an activity, a timer, a query, an update or a child workflow.
package workflows

import "time"

// Names shared by the worker and the job lifecycle. The workflows' IDs are internal/job's rule.
const (
	// TaskQueue is the default queue of the translation worker.
	TaskQueue = "vts-translate"
	// StateQuery returns the job's job.Report while it runs.
	StateQuery = "state"
	// ReserveUpdate reserves the job's credits; the upload sends it with Update-With-Start so that
	// the upload request itself answers 402 when credits are short.
	ReserveUpdate = "reserve"
	// reserveDeadline bounds how long a started job waits for its reservation.
	reserveDeadline = 5 * time.Minute
	// reserveCreditsActivity is the registered name of Activities.ReserveCredits, which runs as a
	// local activity (called by name, as local activities on a struct must be).
	reserveCreditsActivity = "ReserveCredits"
	// PageHeartbeatTimeout is how long a page's activity may go without a heartbeat before
	// Temporal gives it to another worker; TranslatePage heartbeats every few seconds.
	PageHeartbeatTimeout = 15 * time.Second
	// ReconcileScheduleID is the Temporal Schedule that runs Reconcile; its runs are
	// reconcile-<time>.
	ReconcileScheduleID = "vts-reconcile"
	// DefaultReconcileEvery is how often the schedule runs Reconcile by default.
	DefaultReconcileEvery = 10 * time.Minute
)
