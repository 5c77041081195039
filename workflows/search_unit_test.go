package workflows_test

import (
	"fmt"

	"github.com/stretchr/testify/mock"
	"github.com/vtsproject/vts/internal/search"
	"go.temporal.io/sdk/temporal"
)

// recordSearch records each upsert of the job's search attributes as "status" or
// "status charged=N".
func (s *translateUnitSuite) recordSearch() *[]string {
	var got []string
	s.env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		sa := args.Get(0).(temporal.SearchAttributes)
		status, _ := sa.GetKeyword(search.Status)
		if charged, ok := sa.GetInt64(search.CreditsCharged); ok {
			status += fmt.Sprintf(" charged=%d", charged)
		}
		got = append(got, status)
	}).Return(nil)
	return &got
}
