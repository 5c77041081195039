package workflows_test

import (
	"context"
	"fmt"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/workflows"
)

// recordSearch records each upsert of the job's search attributes as "status" or
// "status charged=N".
func (s *translateUnitSuite) recordSearch() *[]string {
	var got []string
	s.env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		sa := args.Get(0).(temporal.SearchAttributes)
		status, _ := sa.GetKeyword(workflows.StatusKey)
		if charged, ok := sa.GetInt64(workflows.CreditsChargedKey); ok {
			status += fmt.Sprintf(" charged=%d", charged)
		}
		got = append(got, status)
	}).Return(nil)
	return &got
}

// A refused job is failed to an operator's search, and never processing.
func (s *translateUnitSuite) TestSearchStatusOfRefusal() {
	got := s.recordSearch()
	s.env.OnActivity("DeleteFiles", mock.Anything, mock.Anything).Return(&activities.DeleteFilesResult{}, nil).Once()
	s.run(activities.ReserveResult{Code: job.InsufficientCredits, Message: "not enough credits"})
	s.Equal([]string{"failed"}, *got)
}

// A job deleted mid-flight goes processing, then failed with what settlement charged.
func (s *translateUnitSuite) TestSearchStatusOfCancellation() {
	got := s.recordSearch()
	s.env.OnActivity("MarkProcessing", mock.Anything, mock.Anything).Return(&activities.MarkProcessingResult{}, nil).Once()
	s.env.OnActivity("TranslatePage", mock.Anything, mock.Anything).Return(
		func(ctx context.Context, _ activities.TranslatePageInput) (*activities.TranslatePageResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.env.RegisterDelayedCallback(s.env.CancelWorkflow, time.Second)
	s.env.OnActivity("FinishJob", mock.Anything, mock.Anything).Return(&activities.FinishJobResult{Refunded: 2}, nil).Once()
	s.env.OnActivity("DeleteFiles", mock.Anything, mock.Anything).Return(&activities.DeleteFilesResult{}, nil).Once()
	s.run(activities.ReserveResult{Reserved: true, CreditsNeeded: 2})
	s.Equal([]string{"processing", "failed charged=0"}, *got)
}
