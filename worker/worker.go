// Package worker registers the workflows and activities on a Temporal worker with the options the
// service needs.
package worker

import (
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/metrics"
	"github.com/vtsproject/vts/workflows"
)

// Options tunes one worker process.
type Options struct {
	TaskQueue string
	// MaxActivities bounds the activities (mostly page translations) this process runs at once.
	MaxActivities int
	// EngineRPS, when positive, limits activity starts on the whole task queue per second, across
	// all workers: the guard in front of paid engines' rate limits.
	EngineRPS float64
	// StopGrace is how long Stop waits, once polling has stopped, for running activities (page
	// translations) to finish before their contexts are cancelled and Temporal retries them.
	StopGrace time.Duration
	// Metrics, when set, counts pages and credits as the activities settle them.
	Metrics *metrics.Metrics
	// EngineName names the engine of a mode in metrics.
	EngineName func(job.Mode) string
	// Interceptors run around the workflows and activities (tests hold an activity open with one).
	Interceptors []interceptor.WorkerInterceptor
}

// New builds a worker with every workflow and activity registered.
func New(c client.Client, acts *activities.Activities, opts Options) worker.Worker {
	if opts.TaskQueue == "" {
		opts.TaskQueue = workflows.TaskQueue
	}
	wo := worker.Options{
		MaxConcurrentActivityExecutionSize: max(opts.MaxActivities, 1),
		TaskQueueActivitiesPerSecond:       opts.EngineRPS,
		WorkerStopTimeout:                  opts.StopGrace,
		Interceptors:                       opts.Interceptors,
	}
	if opts.Metrics != nil {
		wo.Interceptors = append(wo.Interceptors, &metricsInterceptor{m: opts.Metrics, name: opts.EngineName})
	}
	w := worker.New(c, opts.TaskQueue, wo)
	w.RegisterWorkflow(workflows.TranslateJob)
	w.RegisterWorkflow(workflows.ExpireJob)
	w.RegisterWorkflow(workflows.Reconcile)
	w.RegisterWorkflow(workflows.EditPage)
	w.RegisterActivity(acts)
	return w
}
