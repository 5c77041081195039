package api_test

import (
	"net/http"
	"testing"

	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// A burst of GET /api/jobs/{id} on a running job goes through the job's shared poller: no
// request fails with a 5xx, and the workflow answers a query per poll interval, not one per
// request (a workflow answers one query at a time and turns a burst away as busy).
func TestJobStateBurstSharesPoller(t *testing.T) {
	gate := make(chan struct{})
	env := apitest.Start(t, apitest.Options{Engine: &testengine.Engine{Gate: gate}, Parallelism: 1})
	defer close(gate)
	a := upload(t, env, "reader", 2)
	if r := env.Do("GET", "/api/jobs/"+a.JobID, nil, nil); r.Status != 200 {
		t.Fatalf("first read: %d %s", r.Status, r.Body)
	}
	before := env.Jobs.Queries()
	const clients, each = 40, 10 // 400 reads over loopback, within the address limit's burst
	statuses := countStatuses(t, clients, each, func(int) *http.Request {
		req, _ := http.NewRequest("GET", env.URL+"/api/jobs/"+a.JobID, nil)
		return req
	})
	queries := env.Jobs.Queries() - before
	t.Logf("%d reads: statuses %v, %d workflow queries", clients*each, statuses, queries)
	if statuses[200] != clients*each {
		t.Fatalf("statuses = %v, want %d × 200", statuses, clients*each)
	}
	if queries*4 > clients*each {
		t.Fatalf("%d workflow queries for %d reads: the reads do not share the poller", queries, clients*each)
	}
}
