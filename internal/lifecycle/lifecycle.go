// Package lifecycle starts, follows and deletes translation jobs. It stands between the API, which
// speaks HTTP, and the workflows, which run jobs: starting a job takes its credits with
// Update-With-Start, so that the upload's own request learns the reservation's answer; following
// one reads its state through one shared poller per job; deleting one cancels what runs and
// removes its files. Refusals are *job.Refusal, unknown jobs job.ErrNotFound.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"gocloud.dev/blob"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/plans"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/workflows"
)

// LanguageChecker says whether an upload's languages and mode can be served (the engines).
type LanguageChecker interface {
	Supports(src, dst string, mode job.Mode) error
}

// Config is what the lifecycle works with.
type Config struct {
	Store     *store.Store
	Temporal  client.Client
	Bucket    *blob.Bucket
	Languages LanguageChecker
	// TaskQueue is the workers' queue; workflows.TaskQueue when empty.
	TaskQueue string
	// Parallelism bounds how many pages of one job are translated at once.
	Parallelism int
	Log         *slog.Logger
}

// Lifecycle starts, follows and deletes jobs.
type Lifecycle struct {
	store       *store.Store
	temporal    client.Client
	bucket      *blob.Bucket
	languages   LanguageChecker
	queue       string
	parallelism int
	log         *slog.Logger
	hub         *Hub
	queries     atomic.Int64
	// startTimeout bounds how long an upload waits for its reservation (reserveTimeout).
	startTimeout time.Duration
	// stop ends the background work (cancellations waiting for Temporal); pending tracks it.
	stop    context.CancelFunc
	stopped context.Context
	pending sync.WaitGroup
}

// New builds a lifecycle and starts its hub; Close stops it.
func New(cfg Config) *Lifecycle {
	l := &Lifecycle{store: cfg.Store, temporal: cfg.Temporal, bucket: cfg.Bucket, languages: cfg.Languages,
		queue: cfg.TaskQueue, parallelism: cfg.Parallelism, log: cfg.Log, startTimeout: reserveTimeout}
	if l.queue == "" {
		l.queue = workflows.TaskQueue
	}
	if l.log == nil {
		l.log = slog.Default()
	}
	l.hub = newHub(l.fetch, l.log)
	l.stopped, l.stop = context.WithCancel(context.Background())
	return l
}

// Close stops every poller and every cancellation still waiting for Temporal (the reconciler
// carries those out).
func (l *Lifecycle) Close() {
	l.hub.Close()
	l.stop()
	l.pending.Wait()
}

// SetStartTimeout replaces the bound on how long an upload waits for its reservation; tests
// shorten it to make a start fail. Call it before the first Start.
func (l *Lifecycle) SetStartTimeout(d time.Duration) { l.startTimeout = d }

// Hub is the shared poller, for tests and metrics.
func (l *Lifecycle) Hub() *Hub { return l.hub }

// Ping checks that Temporal answers; /readyz uses it.
func (l *Lifecycle) Ping(ctx context.Context) error {
	_, err := l.temporal.CheckHealth(ctx, &client.CheckHealthRequest{})
	return err
}

// Replay is Admit's answer to an upload whose Idempotency-Key already became a job: that job, to
// be answered again instead of starting, and paying for, a second one.
type Replay struct{ Job *store.Job }

func (e *Replay) Error() string { return "idempotent replay of job " + e.Job.ID }

// Admission is what Admit learnt of the uploading user: the plan whose limits apply to the upload,
// and the credits available now, which bound how many pages it can pay for.
type Admission struct {
	Plan      plans.Plan
	Available int64
}

// Admit lets userID begin uploading jobID. It records the user; claims the upload's
// Idempotency-Key, when key is set, so that a retry of an upload that became a job is answered
// with that job (*Replay) even while it runs; and refuses, before any page is stored, a user with
// no credit at all or at the plan's concurrent-job limit (the reservation remains the authority on
// both). It answers the user's plan, whose limits apply to the upload, and the credits available,
// which the intake uses to refuse an upload before it streams pages it cannot pay for. A refusal after the claim
// gives the key back.
func (l *Lifecycle) Admit(ctx context.Context, userID, key, jobID string) (Admission, error) {
	u, err := l.store.EnsureUser(ctx, userID)
	if err != nil {
		return Admission{}, err
	}
	plan := plans.MustLookup(u.Plan)
	adm := Admission{Plan: plan, Available: u.Available()}
	if key != "" {
		if err := l.claim(ctx, userID, key, jobID); err != nil {
			return adm, err
		}
	}
	refusal, err := l.precheck(ctx, u, plan)
	if err == nil && refusal != nil {
		err = refusal
	}
	if err != nil && key != "" {
		l.Release(userID, key, jobID)
	}
	return adm, err
}

// precheck refuses a user who could not start any job now.
func (l *Lifecycle) precheck(ctx context.Context, u *store.User, plan plans.Plan) (*job.Refusal, error) {
	if u.Available() <= 0 || u.DebtCredits > 0 {
		return job.NoCredit(), nil
	}
	active, err := l.store.ActiveJobs(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	if active >= plan.ConcurrentJobs {
		return job.AtJobLimit(30 * time.Second).Saying(
			fmt.Sprintf("the %s plan runs %d job(s) at once; try again when a job finishes", plan.Name, plan.ConcurrentJobs)), nil
	}
	return nil, nil
}

// claim claims key for this upload's jobID. An earlier upload with the key that became a job is
// replayed; one still streaming is refused, as two requests cannot both be the first.
func (l *Lifecycle) claim(ctx context.Context, userID, key, jobID string) error {
	holder, err := l.store.ClaimUploadKey(ctx, userID, key, jobID)
	if err != nil || holder == "" {
		return err
	}
	j, err := l.store.GetJob(ctx, holder)
	if errors.Is(err, store.ErrNotFound) {
		return job.KeyBusy()
	}
	if err != nil {
		return err
	}
	return &Replay{Job: j}
}

// Release frees the Idempotency-Key of an upload that did not become a job, so that the client
// can retry with it (after buying credits, say). It outlives the request on purpose.
func (l *Lifecycle) Release(userID, key, jobID string) {
	if key == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.store.ReleaseUploadKey(ctx, userID, key, jobID); err != nil {
		l.log.Error("releasing idempotency key failed", "job", jobID, "err", err)
	}
}

// Discard removes whatever an upload that did not become a job wrote; it outlives the request on
// purpose.
func (l *Lifecycle) Discard(jobID string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := l.removeFiles(ctx, jobID); err != nil {
		l.log.Error("removing refused upload failed", "job", jobID, "err", err)
	}
}

// removeFiles deletes every blob of the job: the one way a job's files go from this side.
func (l *Lifecycle) removeFiles(ctx context.Context, jobID string) (int, error) {
	return blobstore.DeletePrefix(ctx, l.bucket, job.Prefix(jobID))
}

// reserveTimeout bounds how long an upload waits for its reservation: with no worker running,
// the client gets a 503 rather than a hung request.
const reserveTimeout = 30 * time.Second

// ErrStartUnknown is Start's answer when the start failed and whether the job will run could not
// be settled either (the database did not answer): the upload's pages and Idempotency-Key must be
// kept, for a job may own them; the reconciler removes the pages if none does.
var ErrStartUnknown = errors.New("the job's start could not be confirmed")

// Start starts the job of an upload whose pages are stored, and answers the credits it reserved.
// Its languages are checked against the engines first, so that an unsupported pair costs nothing.
// Then one Update-With-Start starts the TranslateJob workflow and waits for its reserve update,
// which takes the credits: a refusal is a *job.Refusal, after which the caller discards the
// upload. A start that fails without an answer may have reserved, or may still reserve: the
// upload is then withdrawn (store.WithdrawJob). If the reservation came first, the job runs and
// Start answers it as started; else no reservation can follow, Start answers the failure, and the
// caller discards the upload. Only when even that cannot be settled is the answer
// ErrStartUnknown, and the caller keeps the upload.
func (l *Lifecycle) Start(ctx context.Context, up job.Upload) (int, error) {
	credits, err := l.start(ctx, up)
	var refused *job.Refusal
	if err == nil || errors.As(err, &refused) {
		return credits, err
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	j, werr := l.store.WithdrawJob(wctx, up.UserID, up.JobID)
	switch {
	case werr != nil:
		l.log.Error("a failed start could not be withdrawn; its upload is kept", "job", up.JobID, "err", err, "withdraw_err", werr)
		return 0, fmt.Errorf("%w: %w", ErrStartUnknown, err)
	case j != nil:
		l.log.Warn("the start answered an error after its reservation committed: the job runs", "job", up.JobID, "err", err)
		return j.CreditsReserved, nil
	}
	return 0, err
}

func (l *Lifecycle) start(ctx context.Context, up job.Upload) (int, error) {
	if err := l.languages.Supports(up.SourceLang, up.TargetLang, up.Mode); err != nil {
		var u *engine.UnsupportedError
		if errors.As(err, &u) {
			return 0, job.Unsupported(u.Reason, u.Supported)
		}
		return 0, job.Unsupported(err.Error(), nil)
	}
	ctx, cancel := context.WithTimeout(ctx, l.startTimeout)
	defer cancel()
	in := workflows.TranslateJobInput{Upload: up, Parallelism: l.parallelism}
	start := l.temporal.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID:                       job.WorkflowID(up.JobID),
		TaskQueue:                l.queue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL,
		// What an operator sees in the Temporal UI's list, without opening the workflow.
		StaticSummary: fmt.Sprintf("%d page(s) %s→%s, %s, %s, user %s", len(up.Pages), up.SourceLang, up.TargetLang,
			up.Mode, up.Resolution, up.UserID),
		Memo: map[string]any{"userId": up.UserID, "pages": len(up.Pages), "mode": up.Mode},
		// What an operator filters the list by (VtsUserId='u-123' AND VtsStatus='failed').
		TypedSearchAttributes: workflows.StartSearchAttributes(up),
	}, workflows.TranslateJob, in)
	handle, err := l.temporal.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{
			UpdateName:   workflows.ReserveUpdate,
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	if err != nil {
		return 0, fmt.Errorf("update-with-start: %w", err)
	}
	var res activities.ReserveResult
	if err := handle.Get(ctx, &res); err != nil {
		return 0, fmt.Errorf("reading reservation: %w", err)
	}
	if !res.Reserved {
		// The workflow removes the uploads of a refused job; the caller does too, in case it cannot.
		return 0, res.Refusal()
	}
	return res.CreditsNeeded, nil
}

// Job reads a job's record: job.ErrNotFound for an unknown job and for a deleted one alike.
func (l *Lifecycle) Job(ctx context.Context, jobID string) (*store.Job, error) {
	j, err := l.store.GetJob(ctx, jobID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && j.DeletedAt != nil) {
		return nil, job.ErrNotFound
	}
	return j, err
}

// State is a job's state, read through the job's shared poller (hub.Snapshot): however many
// requests ask, the workflow answers one query per poll interval. When its state cannot be read
// (Temporal is down, or the workflow keeps answering busy), the refusal is job.Unavailable.
func (l *Lifecycle) State(ctx context.Context, jobID string) (job.Report, error) {
	st, err := l.hub.Snapshot(ctx, jobID)
	var u *unavailableError
	if errors.As(err, &u) {
		return job.Report{}, job.StateUnavailable()
	}
	return st, err
}

// Queries counts the workflow state queries made so far; tests use it to prove that reads share
// the poller.
func (l *Lifecycle) Queries() int64 { return l.queries.Load() }

// unavailableError is a state read that failed in Temporal, which trying again later may cure.
type unavailableError struct{ err error }

func (e *unavailableError) Error() string { return "querying job state: " + e.err.Error() }
func (e *unavailableError) Unwrap() error { return e.err }

// Watch follows a job: the channel yields its state at once, then every change, and is closed
// after a terminal state or when the job is gone. Call the returned function to stop watching.
func (l *Lifecycle) Watch(jobID string) (<-chan Update, func()) { return l.hub.Subscribe(jobID) }

// fetch reads a job's state: from PostgreSQL once the job has ended (or been deleted), from the
// workflow's state query while it runs.
func (l *Lifecycle) fetch(ctx context.Context, jobID string) (job.Report, error) {
	rec, err := l.Job(ctx, jobID)
	if err != nil {
		return job.Report{}, err
	}
	if rec.Terminal() {
		return report(rec), nil
	}
	l.queries.Add(1)
	resp, err := l.temporal.QueryWorkflow(ctx, job.WorkflowID(jobID), "", workflows.StateQuery)
	if err != nil {
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			return report(rec), nil
		}
		return job.Report{}, &unavailableError{err}
	}
	var st job.Report
	if err := resp.Get(&st); err != nil {
		return job.Report{}, fmt.Errorf("decoding job state: %w", err)
	}
	// The workflow learns the status only after the database has recorded the outcome, so the
	// query never announces a completion that the download would not yet see.
	return st, nil
}

// report is the state a job's record holds.
func report(j *store.Job) job.Report {
	results := j.Results
	if results == nil {
		results = []job.PageResult{}
	}
	return job.Report{ID: j.ID, Status: j.Status, Progress: j.Progress, Total: j.Total, Results: results,
		Errors: j.Errors, Mode: j.Mode, CreditsNeeded: j.CreditsReserved}
}

// Delete deletes userID's job: job.ErrNotFound for an unknown or already deleted job, a Forbidden
// refusal for anyone else's. The record is marked deleted first: that is the durable record of
// the delete, and it frees the job's concurrent-job slot at once. A running job is cancelled: its
// workflow waits for its pages' activities to end, settles (charging the pages it translated,
// refunding the rest), sees the deletion and removes the files. When Temporal cannot be reached,
// the files are left to the workflow (removing them under it would make its pages fail for the
// wrong reason) and the cancellation is carried out when Temporal returns: retried here in the
// background, and by the reconciler, which cancels every deleted job still running. Otherwise,
// or when the workflow has closed, the expiry is cancelled and the files are removed here.
func (l *Lifecycle) Delete(ctx context.Context, jobID, userID string) error {
	j, err := l.store.DeleteJob(ctx, jobID, userID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return job.ErrNotFound
	case errors.Is(err, store.ErrForbidden):
		return job.NotYours().Saying("this project belongs to another user")
	case err != nil:
		return err
	}
	// The record's spelling, not the caller's: workflow IDs and the blob prefix are built from it.
	jobID = j.ID
	log := l.log.With("job", jobID)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if j.SettledAt == nil {
		// If the workflow has just closed, the cancel finds nothing and the files are ours to remove.
		// A short wait: with Temporal down, the client would retry until the deadline.
		cctx, ccancel := context.WithTimeout(ctx, cancelTimeout)
		err := l.temporal.CancelWorkflow(cctx, job.WorkflowID(jobID), "")
		ccancel()
		var nf *serviceerror.NotFound
		switch {
		case err == nil:
			log.Info("running job cancelled by delete")
			return nil
		case !errors.As(err, &nf):
			log.Warn("cancelling job failed; retrying until Temporal answers", "err", err)
			l.cancelLater(jobID)
			return nil
		}
	}
	if err := l.temporal.CancelWorkflow(ctx, job.ExpiryWorkflowID(jobID), ""); err != nil {
		var nf *serviceerror.NotFound
		if !errors.As(err, &nf) {
			log.Warn("cancelling expiry failed", "err", err)
		}
	}
	n, err := l.removeFiles(ctx, jobID)
	if err != nil {
		// The record is deleted; the reconciler finishes the cleanup.
		log.Error("deleting files failed", "err", err)
	}
	log.Info("project deleted", "blobs", n)
	return nil
}

// cancelLater cancels a deleted job's workflow once Temporal answers again, backing off up to
// cancelRetryMax between tries, until this lifecycle closes. It is the quick path; the reconciler
// is the durable one (it survives this process).
func (l *Lifecycle) cancelLater(jobID string) {
	l.pending.Add(1)
	go func() {
		defer l.pending.Done()
		log := l.log.With("job", jobID)
		wait := time.Second
		for {
			select {
			case <-l.stopped.Done():
				return
			case <-time.After(wait):
			}
			ctx, cancel := context.WithTimeout(l.stopped, 10*time.Second)
			err := CancelDeleted(ctx, l.temporal, jobID)
			cancel()
			if err == nil {
				log.Info("deleted job cancelled after Temporal returned")
				return
			}
			log.Debug("cancelling deleted job still fails", "err", err)
			wait = min(2*wait, cancelRetryMax)
		}
	}()
}

// cancelTimeout bounds how long a delete waits for Temporal to take its cancellation.
const cancelTimeout = 5 * time.Second

// cancelRetryMax bounds the wait between tries of a delayed cancellation.
const cancelRetryMax = 15 * time.Second

// CancelDeleted cancels the workflow of a deleted job. A workflow that is gone needs nothing.
func CancelDeleted(ctx context.Context, c client.Client, jobID string) error {
	err := c.CancelWorkflow(ctx, job.WorkflowID(jobID), "")
	var nf *serviceerror.NotFound
	if err != nil && !errors.As(err, &nf) {
		return fmt.Errorf("cancelling job %s: %w", jobID, err)
	}
	return nil
}

// ReconcileScheduleID is the ID of the Temporal Schedule that runs this lifecycle's reconciler:
// workflows.ReconcileScheduleID on the service's task queue, and one of its own for any other
// queue (`vts dev` derives one per instance), so that instances sharing a Temporal server each
// reconcile their own jobs on their own queue rather than the last one started taking them all.
func (l *Lifecycle) ReconcileScheduleID() string {
	if l.queue == "" || l.queue == workflows.TaskQueue {
		return workflows.ReconcileScheduleID
	}
	return workflows.ReconcileScheduleID + "-" + strings.TrimPrefix(l.queue, workflows.TaskQueue+"-")
}

// ScheduleReconcile makes sure the Temporal Schedule ReconcileScheduleID runs the Reconcile
// workflow every interval (workflows.DefaultReconcileEvery when zero) on the lifecycle's task
// queue, leaving alone anything younger than grace. It is idempotent: an existing schedule is
// updated to the interval and grace given. Operators see it, pause it or trigger it in the
// Temporal UI's Schedules page.
func (l *Lifecycle) ScheduleReconcile(ctx context.Context, every, grace time.Duration) error {
	if every <= 0 {
		every = workflows.DefaultReconcileEvery
	}
	id := l.ReconcileScheduleID()
	spec := client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: every}}}
	// The runs are named after the schedule (<id>-<time>), so that two instances' runs of the
	// same second do not collide.
	action := &client.ScheduleWorkflowAction{ID: strings.TrimPrefix(id, "vts-"), Workflow: workflows.Reconcile,
		Args: []any{workflows.ReconcileInput{Grace: grace}}, TaskQueue: l.queue}
	sc := l.temporal.ScheduleClient()
	_, err := sc.Create(ctx, client.ScheduleOptions{ID: id, Spec: spec, Action: action,
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP})
	if errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		err = sc.GetHandle(ctx, id).Update(ctx, client.ScheduleUpdateOptions{
			DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
				s := in.Description.Schedule
				s.Spec, s.Action = &spec, action
				return &client.ScheduleUpdate{Schedule: &s}, nil
			},
		})
	}
	if err != nil {
		return fmt.Errorf("scheduling the reconciler: %w", err)
	}
	l.log.Info("reconciler scheduled", "schedule", id, "every", every, "grace", grace)
	return nil
}
