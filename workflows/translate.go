package workflows

import (
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/search"
)

// TranslateJobInput is everything a job needs: its upload (image bytes never enter it, only blob
// keys) and how to run it.
type TranslateJobInput struct {
	job.Upload
	// Parallelism bounds how many pages of this job are translated at once. With 1, every page
	// is translated after its predecessor, so each gets the previous page's transcript as context.
	Parallelism int
}

// TranslateJob is the durable life of one upload: reserve, translate every page, build the ZIP,
// settle credits, schedule the expiry.
func TranslateJob(ctx workflow.Context, in TranslateJobInput) (*job.Report, error) {
	j := &translateJob{in: in, state: job.Report{ID: in.JobID, Status: job.Pending, Total: len(in.Pages),
		Mode: in.Mode, Results: []job.PageResult{}}}
	if err := j.setup(ctx); err != nil {
		return nil, err
	}
	return j.run(ctx)
}

type translateJob struct {
	in          TranslateJobInput
	state       job.Report
	reservation *activities.ReserveResult
	pages       []activities.TranslatePageResult // per page; OutputKey is "" until translated
	// searchable: the job upserts its search attributes (searchAttributesChange).
	searchable bool
}

var a *activities.Activities

func (j *translateJob) setup(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, StateQuery, func() (job.Report, error) { return j.state, nil }); err != nil {
		return fmt.Errorf("registering %s query: %w", StateQuery, err)
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, ReserveUpdate, j.reserve, workflow.UpdateHandlerOptions{
		Validator: func(ctx workflow.Context) error {
			if j.reservation != nil {
				return errors.New("already reserved")
			}
			return nil
		},
	})
}

// reserve runs the reservation and hands its outcome to the upload. It is a local activity: the
// upload waits on it, and a regular activity would queue behind page translations for the
// worker's activity slots, so a busy worker would make uploads time out. Jobs started before
// this change ran it as a regular activity; GetVersion keeps replaying those as they ran.
func (j *translateJob) reserve(ctx workflow.Context) (*activities.ReserveResult, error) {
	in := activities.ReserveInput{Job: j.in.Upload}
	retry := &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, MaximumAttempts: 5}
	var fut workflow.Future
	if workflow.GetVersion(ctx, reserveLocalChange, workflow.DefaultVersion, reserveLocal) == workflow.DefaultVersion {
		fut = workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: 30 * time.Second, RetryPolicy: retry,
		}), a.ReserveCredits, in)
	} else {
		fut = workflow.ExecuteLocalActivity(workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
			StartToCloseTimeout: 10 * time.Second, RetryPolicy: retry,
		}), reserveCreditsActivity, in)
	}
	var res activities.ReserveResult
	if err := fut.Get(ctx, &res); err != nil {
		res = *activities.Refused(job.NotReserved())
	}
	j.reservation = &res
	j.state.CreditsNeeded = res.CreditsNeeded
	return &res, nil
}

func (j *translateJob) run(ctx workflow.Context) (*job.Report, error) {
	log := workflow.GetLogger(ctx)
	j.searchable = workflow.GetVersion(ctx, searchAttributesChange, workflow.DefaultVersion, searchAttributes) >= searchAttributes
	ok, err := workflow.AwaitWithTimeout(ctx, reserveDeadline, func() bool { return j.reservation != nil })
	if err != nil || !ok || !j.reservation.Reserved {
		// Refused or never asked: nothing was taken, and the uploaded pages must not linger.
		log.Info("job not reserved; removing its uploads", "job", j.in.JobID)
		j.state.Status = job.Failed
		dctx, _ := workflow.NewDisconnectedContext(ctx)
		j.setStatus(dctx, job.Failed)
		// A reservation answered unavailable may have committed all the same (its transaction
		// ended, the answer was lost), and then nothing else would ever settle it. Jobs started
		// before this change did not look; GetVersion replays them as they ran.
		if j.reservation == nil || j.reservation.Code == job.Unavailable {
			if workflow.GetVersion(dctx, releaseUnavailableChange, workflow.DefaultVersion, releaseUnavailable) >= releaseUnavailable {
				if err := workflow.ExecuteActivity(withCleanupOptions(dctx), a.ReleaseReservation,
					activities.ReleaseReservationInput{JobID: j.in.JobID}).Get(dctx, nil); err != nil {
					log.Error("releasing an unconfirmed reservation failed; the reconciler will", "job", j.in.JobID, "err", err)
				}
			}
		}
		_ = workflow.ExecuteActivity(withCleanupOptions(dctx), a.DeleteFiles, activities.DeleteFilesInput{JobID: j.in.JobID}).Get(dctx, nil)
		return &j.state, nil
	}

	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: 30 * time.Second},
	})
	if err := workflow.ExecuteActivity(actx, a.MarkProcessing, activities.MarkProcessingInput{JobID: j.in.JobID}).Get(ctx, nil); err != nil {
		if !temporal.IsCanceledError(err) {
			return nil, err
		}
	}
	j.state.Status = job.Processing
	j.setStatus(ctx, job.Processing)
	done := j.translatePages(ctx)
	return j.finish(ctx, done)
}

// translatePages fans the pages out, at most Parallelism at a time, and reports how many were
// translated. A cancelled job (deleted while running) stops scheduling and returns early.
func (j *translateJob) translatePages(ctx workflow.Context) int {
	// A cancelled job waits for its pages' activities to end (WaitForCancellation), so that what
	// they write while stopping is there when the files are removed. Jobs started before this
	// change gave up on them at once; GetVersion replays those as they ran.
	wait := workflow.GetVersion(ctx, waitPagesChange, workflow.DefaultVersion, waitPages) >= waitPages
	pctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		// The page heartbeats every few seconds while its engine works, so a worker that dies
		// is noticed, and the page retried on another, within PageHeartbeatTimeout.
		HeartbeatTimeout:    PageHeartbeatTimeout,
		WaitForCancellation: wait,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:        2 * time.Second,
			BackoffCoefficient:     2,
			MaximumInterval:        time.Minute,
			MaximumAttempts:        5,
			NonRetryableErrorTypes: []string{activities.ErrTypePermanentPage},
		},
	})
	parallel := max(j.in.Parallelism, 1)
	sem := workflow.NewSemaphore(ctx, int64(parallel))
	wg := workflow.NewWaitGroup(ctx)
	j.pages = make([]activities.TranslatePageResult, len(j.in.Pages))
	failed := make([]*job.PageError, len(j.in.Pages))
	inFlight := map[int]bool{}
	translated := 0
	for i, p := range j.in.Pages {
		if err := sem.Acquire(ctx, 1); err != nil {
			break // cancelled
		}
		wg.Add(1)
		workflow.Go(ctx, func(gctx workflow.Context) {
			defer wg.Done()
			defer sem.Release(1)
			inFlight[i] = true
			j.state.CurrentFile = j.currentFile(inFlight)
			defer func() {
				delete(inFlight, i)
				j.state.CurrentFile = j.currentFile(inFlight)
			}()
			in := activities.TranslatePageInput{JobID: j.in.JobID, Page: p, Spec: j.in.Spec}
			if i > 0 {
				// Its transcript is the context when written by then: always with Parallelism 1,
				// by chance otherwise.
				in.PreviousOutputName = j.in.Pages[i-1].OutputName
			}
			var res activities.TranslatePageResult
			err := workflow.ExecuteActivity(pctx, a.TranslatePage, in).Get(gctx, &res)
			j.state.Progress++
			if err != nil {
				failed[i] = pageError(p.SourceFilename, err)
				return
			}
			j.pages[i] = res
			translated++
			// Results stay in upload order, whatever order pages finish in.
			j.state.Results = j.results()
		})
	}
	wg.Wait(ctx)
	for _, e := range failed {
		if e != nil {
			j.state.Errors = append(j.state.Errors, *e)
		}
	}
	return translated
}

// currentFile names the earliest page still being translated: with several pages in flight, the
// one a reader waits for next.
func (j *translateJob) currentFile(inFlight map[int]bool) string {
	for i := range j.in.Pages {
		if inFlight[i] {
			return j.in.Pages[i].SourceFilename
		}
	}
	return ""
}

func (j *translateJob) results() []job.PageResult {
	out := []job.PageResult{}
	for i, res := range j.pages {
		if res.OutputKey == "" {
			continue
		}
		p := j.in.Pages[i]
		out = append(out, job.PageResult{SourceFilename: p.SourceFilename, OutputName: p.OutputName, SourceLang: res.SourceLang,
			HasTranscript: res.TranscriptKey != "", HasCleaned: res.CleanedKey != "", InputKey: p.InputKey})
	}
	return out
}

// zipEntries lists the archive: the translated pages in upload order under their output names,
// then transcripts/<name>.json for each page that has one, then cleaned/<name>.
func (j *translateJob) zipEntries() []activities.ZipEntry {
	var pages, transcripts, cleaned []activities.ZipEntry
	for i, res := range j.pages {
		if res.OutputKey == "" {
			continue
		}
		name := j.in.Pages[i].OutputName
		pages = append(pages, activities.ZipEntry{Name: name, Key: res.OutputKey})
		if res.TranscriptKey != "" {
			transcripts = append(transcripts, activities.ZipEntry{Name: "transcripts/" + name + ".json", Key: res.TranscriptKey})
		}
		if res.CleanedKey != "" {
			cleaned = append(cleaned, activities.ZipEntry{Name: "cleaned/" + name, Key: res.CleanedKey})
		}
	}
	return append(append(pages, transcripts...), cleaned...)
}

// finish settles the credits, builds the archive, cleans up and schedules the expiry, all on a
// disconnected context, so that a job deleted mid-flight still charges exactly the pages it
// translated and refunds the rest. Settlement comes first and owes nothing to the archive: the
// ZIP is built afterwards, with heartbeats and a bounded number of attempts, and its failure is
// recorded on the job (which stays completed, its pages downloadable one by one) rather than
// holding credits. Jobs started before settleFirstChange built the ZIP first.
func (j *translateJob) finish(ctx workflow.Context, translated int) (*job.Report, error) {
	cancelled := ctx.Err() != nil
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	first := workflow.GetVersion(dctx, settleFirstChange, workflow.DefaultVersion, settleFirst) >= settleFirst
	status := job.Completed
	if translated == 0 || cancelled {
		status = job.Failed
	}
	var zip activities.BuildZipResult
	if status == job.Completed && !first {
		if err := workflow.ExecuteActivity(settleOptions(dctx), a.BuildZip, activities.BuildZipInput{JobID: j.in.JobID, Entries: j.zipEntries()}).Get(dctx, &zip); err != nil {
			return nil, fmt.Errorf("building zip: %w", err)
		}
	}
	if cancelled && len(j.state.Errors) == 0 && translated < len(j.in.Pages) {
		j.state.Errors = append(j.state.Errors, job.PageFailed("", job.Deleted, ""))
	}
	settled, err := j.settle(dctx, status, translated, zip, first && status == job.Completed)
	if err != nil {
		return nil, err
	}
	j.setStatus(dctx, status, search.CreditsCharged.ValueSet(int64(settled.Charged)))
	j.state.CurrentFile = ""
	if settled.Deleted || cancelled {
		return j.cleanUp(dctx, status)
	}
	if status == job.Completed && first && j.archive(dctx) &&
		workflow.GetVersion(dctx, deleteAfterZipChange, workflow.DefaultVersion, deleteAfterZip) >= deleteAfterZip {
		// Deleted while the archive was built: the archive goes with the rest.
		return j.cleanUp(dctx, status)
	}
	if err := j.scheduleExpiry(dctx, settled.ExpiresAt); err != nil {
		return nil, err
	}
	j.state.Status = status
	return &j.state, nil
}

func settleOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		HeartbeatTimeout:    time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: time.Minute},
	})
}

// settle charges the translated pages and refunds the rest, exactly once (FinishJob is
// idempotent per job), and records the job's outcome.
func (j *translateJob) settle(ctx workflow.Context, status job.Status, translated int, zip activities.BuildZipResult, zipPending bool) (activities.FinishJobResult, error) {
	var settled activities.FinishJobResult
	err := workflow.ExecuteActivity(settleOptions(ctx), a.FinishJob, activities.FinishJobInput{Finish: job.Outcome{
		JobID: j.in.JobID, Status: status, PagesDone: translated, Progress: j.state.Progress, Results: j.state.Results,
		Errors: j.state.Errors, ZipKey: zip.Key, ZipSize: zip.Size, FinishedAt: workflow.Now(ctx),
		ZipPending: zipPending,
	}}).Get(ctx, &settled)
	if err != nil {
		return settled, fmt.Errorf("settling job: %w", err)
	}
	workflow.GetLogger(ctx).Info("job settled", "job", j.in.JobID, "status", status, "translated", translated,
		"charged", settled.Charged, "refunded", settled.Refunded)
	return settled, nil
}

// cleanUp removes a deleted job's files; no expiry is scheduled for it.
func (j *translateJob) cleanUp(ctx workflow.Context, status job.Status) (*job.Report, error) {
	err := workflow.ExecuteActivity(withCleanupOptions(ctx), a.DeleteFiles, activities.DeleteFilesInput{JobID: j.in.JobID}).Get(ctx, nil)
	j.state.Status = status
	return &j.state, err
}

// scheduleExpiry starts the expiry, which outlives this workflow: a child that the parent's
// completion abandons, started before we return so that it cannot be lost.
func (j *translateJob) scheduleExpiry(ctx workflow.Context, at time.Time) error {
	opts := workflow.ChildWorkflowOptions{
		WorkflowID:        job.ExpiryWorkflowID(j.in.JobID),
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_ABANDON,
	}
	if j.searchable {
		opts.TypedSearchAttributes = search.Expiry(j.in.UserID)
	}
	cctx := workflow.WithChildOptions(ctx, opts)
	child := workflow.ExecuteChildWorkflow(cctx, ExpireJob, ExpireJobInput{JobID: j.in.JobID, ExpiresAt: at})
	if err := child.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		return fmt.Errorf("scheduling expiry: %w", err)
	}
	return nil
}

// ZipAttempts bounds the attempts at building a job's ZIP; ZipTimeout bounds each one. A page
// count of 200 at the Pro plan's 50 MB is 10 GB to stream, which a heartbeating attempt of an
// hour covers; a worker that dies mid-build is noticed within the heartbeat timeout.
const (
	ZipAttempts         = 5
	ZipTimeout          = time.Hour
	zipHeartbeatTimeout = 30 * time.Second
)

// archive builds the settled job's archive and records it, or records why it could not be
// built: after ZipAttempts, or at once when a file it lists is gone. The job is settled already;
// nothing here touches credits. It reports whether the job was deleted meanwhile.
func (j *translateJob) archive(ctx workflow.Context) (deleted bool) {
	log := workflow.GetLogger(ctx)
	zctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: ZipTimeout,
		HeartbeatTimeout:    zipHeartbeatTimeout,
		RetryPolicy: &temporal.RetryPolicy{MaximumInterval: time.Minute, MaximumAttempts: ZipAttempts,
			NonRetryableErrorTypes: []string{activities.ErrTypeZipSourceMissing}},
	})
	rec := activities.RecordZipInput{JobID: j.in.JobID}
	var zip activities.BuildZipResult
	if err := workflow.ExecuteActivity(zctx, a.BuildZip, activities.BuildZipInput{JobID: j.in.JobID, Entries: j.zipEntries()}).Get(ctx, &zip); err != nil {
		log.Error("zip not built", "job", j.in.JobID, "err", err)
		rec.Failure = activities.ZipFailedMessage
	} else {
		rec.Key, rec.Size = zip.Key, zip.Size
	}
	var recorded activities.RecordZipResult
	if err := workflow.ExecuteActivity(withCleanupOptions(ctx), a.RecordZip, rec).Get(ctx, &recorded); err != nil {
		log.Error("recording zip failed", "job", j.in.JobID, "err", err)
	}
	return recorded.Deleted
}

func withCleanupOptions(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumInterval: time.Minute},
	})
}

// pageError is what a user reads about a page that could not be translated, by its cause.
func pageError(source string, err error) *job.PageError {
	var app *temporal.ApplicationError
	var e job.PageError
	switch {
	case errors.As(err, &app) && app.Type() == activities.ErrTypePermanentPage:
		e = job.PageFailed(source, job.Refused, app.Message())
	case temporal.IsCanceledError(err):
		e = job.PageFailed(source, job.Deleted, "")
	default:
		e = job.PageFailed(source, job.Exhausted, "")
	}
	return &e
}
