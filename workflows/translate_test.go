package workflows_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
	"gocloud.dev/blob"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/engine/engines"
	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
	"github.com/vtsproject/vts/workflows"
)

type fixture struct {
	t      *testing.T
	env    *testsuite.TestWorkflowEnvironment
	store  *store.Store
	bucket *blob.Bucket
	engine *testengine.Engine
}

func newFixture(t *testing.T, eng *testengine.Engine) *fixture {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	s := pgtest.NewStore(t)
	bucket, err := blobstore.Open(context.Background(), "mem://")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bucket.Close() })
	acts := &activities.Activities{Store: s, Bucket: bucket, Engines: engines.Static(eng)}
	env.RegisterActivity(acts)
	env.RegisterWorkflow(workflows.TranslateJob)
	env.RegisterWorkflow(workflows.ExpireJob)
	env.SetTestTimeout(time.Minute)
	return &fixture{t: t, env: env, store: s, bucket: bucket, engine: eng}
}

func pagePNG(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 8, 6))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	img.Set(0, 0, color.RGBA{10, 20, 30, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// input uploads the named pages to the bucket and describes the job.
func (f *fixture) input(userID, mode string, names ...string) workflows.TranslateJobInput {
	jobID := uuid.NewString()
	in := workflows.TranslateJobInput{Upload: job.Upload{JobID: jobID, UserID: userID,
		Spec: job.Spec{Mode: job.Mode(mode), Resolution: job.Original, SourceLang: "auto", TargetLang: "en"}}, Parallelism: 2}
	for i, n := range names {
		key := job.InputKey(jobID, i, ".png")
		if err := f.bucket.WriteAll(context.Background(), key, pagePNG(f.t), nil); err != nil {
			f.t.Fatal(err)
		}
		in.Pages = append(in.Pages, job.Page{SourceFilename: n, OutputName: n, InputKey: key, Format: "png"})
	}
	return in
}

// start runs the workflow, sending the reservation update as the upload does.
func (f *fixture) start(in workflows.TranslateJobInput) *activities.ReserveResult {
	var got *activities.ReserveResult
	f.env.RegisterDelayedCallback(func() {
		f.env.UpdateWorkflow(workflows.ReserveUpdate, "reserve-1", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { f.t.Errorf("reservation rejected: %v", err) },
			OnAccept: func() {},
			OnComplete: func(v any, err error) {
				if err != nil {
					f.t.Errorf("reservation failed: %v", err)
					return
				}
				got = v.(*activities.ReserveResult)
			},
		})
	}, 0)
	f.env.ExecuteWorkflow(workflows.TranslateJob, in)
	return got
}

func (f *fixture) state() job.Report {
	if !f.env.IsWorkflowCompleted() {
		f.t.Fatal("workflow did not complete")
	}
	if err := f.env.GetWorkflowError(); err != nil {
		f.t.Fatalf("workflow failed: %v", err)
	}
	var st job.Report
	if err := f.env.GetWorkflowResult(&st); err != nil {
		f.t.Fatal(err)
	}
	return st
}

func (f *fixture) balances(userID string) (allowance, purchased int64) {
	f.t.Helper()
	u := pgtest.CheckedUser(f.t, f.store, userID)
	return u.AllowanceCredits, u.PurchasedCredits
}

// noExpiry stands in for the expiry child, which would otherwise run at once under skipped time
// and delete what the test inspects.
func (f *fixture) noExpiry() *fixture {
	f.env.OnWorkflow(workflows.ExpireJob, workflowCtx, anyInput).Return(nil)
	return f
}

func TestTranslateJobCompletes(t *testing.T) {
	f := newFixture(t, &testengine.Engine{}).noExpiry()
	in := f.input("u1", "standard", "p1.png", "p2.png", "p3.png")
	res := f.start(in)
	if res == nil || !res.Reserved || res.CreditsNeeded != 3 {
		t.Fatalf("reservation = %+v", res)
	}
	st := f.state()
	if st.Status != "completed" || st.Progress != 3 || st.Total != 3 || len(st.Results) != 3 || len(st.Errors) != 0 {
		t.Fatalf("state = %+v", st)
	}
	for i, r := range st.Results {
		want := fmt.Sprintf("p%d.png", i+1)
		if r.OutputName != want || r.SourceFilename != fmt.Sprintf("p%d.png", i+1) {
			t.Errorf("result %d = %+v, want output %s", i, r, want)
		}
	}
	j, err := f.store.GetJob(context.Background(), in.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != "completed" || j.CreditsCharged != 3 || j.CreditsRefunded != 0 || j.ZipKey == "" {
		t.Fatalf("job record = %+v", j)
	}
	if a, _ := f.balances("u1"); a != 7 {
		t.Fatalf("allowance = %d, want 7", a)
	}
	if ok, _ := f.bucket.Exists(context.Background(), job.ZipKey(in.JobID)); !ok {
		t.Fatal("zip missing")
	}
}

func TestTranslateJobRetriesTransientFailures(t *testing.T) {
	f := newFixture(t, &testengine.Engine{FlakySubstring: "flaky", FlakyAttempts: 2}).noExpiry()
	in := f.input("u2", "standard", "a.png", "flaky.png")
	f.start(in)
	st := f.state()
	if st.Status != "completed" || len(st.Results) != 2 || len(st.Errors) != 0 {
		t.Fatalf("state = %+v", st)
	}
	if f.engine.Calls() != 4 { // a once, flaky three times
		t.Fatalf("engine calls = %d, want 4", f.engine.Calls())
	}
}

// One page fails for good: the job completes with the others, lists the failure, and the failed
// page's credits come back (fast mode: 3 pages reserve ceil(1.5) = 2, 2 pages cost ceil(1) = 1).
func TestTranslateJobPartialFailureRefunds(t *testing.T) {
	f := newFixture(t, &testengine.Engine{FailSubstring: "bad"}).noExpiry()
	in := f.input("u3", "fast", "a.png", "bad.png", "c.png")
	res := f.start(in)
	if res.CreditsNeeded != 2 {
		t.Fatalf("reserved %d, want 2", res.CreditsNeeded)
	}
	st := f.state()
	if st.Status != "completed" || len(st.Results) != 2 || len(st.Errors) != 1 || st.Errors[0].SourceFilename != "bad.png" {
		t.Fatalf("state = %+v", st)
	}
	if st.Errors[0].Message != "the test engine was told to fail this page" {
		t.Fatalf("error message = %q", st.Errors[0].Message)
	}
	if f.engine.Calls() != 3 {
		t.Fatalf("a permanent failure was retried: %d calls", f.engine.Calls())
	}
	j, _ := f.store.GetJob(context.Background(), in.JobID)
	if j.CreditsCharged != 1 || j.CreditsRefunded != 1 {
		t.Fatalf("charged %d refunded %d, want 1 and 1", j.CreditsCharged, j.CreditsRefunded)
	}
	if a, _ := f.balances("u3"); a != 9 {
		t.Fatalf("allowance = %d, want 9", a)
	}
}

func TestTranslateJobAllPagesFailIsFailedWithFullRefund(t *testing.T) {
	f := newFixture(t, &testengine.Engine{FailSubstring: "bad"})
	in := f.input("u4", "advanced", "bad1.png", "bad2.png")
	f.start(in)
	st := f.state()
	if st.Status != "failed" || len(st.Errors) != 2 || len(st.Results) != 0 {
		t.Fatalf("state = %+v", st)
	}
	if a, _ := f.balances("u4"); a != 10 {
		t.Fatalf("allowance = %d, want the full 10 back", a)
	}
	j, _ := f.store.GetJob(context.Background(), in.JobID)
	if j.CreditsRefunded != 4 || j.ZipKey != "" {
		t.Fatalf("job = %+v", j)
	}
}

func TestTranslateJobInsufficientCreditsRemovesUploads(t *testing.T) {
	f := newFixture(t, &testengine.Engine{})
	names := make([]string, 6)
	for i := range names {
		names[i] = fmt.Sprintf("p%d.png", i)
	}
	if _, err := f.store.EnsureUser(context.Background(), "u5"); err != nil { // as the upload does
		t.Fatal(err)
	}
	in := f.input("u5", "advanced", names...) // 12 credits > 10
	res := f.start(in)
	if res == nil || res.Reserved || res.Code != "insufficient_credits" || res.CreditsNeeded != 12 || res.CreditsAvailable != 10 {
		t.Fatalf("reservation = %+v", res)
	}
	if st := f.state(); st.Status != "failed" {
		t.Fatalf("state = %+v", st)
	}
	if n, _ := blobstore.Count(context.Background(), f.bucket, job.Prefix(in.JobID)); n != 0 {
		t.Fatalf("%d orphaned blobs", n)
	}
	if f.engine.Calls() != 0 {
		t.Fatal("a refused job translated pages")
	}
	if _, err := f.store.GetJob(context.Background(), in.JobID); err != store.ErrNotFound {
		t.Fatalf("refused job recorded: %v", err)
	}
	if a, _ := f.balances("u5"); a != 10 {
		t.Fatalf("allowance = %d", a)
	}
}

// The plan's retention runs on a durable timer: 90 days pass in a moment under the test suite,
// and then the files are gone and the job is marked expired.
func TestExpireJobAfter90Days(t *testing.T) {
	f := newFixture(t, &testengine.Engine{})
	in := f.input("u6", "standard", "p.png")
	ctx := context.Background()
	if _, err := f.store.ReserveJob(ctx, store.NewJob{ID: in.JobID, UserID: "u6", Spec: job.Spec{Mode: "standard", Resolution: "original"}, Pages: 1}); err != nil {
		t.Fatal(err)
	}
	start := f.env.Now()
	f.env.ExecuteWorkflow(workflows.ExpireJob, workflows.ExpireJobInput{JobID: in.JobID, ExpiresAt: start.Add(90 * 24 * time.Hour)})
	if err := f.env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if elapsed := f.env.Now().Sub(start); elapsed < 90*24*time.Hour {
		t.Fatalf("expired after %s, before the retention ended", elapsed)
	}
	if n, _ := blobstore.Count(ctx, f.bucket, job.Prefix(in.JobID)); n != 0 {
		t.Fatalf("%d blobs left after expiry", n)
	}
	j, _ := f.store.GetJob(ctx, in.JobID)
	if j.ExpiredAt == nil {
		t.Fatal("job not marked expired")
	}
}

// A completed job schedules its expiry as a child that outlives it, at the plan's retention.
func TestTranslateJobSchedulesExpiry(t *testing.T) {
	f := newFixture(t, &testengine.Engine{})
	var got workflows.ExpireJobInput
	f.env.OnWorkflow(workflows.ExpireJob, workflowCtx, anyInput).Return(func(_ workflow.Context, in workflows.ExpireJobInput) error {
		got = in
		return nil
	})
	in := f.input("u7", "standard", "p.png")
	f.start(in)
	f.state()
	if got.JobID != in.JobID {
		t.Fatalf("expiry not scheduled: %+v", got)
	}
	j, _ := f.store.GetJob(context.Background(), in.JobID)
	if d := got.ExpiresAt.Sub(*j.CompletedAt); d != 3*24*time.Hour {
		t.Fatalf("expiry %s after completion, want the Free plan's 3 days", d)
	}
}

// Deleting a running job cancels it: pages not yet translated are refunded, files removed.
func TestTranslateJobCancelledByDelete(t *testing.T) {
	f := newFixture(t, &testengine.Engine{BlockSubstring: "p2"})
	in := f.input("u8", "standard", "p1.png", "p2.png", "p3.png", "p4.png")
	in.Parallelism = 1
	f.env.RegisterDelayedCallback(func() {
		if _, err := f.store.DeleteJob(context.Background(), in.JobID, "u8"); err != nil {
			t.Errorf("delete: %v", err)
		}
		f.env.CancelWorkflow()
	}, time.Second) // p1 done, p2 stuck in the engine
	f.start(in)
	if !f.env.IsWorkflowCompleted() {
		t.Fatal("not completed")
	}
	j, _ := f.store.GetJob(context.Background(), in.JobID)
	if j.Status != "failed" || j.CreditsCharged != 1 || j.CreditsRefunded != 3 {
		t.Fatalf("job = status %s charged %d refunded %d", j.Status, j.CreditsCharged, j.CreditsRefunded)
	}
	if a, _ := f.balances("u8"); a != 9 {
		t.Fatalf("allowance = %d, want 9", a)
	}
	if n, _ := blobstore.Count(context.Background(), f.bucket, job.Prefix(in.JobID)); n != 0 {
		t.Fatalf("%d blobs left after delete", n)
	}
}

// A job's transcripts and cleaned pages are among its files: the end of retention removes them
// with the pages, the inputs and the archive.
func TestExpiryRemovesTranscriptsAndCleanedPages(t *testing.T) {
	f := newFixture(t, &testengine.Engine{}).noExpiry()
	in := f.input("u9", "standard", "p1.png", "p2.png")
	f.start(in)
	if st := f.state(); st.Status != "completed" || len(st.Results) != 2 || !st.Results[1].HasTranscript {
		t.Fatalf("state = %+v", st)
	}
	ctx := context.Background()
	for _, name := range []string{"p1.png", "p2.png"} {
		for _, key := range []string{job.TranscriptKey(in.JobID, name), job.CleanedKey(in.JobID, name)} {
			if ok, _ := f.bucket.Exists(ctx, key); !ok {
				t.Fatalf("%s was not written", key)
			}
		}
	}
	// The expiry, as the abandoned child runs it when the plan's retention ends.
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterActivity(&activities.Activities{Store: f.store, Bucket: f.bucket, Engines: engines.Static(f.engine)})
	env.ExecuteWorkflow(workflows.ExpireJob, workflows.ExpireJobInput{JobID: in.JobID, ExpiresAt: env.Now().Add(72 * time.Hour)})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if n, _ := blobstore.Count(ctx, f.bucket, job.Prefix(in.JobID)); n != 0 {
		t.Fatalf("%d blobs left after expiry", n)
	}
	if j, _ := f.store.GetJob(ctx, in.JobID); j.ExpiredAt == nil {
		t.Fatal("job not marked expired")
	}
}

// The reservation commits but its answer is lost (issue 10, item 7): the update reports
// unavailable, and the upload is refused. The workflow finds the committed reservation and
// refunds it in full, so that no credit stays reserved for a job that will never run, and the
// user's slot is free. Before the fix the job stayed pending with its credits reserved.
func TestTranslateJobReleasesUnconfirmedReservation(t *testing.T) {
	f := newFixture(t, &testengine.Engine{})
	acts := &activities.Activities{Store: f.store, Bucket: f.bucket}
	f.env.OnActivity("ReserveCredits", mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ReserveInput) (*activities.ReserveResult, error) {
			if _, err := acts.Store.ReserveJob(ctx, store.NewJob{ID: in.Job.JobID, UserID: in.Job.UserID,
				Spec: in.Job.Spec, Pages: len(in.Job.Pages)}); err != nil {
				return nil, err
			}
			return nil, errors.New("connection reset after commit")
		})
	if _, err := f.store.EnsureUser(context.Background(), "u7"); err != nil {
		t.Fatal(err)
	}
	in := f.input("u7", "standard", "p1.png", "p2.png")
	res := f.start(in)
	if res == nil || res.Reserved || res.Code != job.Unavailable {
		t.Fatalf("reservation = %+v", res)
	}
	if st := f.state(); st.Status != job.Failed {
		t.Fatalf("state = %+v", st)
	}
	j, err := f.store.GetJob(context.Background(), in.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if j.SettledAt == nil || j.CreditsCharged != 0 || j.CreditsRefunded != 2 {
		t.Fatalf("job: settled %v, charged %d, refunded %d", j.SettledAt, j.CreditsCharged, j.CreditsRefunded)
	}
	if n, _ := f.store.ActiveJobs(context.Background(), "u7"); n != 0 {
		t.Fatalf("%d active jobs", n)
	}
	if a, _ := f.balances("u7"); a != 10 {
		t.Fatalf("allowance = %d", a)
	}
}

// A job deleted while its ZIP is being built (after it settled): the archive written after the
// delete does not survive it (issue 10, item 4).
func TestTranslateJobDeletedDuringZip(t *testing.T) {
	f := newFixture(t, &testengine.Engine{}).noExpiry()
	in := f.deleteDuringZip("u8")
	if n, _ := blobstore.Count(context.Background(), f.bucket, job.Prefix(in.JobID)); n != 0 {
		t.Fatalf("%d blobs of the deleted job left", n)
	}
	if a, _ := f.balances("u8"); a != 8 {
		t.Fatalf("allowance = %d", a)
	}
	f.env.AssertWorkflowNumberOfCalls(t, "ExpireJob", 0)
}

// A job that reached RecordZip before the delete-after-zip guard (issue 18, item 9) replays as
// it ran: no DeleteFiles there, the expiry scheduled instead, which removes the files later.
func TestTranslateJobDeletedDuringZipBeforeTheGuard(t *testing.T) {
	f := newFixture(t, &testengine.Engine{}).noExpiry()
	f.env.OnGetVersion("delete-after-zip", workflow.DefaultVersion, workflow.Version(1)).Return(workflow.DefaultVersion)
	in := f.deleteDuringZip("u9")
	if n, _ := blobstore.Count(context.Background(), f.bucket, job.Prefix(in.JobID)); n == 0 {
		t.Fatal("the old branch removed the files: the guard does not hold")
	}
	f.env.AssertWorkflowNumberOfCalls(t, "ExpireJob", 1)
}

// deleteDuringZip runs a two-page job whose owner deletes it while BuildZip runs, after the job
// settled, and waits for the workflow to end.
func (f *fixture) deleteDuringZip(userID string) workflows.TranslateJobInput {
	f.t.Helper()
	acts := &activities.Activities{Store: f.store, Bucket: f.bucket}
	f.env.OnActivity("BuildZip", mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.BuildZipInput) (*activities.BuildZipResult, error) {
			j, err := acts.Store.GetJob(ctx, in.JobID)
			if err != nil {
				return nil, err
			}
			if _, err := acts.Store.DeleteJob(ctx, in.JobID, j.UserID); err != nil {
				return nil, err
			}
			key := job.ZipKey(in.JobID)
			return &activities.BuildZipResult{Key: key, Size: 2}, acts.Bucket.WriteAll(ctx, key, []byte("PK"), nil)
		})
	in := f.input(userID, "standard", "p1.png", "p2.png")
	if _, err := f.store.EnsureUser(context.Background(), userID); err != nil {
		f.t.Fatal(err)
	}
	if res := f.start(in); res == nil || !res.Reserved {
		f.t.Fatalf("reservation = %+v", res)
	}
	f.state()
	return in
}
