package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/suite"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/workflows"
)

// The workflow's decisions alone, every activity mocked: which activities run, in which order,
// with what, for the paths where the job does not simply complete. The tests in translate_test.go
// run the same paths on PostgreSQL.
type translateUnitSuite struct {
	suite.Suite
	testsuite.WorkflowTestSuite
	env *testsuite.TestWorkflowEnvironment
	in  workflows.TranslateJobInput
}

func TestTranslateJobUnit(t *testing.T) { suite.Run(t, new(translateUnitSuite)) }

func (s *translateUnitSuite) SetupTest() {
	s.env = s.NewTestWorkflowEnvironment()
	s.env.RegisterActivity(&activities.Activities{})
	s.env.RegisterWorkflow(workflows.TranslateJob)
	s.env.RegisterWorkflow(workflows.ExpireJob)
	s.env.OnWorkflow(workflows.ExpireJob, workflowCtx, anyInput).Return(nil).Maybe()
	s.env.SetTestTimeout(time.Minute)
	s.in = workflows.TranslateJobInput{Upload: job.Upload{JobID: "j-unit", UserID: "u-unit",
		Spec: job.Spec{Mode: "standard", SourceLang: "auto", TargetLang: "en"}}, Parallelism: 1}
	for _, n := range []string{"p1.png", "p2.png"} {
		s.in.Pages = append(s.in.Pages, job.Page{SourceFilename: n, OutputName: n, InputKey: "in/" + n, Format: "png"})
	}
}

func (s *translateUnitSuite) AfterTest(_, _ string) { s.env.AssertExpectations(s.T()) }

// run starts the job and sends the reservation as the upload does, answering it with res.
func (s *translateUnitSuite) run(res activities.ReserveResult) job.Report {
	s.env.OnActivity("ReserveCredits", mock.Anything, mock.Anything).Return(&res, nil).Once()
	s.env.RegisterDelayedCallback(func() {
		s.env.UpdateWorkflow(workflows.ReserveUpdate, "reserve-1", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { s.T().Errorf("reservation rejected: %v", err) },
			OnAccept: func() {}, OnComplete: func(any, error) {},
		})
	}, 0)
	s.env.ExecuteWorkflow(workflows.TranslateJob, s.in)
	s.Require().True(s.env.IsWorkflowCompleted())
	s.Require().NoError(s.env.GetWorkflowError())
	var st job.Report
	s.Require().NoError(s.env.GetWorkflowResult(&st))
	return st
}

func (s *translateUnitSuite) pagesTranslate() {
	s.env.OnActivity("MarkProcessing", mock.Anything, mock.Anything).Return(&activities.MarkProcessingResult{}, nil).Once()
	s.env.OnActivity("TranslatePage", mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.TranslatePageInput) (*activities.TranslatePageResult, error) {
			return &activities.TranslatePageResult{OutputKey: "out/" + in.OutputName, Bytes: 10}, nil
		})
}

// A refused reservation takes nothing and leaves nothing: the uploads go, no page is translated,
// nothing is settled, no expiry is scheduled. To an operator's search it is failed, never processing.
func (s *translateUnitSuite) TestRefusal() {
	search := s.recordSearch()
	s.env.OnActivity("DeleteFiles", mock.Anything, activities.DeleteFilesInput{JobID: "j-unit"}).Return(&activities.DeleteFilesResult{}, nil).Once()
	st := s.run(activities.ReserveResult{Code: job.InsufficientCredits, Message: "not enough credits"})
	s.Equal(job.Failed, st.Status)
	s.env.AssertActivityNotCalled(s.T(), "MarkProcessing", mock.Anything, mock.Anything)
	s.env.AssertActivityNotCalled(s.T(), "FinishJob", mock.Anything, mock.Anything)
	s.env.AssertActivityNotCalled(s.T(), "ReleaseReservation", mock.Anything, mock.Anything)
	s.env.AssertWorkflowNumberOfCalls(s.T(), "ExpireJob", 0)
	s.Equal([]string{"failed"}, *search)
}

// A job cancelled (deleted) before any page finished settles as failed with nothing translated,
// and its files go; no archive, no expiry. To an operator's search it went processing, then
// failed with nothing charged.
func (s *translateUnitSuite) TestCancellation() {
	search := s.recordSearch()
	s.env.OnActivity("MarkProcessing", mock.Anything, mock.Anything).Return(&activities.MarkProcessingResult{}, nil).Once()
	s.env.OnActivity("TranslatePage", mock.Anything, mock.Anything).Return(
		func(ctx context.Context, _ activities.TranslatePageInput) (*activities.TranslatePageResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.env.RegisterDelayedCallback(s.env.CancelWorkflow, time.Second)
	var settled job.Outcome
	s.env.OnActivity("FinishJob", mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FinishJobInput) (*activities.FinishJobResult, error) {
			settled = in.Finish
			return &activities.FinishJobResult{Refunded: 2}, nil
		}).Once()
	s.env.OnActivity("DeleteFiles", mock.Anything, activities.DeleteFilesInput{JobID: "j-unit"}).Return(&activities.DeleteFilesResult{}, nil).Once()
	st := s.run(activities.ReserveResult{Reserved: true, CreditsNeeded: 2})
	s.Equal(job.Failed, st.Status)
	s.Equal(job.Failed, settled.Status)
	s.Equal(0, settled.PagesDone)
	s.False(settled.ZipPending)
	s.env.AssertActivityNotCalled(s.T(), "BuildZip", mock.Anything, mock.Anything)
	s.env.AssertWorkflowNumberOfCalls(s.T(), "ExpireJob", 0)
	s.Equal([]string{"processing", "failed charged=0"}, *search)
}

// A ZIP that cannot be built (its sources gone) leaves the job completed and settled before it:
// the failure is recorded for the user, the files kept, the expiry still scheduled.
func (s *translateUnitSuite) TestFailingZip() {
	s.pagesTranslate()
	s.env.OnActivity("FinishJob", mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FinishJobInput) (*activities.FinishJobResult, error) {
			s.True(in.Finish.ZipPending, "settled before the archive")
			s.Equal(2, in.Finish.PagesDone)
			return &activities.FinishJobResult{Charged: 2, ExpiresAt: time.Now().Add(time.Hour)}, nil
		}).Once()
	s.env.OnActivity("BuildZip", mock.Anything, mock.Anything).Return(nil,
		temporal.NewNonRetryableApplicationError("page gone", activities.ErrTypeZipSourceMissing, nil)).Once()
	var rec activities.RecordZipInput
	s.env.OnActivity("RecordZip", mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RecordZipInput) (*activities.RecordZipResult, error) {
			rec = in
			return &activities.RecordZipResult{}, nil
		}).Once()
	st := s.run(activities.ReserveResult{Reserved: true, CreditsNeeded: 2})
	s.Equal(job.Completed, st.Status)
	s.Empty(rec.Key)
	s.Contains(rec.Failure, "could not be built")
	s.env.AssertActivityNotCalled(s.T(), "DeleteFiles", mock.Anything, mock.Anything)
	s.env.AssertWorkflowNumberOfCalls(s.T(), "ExpireJob", 1)
}

// A job deleted while it settles (FinishJob reports the delete) loses its files at once: no
// archive is built and no expiry scheduled.
func (s *translateUnitSuite) TestDeleteDuringSettlement() {
	s.pagesTranslate()
	s.env.OnActivity("FinishJob", mock.Anything, mock.Anything).Return(
		&activities.FinishJobResult{Charged: 2, Deleted: true}, nil).Once()
	s.env.OnActivity("DeleteFiles", mock.Anything, activities.DeleteFilesInput{JobID: "j-unit"}).Return(&activities.DeleteFilesResult{}, nil).Once()
	st := s.run(activities.ReserveResult{Reserved: true, CreditsNeeded: 2})
	s.Equal(job.Completed, st.Status)
	s.env.AssertActivityNotCalled(s.T(), "BuildZip", mock.Anything, mock.Anything)
	s.env.AssertActivityNotCalled(s.T(), "RecordZip", mock.Anything, mock.Anything)
	s.env.AssertWorkflowNumberOfCalls(s.T(), "ExpireJob", 0)
}
