// Package activities holds the Temporal activities of a translation job: every piece of I/O the
// workflows need, each taking one input struct and returning one result struct.
package activities

import (
	"archive/zip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"gocloud.dev/blob"

	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/lang"
	"github.com/vtsproject/vts/internal/store"
)

// Error types the workflows' retry policies and handlers know by name.
const (
	ErrTypePermanentPage = "PermanentPageError"
	ErrTypeRejected      = "ReservationRejected"
	// ErrTypeZipSourceMissing: a file the archive lists is gone (the job was deleted); building
	// it again cannot succeed.
	ErrTypeZipSourceMissing = "ZipSourceMissing"
)

// HeartbeatInterval is how often a page's activity heartbeats while its engine works, from a
// goroutine of its own, however long the engine's call takes: well inside the workflow's
// heartbeat timeout (15 s), so that only a dead worker misses it.
const HeartbeatInterval = 3 * time.Second

// EngineSource finds the engine for a mode.
type EngineSource interface {
	For(mode job.Mode) (engine.Engine, error)
}

// Activities holds the dependencies of every activity.
type Activities struct {
	Store   *store.Store
	Bucket  *blob.Bucket
	Engines EngineSource
	Log     *slog.Logger
	// Temporal is the reconciler's view of the workflows; only Reconcile needs it.
	Temporal WorkflowControl
}

func (a *Activities) log(ctx context.Context, jobID string) *slog.Logger {
	l := a.Log
	if l == nil {
		l = slog.Default()
	}
	info := activity.GetInfo(ctx)
	l = l.With("job", jobID, "activity", info.ActivityType.Name, "attempt", info.Attempt)
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		l = l.With("trace", sc.TraceID().String())
	}
	return l
}

// ReserveInput asks to create the job and take its credits.
type ReserveInput struct {
	Job job.Upload
}

// ReserveResult is the reservation's outcome. A refusal is a result, not an error, so that the
// upload can answer it with the right message.
type ReserveResult struct {
	Reserved          bool
	Code              job.Reason // why not: InsufficientCredits, TooManyJobs, Forbidden or Unavailable
	Message           string
	CreditsNeeded     int
	CreditsAvailable  int64
	RetryAfterSeconds int
}

// Refused is the reservation's answer refusing the job with r.
func Refused(r *job.Refusal) *ReserveResult {
	return &ReserveResult{Code: r.Reason, Message: r.Message, CreditsNeeded: r.CreditsNeeded,
		CreditsAvailable: r.CreditsAvailable, RetryAfterSeconds: int(r.RetryAfter / time.Second)}
}

// Refusal is the refusal the answer stands for; nil when the credits were reserved.
func (r *ReserveResult) Refusal() *job.Refusal {
	if r.Reserved {
		return nil
	}
	return &job.Refusal{Reason: r.Code, Message: r.Message, CreditsNeeded: r.CreditsNeeded,
		CreditsAvailable: r.CreditsAvailable, RetryAfter: time.Duration(r.RetryAfterSeconds) * time.Second}
}

// ReserveCredits creates the job and reserves its credits, once per job ID.
func (a *Activities) ReserveCredits(ctx context.Context, in ReserveInput) (*ReserveResult, error) {
	res, err := a.Store.ReserveJob(ctx, store.NewJob{ID: in.Job.JobID, UserID: in.Job.UserID, Spec: in.Job.Spec,
		Pages: len(in.Job.Pages)})
	switch {
	case errors.Is(err, store.ErrInsufficientCredits):
		return Refused(job.ShortOfCredits(res.Needed, res.Available)), nil
	case errors.Is(err, store.ErrConcurrencyLimit):
		r := Refused(job.AtJobLimit(res.RetryIn))
		r.CreditsNeeded = res.Needed
		return r, nil
	case errors.Is(err, store.ErrForbidden):
		return Refused(job.NotYours()), nil
	case errors.Is(err, store.ErrWithdrawn):
		return Refused(job.Withdrawn()), nil
	case err != nil:
		return nil, err
	}
	a.log(ctx, in.Job.JobID).Info("credits reserved", "credits", res.Job.CreditsReserved, "pages", len(in.Job.Pages))
	return &ReserveResult{Reserved: true, CreditsNeeded: res.Job.CreditsReserved}, nil
}

// MarkProcessingInput names the job that started translating.
type MarkProcessingInput struct{ JobID string }

// MarkProcessingResult is empty; it exists so the signature can grow.
type MarkProcessingResult struct{}

// MarkProcessing records that translation began.
func (a *Activities) MarkProcessing(ctx context.Context, in MarkProcessingInput) (*MarkProcessingResult, error) {
	return &MarkProcessingResult{}, a.Store.MarkProcessing(ctx, in.JobID)
}

// TranslatePageInput is one page of a job, under the job's spec; the image travels as a blob key.
type TranslatePageInput struct {
	JobID string
	job.Page
	job.Spec
	// PreviousOutputName names the job's previous page, "" for the first: its transcript, when
	// already written, is the engine's context for this page.
	PreviousOutputName string
}

// TranslatePageResult says where the translated page and its companions were written.
type TranslatePageResult struct {
	OutputKey string
	Bytes     int
	Blocks    int
	// TranscriptKey and CleanedKey are "" when the engine produced no transcript or cleaned page.
	TranscriptKey string
	CleanedKey    string
	// SourceLang is the page's language: as the engine detected it, else as the upload named it
	// ("" when the upload said auto and the engine did not say).
	SourceLang string
}

// TranslatePage reads the source page, has the mode's engine translate it and writes the result.
// It heartbeats while the engine works, so a worker that dies is noticed within the heartbeat
// timeout rather than the much longer start-to-close timeout.
func (a *Activities) TranslatePage(ctx context.Context, in TranslatePageInput) (*TranslatePageResult, error) {
	log := a.log(ctx, in.JobID).With("file", in.SourceFilename)
	eng, err := a.Engines.For(in.Mode)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("no engine for this mode", ErrTypePermanentPage, err)
	}
	src, err := a.Bucket.ReadAll(ctx, in.InputKey)
	if err != nil {
		if blobstore.IsNotFound(err) {
			return nil, temporal.NewNonRetryableApplicationError("the uploaded page is gone", ErrTypePermanentPage, err)
		}
		return nil, fmt.Errorf("reading %s: %w", in.InputKey, err)
	}
	hbCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		t := time.NewTicker(HeartbeatInterval)
		defer t.Stop()
		for {
			select {
			case <-hbCtx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx, "translating")
			}
		}
	}()
	started := time.Now()
	out, err := eng.Translate(ctx, engine.Request{
		Image: src, Format: in.Format, Filename: in.SourceFilename, SourceLang: in.SourceLang,
		TargetLang: in.TargetLang, Mode: in.Mode, Resolution: in.Resolution, CustomPrompt: in.CustomPrompt,
		Glossary: in.Glossary, Lettering: in.Lettering, Previous: a.previousTranscript(ctx, log, in),
		Progress: func(stage string) { activity.RecordHeartbeat(ctx, stage) },
	})
	if err != nil {
		return nil, engineError(log, err, "translating "+in.SourceFilename)
	}
	res := &TranslatePageResult{Bytes: len(out.Image), Blocks: out.Blocks}
	if in.SourceLang != lang.Auto {
		res.SourceLang = in.SourceLang
	}
	// The companions first: a page whose output exists has had its transcript written too.
	if out.Transcript != nil {
		t := *out.Transcript
		t.Page = in.OutputName
		// Every block is named, so that an edit can say which block it changes.
		t.Blocks = engine.NameBlocks(t.Blocks)
		if t.SourceLang != "" {
			res.SourceLang = t.SourceLang
		}
		data, err := json.MarshalIndent(t, "", "  ")
		if err != nil {
			// An engine's bug (a NaN confidence); the page itself is good, so it is kept.
			log.Error("transcript not kept: it does not encode as JSON", "err", err)
		} else {
			key := job.TranscriptKey(in.JobID, in.OutputName)
			if err := a.Bucket.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: transcriptType}); err != nil {
				return nil, fmt.Errorf("writing %s: %w", key, err)
			}
			res.TranscriptKey = key
		}
	}
	if out.Cleaned != nil {
		key := job.CleanedKey(in.JobID, in.OutputName)
		if err := a.Bucket.WriteAll(ctx, key, out.Cleaned, &blob.WriterOptions{ContentType: imageio.ContentType(out.Format)}); err != nil {
			return nil, fmt.Errorf("writing %s: %w", key, err)
		}
		res.CleanedKey = key
	}
	res.OutputKey = job.OutputKey(in.JobID, in.OutputName)
	if err := a.Bucket.WriteAll(ctx, res.OutputKey, out.Image, &blob.WriterOptions{ContentType: imageio.ContentType(out.Format)}); err != nil {
		return nil, fmt.Errorf("writing %s: %w", res.OutputKey, err)
	}
	log.Info("page translated", "blocks", out.Blocks, "bytes", len(out.Image), "lang", res.SourceLang,
		"transcript", res.TranscriptKey != "", "cleaned", res.CleanedKey != "", "took", time.Since(started).Round(time.Millisecond))
	return res, nil
}

// engineError is an engine's failure as the workflows' retry policies know it: a permanent one
// is not retried and its message is the user's; a rate limit waits as long as it asks.
func engineError(log *slog.Logger, err error, doing string) error {
	var perm *engine.PermanentError
	var later *engine.RetryAfterError
	switch {
	case errors.As(err, &perm):
		log.Warn("page failed", "err", err)
		return temporal.NewNonRetryableApplicationError(perm.Message, ErrTypePermanentPage, err)
	case errors.As(err, &later):
		return temporal.NewApplicationErrorWithOptions("the engine asked to wait", "RetryAfter",
			temporal.ApplicationErrorOptions{NextRetryDelay: later.After, Cause: err})
	}
	return fmt.Errorf("%s: %w", doing, err)
}

// transcriptType is the content type of transcript blobs; BuildZip compresses what has it.
const transcriptType = "application/json"

// previousTranscript reads the transcript of the job's previous page, for context. Pages run in
// parallel, so it may not be written yet; that, or any trouble reading it, means no context
// rather than a failed page.
func (a *Activities) previousTranscript(ctx context.Context, log *slog.Logger, in TranslatePageInput) *engine.Transcript {
	if in.PreviousOutputName == "" {
		return nil
	}
	key := job.TranscriptKey(in.JobID, in.PreviousOutputName)
	data, err := a.Bucket.ReadAll(ctx, key)
	if err != nil {
		if !blobstore.IsNotFound(err) {
			log.Warn("previous page's transcript unreadable; translating without it", "key", key, "err", err)
		}
		return nil
	}
	var t engine.Transcript
	if err := json.Unmarshal(data, &t); err != nil {
		log.Warn("previous page's transcript undecodable; translating without it", "key", key, "err", err)
		return nil
	}
	return &t
}

// ZipEntry is one file to put into the archive: a translated page, a transcript or a cleaned page.
type ZipEntry struct {
	Name string // the path inside the archive
	Key  string
}

// BuildZipInput lists the archive's entries in order: the pages in upload order, then
// transcripts/<page>.json, then cleaned/<page>.
type BuildZipInput struct {
	JobID   string
	Entries []ZipEntry
}

// BuildZipResult says where the archive is.
type BuildZipResult struct {
	Key  string
	Size int64
}

// BuildZip streams the job's files into one archive blob. Images are already compressed, so they
// are stored, not deflated: it is faster and the archive is no larger. Transcripts are deflated.
func (a *Activities) BuildZip(ctx context.Context, in BuildZipInput) (*BuildZipResult, error) {
	key := job.ZipKey(in.JobID)
	// gocloud commits a write on Close, whatever was written: only a writer whose context was
	// cancelled before Close discards it. A failed attempt cancels, so that no truncated archive
	// is left under the job's key (a retry would replace it, but a job that gives up on its ZIP
	// would keep a broken file no record points to).
	wctx, abort := context.WithCancel(ctx)
	defer abort()
	w, err := a.Bucket.NewWriter(wctx, key, &blob.WriterOptions{ContentType: "application/zip"})
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", key, err)
	}
	fail := func(err error) (*BuildZipResult, error) {
		abort()
		_ = w.Close()
		return nil, err
	}
	cw := &countingWriter{w: w}
	zw := zip.NewWriter(cw)
	for _, e := range in.Entries {
		if err := copyEntry(ctx, a.Bucket, zw, e); err != nil {
			return fail(err)
		}
		activity.RecordHeartbeat(ctx, e.Name)
	}
	if err := zw.Close(); err != nil {
		return fail(fmt.Errorf("finishing zip: %w", err))
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("writing %s: %w", key, err)
	}
	return &BuildZipResult{Key: key, Size: cw.n}, nil
}

func copyEntry(ctx context.Context, b *blob.Bucket, zw *zip.Writer, e ZipEntry) error {
	r, err := b.NewReader(ctx, e.Key, nil)
	if err != nil {
		if blobstore.IsNotFound(err) {
			return temporal.NewNonRetryableApplicationError("a file of the archive is gone", ErrTypeZipSourceMissing, err)
		}
		return fmt.Errorf("opening %s: %w", e.Key, err)
	}
	defer r.Close()
	method := zip.Store
	if r.ContentType() == transcriptType {
		method = zip.Deflate
	}
	hdr := &zip.FileHeader{Name: e.Name, Method: method, Modified: r.ModTime()}
	hdr.SetMode(0o644)
	dst, err := zw.CreateHeader(hdr)
	if err != nil {
		return fmt.Errorf("adding %s to zip: %w", e.Name, err)
	}
	if _, err := io.Copy(dst, r); err != nil {
		return fmt.Errorf("copying %s into zip: %w", e.Key, err)
	}
	return nil
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// ReleaseReservationInput names a job whose reservation was answered unavailable.
type ReleaseReservationInput struct{ JobID string }

// ReleaseReservationResult says whether a committed reservation was found and refunded.
type ReleaseReservationResult struct {
	Released bool
	Refunded int
}

// unconfirmedMessage is what the user reads on a job whose reservation could not be confirmed.
const unconfirmedMessage = "the job could not be started; its credits were refunded"

// ReleaseReservation refunds, in full, a reservation that committed although the workflow was
// told it had not (the answer was lost), and records the job failed. A job never reserved needs
// nothing; a second call changes nothing (settlement is keyed by the job).
func (a *Activities) ReleaseReservation(ctx context.Context, in ReleaseReservationInput) (*ReleaseReservationResult, error) {
	j, err := a.Store.GetJob(ctx, in.JobID)
	if errors.Is(err, store.ErrNotFound) {
		return &ReleaseReservationResult{}, nil
	}
	if err != nil {
		return nil, err
	}
	s, err := a.Store.FinishJob(ctx, job.Outcome{JobID: in.JobID, Status: job.Failed, Progress: j.Progress,
		Results: []job.PageResult{}, Errors: []job.PageError{{Message: unconfirmedMessage}}, FinishedAt: time.Now()})
	if err != nil {
		return nil, err
	}
	a.log(ctx, in.JobID).Warn("unconfirmed reservation released", "refunded", s.Refunded, "replayed", s.Already)
	return &ReleaseReservationResult{Released: !s.Already, Refunded: s.Refunded}, nil
}

// ZipFailedMessage is what the user reads on a completed job whose archive could not be built.
const ZipFailedMessage = "the ZIP could not be built; the translated pages can be downloaded one by one"

// RecordZipInput is the archive of a settled job, or why there is none.
type RecordZipInput struct {
	JobID   string
	Key     string
	Size    int64
	Failure string // what the user reads when the archive could not be built
}

// RecordZipResult says whether the job was deleted while its archive was built.
type RecordZipResult struct{ Deleted bool }

// RecordZip records a settled job's archive, or its failure among the job's errors. It is
// idempotent.
func (a *Activities) RecordZip(ctx context.Context, in RecordZipInput) (*RecordZipResult, error) {
	deleted, err := a.Store.RecordZip(ctx, in.JobID, in.Key, in.Size, in.Failure)
	if err != nil {
		return nil, err
	}
	a.log(ctx, in.JobID).Info("zip recorded", "key", in.Key, "bytes", in.Size, "failure", in.Failure, "deleted", deleted)
	return &RecordZipResult{Deleted: deleted}, nil
}

// FinishJobInput is the job's outcome.
type FinishJobInput struct {
	Finish job.Outcome
}

// FinishJobResult is the settlement.
type FinishJobResult struct {
	Charged   int
	Refunded  int
	ExpiresAt time.Time
	Deleted   bool
}

// FinishJob records the outcome and settles credits exactly once (the store keys it by job).
func (a *Activities) FinishJob(ctx context.Context, in FinishJobInput) (*FinishJobResult, error) {
	s, err := a.Store.FinishJob(ctx, in.Finish)
	if err != nil {
		return nil, err
	}
	a.log(ctx, in.Finish.JobID).Info("job settled", "status", in.Finish.Status, "charged", s.Charged,
		"refunded", s.Refunded, "replayed", s.Already)
	return &FinishJobResult{Charged: s.Charged, Refunded: s.Refunded, ExpiresAt: s.ExpiresAt, Deleted: s.Deleted}, nil
}

// DeleteFilesInput names a job whose files must go.
type DeleteFilesInput struct {
	JobID string
	// Expire marks the job expired (its retention ended) rather than merely cleaning up.
	Expire bool
}

// DeleteFilesResult counts what was removed.
type DeleteFilesResult struct {
	Deleted int
	Expired bool
}

// DeleteFiles removes all of a job's blobs: after a refused reservation, a delete or the end of
// retention. It is idempotent.
func (a *Activities) DeleteFiles(ctx context.Context, in DeleteFilesInput) (*DeleteFilesResult, error) {
	n, err := blobstore.DeletePrefix(ctx, a.Bucket, job.Prefix(in.JobID))
	if err != nil {
		return nil, err
	}
	out := &DeleteFilesResult{Deleted: n}
	if in.Expire {
		if out.Expired, err = a.Store.MarkExpired(ctx, in.JobID); err != nil {
			return nil, err
		}
	}
	a.log(ctx, in.JobID).Info("job files deleted", "blobs", n, "expired", out.Expired)
	return out, nil
}
