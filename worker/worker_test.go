package worker_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// What SIGTERM does to `vts worker` (Stop, with VTS_WORKER_STOP_GRACE): polling stops, the pages
// being translated finish within the grace period and are recorded, and the worker that takes
// over finishes the job without translating any page again.
func TestStopLetsRunningPagesFinish(t *testing.T) {
	gate := make(chan struct{})
	eng := &testengine.Engine{Gate: gate}
	env := apitest.Start(t, apitest.Options{Engine: eng, Parallelism: 2, StopGrace: time.Hour})
	accepted := env.UploadAccepted(t, [][2]string{{"userId", "stopping-user"}},
		apitest.File{Name: "page1.png", Data: apitest.PNG(t, 40, 30, 1)},
		apitest.File{Name: "page2.png", Data: apitest.PNG(t, 40, 30, 2)})
	for eng.Calls() < 2 { // both pages are in the engine
		time.Sleep(20 * time.Millisecond)
	}

	stopped := make(chan struct{})
	go func() {
		env.StopWorker()
		close(stopped)
	}()
	time.Sleep(300 * time.Millisecond) // let Stop begin
	select {
	case <-stopped:
		t.Fatal("the worker stopped while its pages were still being translated")
	default:
	}
	close(gate)
	<-stopped

	env.StartWorker(eng) // the replacement, as after a deploy
	if err := env.Temporal.GetWorkflow(context.Background(), job.WorkflowID(accepted.JobID), "").Get(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if n := eng.Calls(); n != 2 {
		t.Errorf("the engine was called %d times for 2 pages: a page finished before the stop was translated again", n)
	}
	var st struct {
		Status  string            `json:"status"`
		Results []json.RawMessage `json:"results"`
	}
	env.Do(http.MethodGet, "/api/jobs/"+accepted.JobID, nil, nil).JSON(t, &st)
	if st.Status != "completed" || len(st.Results) != 2 {
		t.Errorf("job %s with %d results, want completed with 2", st.Status, len(st.Results))
	}
}
