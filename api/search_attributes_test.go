package api_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// listWorkflows runs an operator's query (the Temporal UI's filter) through the SDK's list API
// and answers the workflow IDs found, each with its search attributes decoded.
func listWorkflows(t *testing.T, env *apitest.Env, query string) map[string]map[string]any {
	t.Helper()
	found := map[string]map[string]any{}
	var token []byte
	for {
		resp, err := env.Temporal.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: query, NextPageToken: token})
		if err != nil {
			t.Fatalf("query %s: %v", query, err)
		}
		for _, e := range resp.Executions {
			found[e.Execution.WorkflowId] = decodeAttributes(t, e.SearchAttributes)
		}
		if token = resp.NextPageToken; len(token) == 0 {
			return found
		}
	}
}

func decodeAttributes(t *testing.T, sa *commonpb.SearchAttributes) map[string]any {
	out := map[string]any{}
	for name, p := range sa.GetIndexedFields() {
		var v any
		if err := converter.GetDefaultDataConverter().FromPayload(p, &v); err != nil {
			t.Fatalf("decoding %s: %v", name, err)
		}
		out[name] = v
	}
	return out
}

// waitListed polls query until it lists every ID of want, with the attributes they have by then:
// visibility follows the workflows a moment later (bounded polling, generous limit).
func waitListed(t *testing.T, env *apitest.Env, query string, want ...string) map[string]map[string]any {
	t.Helper()
	var found map[string]map[string]any
	for range 600 {
		found = listWorkflows(t, env, query)
		if !slices.ContainsFunc(want, func(id string) bool { _, ok := found[id]; return !ok }) {
			return found
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("query %s never listed %v; it lists %v", query, want, found)
	return nil
}

// An operator answering "my chapter failed yesterday, user u-123" from the Temporal UI: a
// finished job is found by its user, its status, its pages and mode and its languages, with the
// credits settlement charged; its expiry is found by the user too; another user's query lists
// none of it; a job whose pages all failed is found by VtsStatus='failed'.
func TestOperatorsFindJobsBySearchAttributes(t *testing.T) {
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{FailSubstring: "doomed"}})
	user, other := "u-"+uuid.NewString(), "u-"+uuid.NewString()
	// One at a time (the Free plan runs one job at once), each followed to its end.
	done := upload(t, env, user, 3, [2]string{"sourceLang", "en"}, [2]string{"targetLang", "es"}, [2]string{"mode", "fast"})
	readSSE(t, env, done.JobID)
	failed := env.UploadAccepted(t, [][2]string{{"userId", user}, {"targetLang", "fr"}},
		apitest.File{Name: "doomed.png", Data: apitest.PNG(t, 40, 30, 9)})
	readSSE(t, env, failed.JobID)
	theirs := upload(t, env, other, 1)
	readSSE(t, env, theirs.JobID)
	rec, err := env.Store.GetJob(context.Background(), done.JobID)
	if err != nil || rec.Status != job.Completed || rec.CreditsCharged == 0 {
		t.Fatalf("the job ended %+v (%v)", rec, err)
	}
	wf, expiry, failedWF := job.WorkflowID(done.JobID), job.ExpiryWorkflowID(done.JobID), job.WorkflowID(failed.JobID)

	// By user, once visibility shows the job completed: both jobs and their expiries.
	byUser := fmt.Sprintf("VtsUserId='%s'", user)
	waitListed(t, env, byUser+" AND VtsStatus='completed'", wf)
	found := waitListed(t, env, byUser, wf, expiry, failedWF, job.ExpiryWorkflowID(failed.JobID))
	if len(found) != 4 {
		t.Errorf("%s lists %v, want the two jobs and their expiries", byUser, found)
	}
	want := map[string]any{"VtsUserId": user, "VtsStatus": "completed", "VtsPages": float64(3), "VtsMode": "fast",
		"VtsSourceLang": "en", "VtsTargetLang": "es", "VtsCreditsCharged": float64(rec.CreditsCharged)}
	for k, v := range want {
		if found[wf][k] != v {
			t.Errorf("the job's %s = %v, want %v (all: %v)", k, found[wf][k], v, found[wf])
		}
	}
	if found[expiry]["VtsUserId"] != user {
		t.Errorf("the expiry carries %v", found[expiry])
	}

	// By pages and mode, as the UI's filter would be typed; a wrong size or mode finds nothing.
	for query, wantIt := range map[string]bool{
		byUser + " AND VtsPages = 3 AND VtsMode = 'fast'":                     true,
		byUser + " AND VtsPages >= 2 AND VtsTargetLang = 'es'":                true,
		byUser + " AND VtsPages > 3":                                          false,
		byUser + " AND VtsMode = 'advanced'":                                  false,
		byUser + " AND VtsCreditsCharged > 0 AND VtsStatus = 'completed'":     true,
		byUser + " AND VtsStatus = 'failed'":                                  false,
		fmt.Sprintf("VtsUserId='%s' AND ExecutionStatus = 'Completed'", user): true,
	} {
		if _, got := listWorkflows(t, env, query)[wf]; got != wantIt {
			t.Errorf("%s: found the job %v, want %v", query, got, wantIt)
		}
	}

	// Another user's query lists only their own job.
	theirsFound := waitListed(t, env, fmt.Sprintf("VtsUserId='%s'", other), job.WorkflowID(theirs.JobID))
	for id := range theirsFound {
		if found[id] != nil {
			t.Errorf("user %s's query lists %s", other, id)
		}
	}

	// The failed job, by status: found, with nothing charged; the completed job is not.
	failedFound := waitListed(t, env, byUser+" AND VtsStatus='failed'", failedWF)
	if _, ok := failedFound[wf]; ok || len(failedFound) != 1 {
		t.Errorf("VtsStatus='failed' lists %v", failedFound)
	}
	if got := failedFound[failedWF]["VtsCreditsCharged"]; got != float64(0) {
		t.Errorf("the failed job was charged %v", got)
	}
}
