package apitest

import (
	"context"

	historypb "go.temporal.io/api/history/v1"
)

// History reads a workflow's whole history from the dev server, with the names of the
// activities it scheduled in order: what the replay tests record and what tests check a run by.
func (e *Env) History(workflowID string) (*historypb.History, []string) {
	e.T.Helper()
	hist := &historypb.History{}
	var activities []string
	it := e.Temporal.GetWorkflowHistory(context.Background(), workflowID, "", false, 0)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			e.T.Fatalf("reading the history of %s: %v", workflowID, err)
		}
		hist.Events = append(hist.Events, ev)
		if s := ev.GetActivityTaskScheduledEventAttributes(); s != nil {
			activities = append(activities, s.ActivityType.Name)
		}
	}
	return hist, activities
}
