package worker

import (
	"context"
	"errors"
	"slices"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"

	"github.com/vtsproject/vts/activities"
	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/metrics"
)

// MeteredEngines wraps an engine source so that every engine call is a span of tp (the global
// provider when nil) and its latency is recorded in m under the engine's name (name(mode)) and
// the mode.
func MeteredEngines(src activities.EngineSource, name func(job.Mode) string, m *metrics.Metrics, tp trace.TracerProvider) activities.EngineSource {
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return meteredSource{src: src, name: name, m: m, tracer: tp.Tracer("vts/engine")}
}

type meteredSource struct {
	src    activities.EngineSource
	name   func(job.Mode) string
	m      *metrics.Metrics
	tracer trace.Tracer
}

func (s meteredSource) For(mode job.Mode) (engine.Engine, error) {
	e, err := s.src.For(mode)
	if err != nil {
		return nil, err
	}
	return meteredEngine{Engine: e, name: engineName(s.name, mode), mode: string(mode), m: s.m, tracer: s.tracer}, nil
}

type meteredEngine struct {
	engine.Engine
	name, mode string
	m          *metrics.Metrics
	tracer     trace.Tracer
}

func (e meteredEngine) Translate(ctx context.Context, req engine.Request) (*engine.Response, error) {
	ctx, span := e.tracer.Start(ctx, "engine "+e.name, trace.WithAttributes(attribute.String("vts.engine", e.name),
		attribute.String("vts.mode", e.mode), attribute.String("vts.page", req.Filename)))
	defer span.End()
	start := time.Now()
	res, err := e.Engine.Translate(ctx, req)
	e.m.EngineCall(e.name, e.mode, time.Since(start))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "engine failed")
	}
	return res, err
}

// Edit passes an edit to the engine when it is an engine.Editor, as a span of its own.
func (e meteredEngine) Edit(ctx context.Context, req engine.EditRequest) (*engine.Response, error) {
	ed, ok := e.Engine.(engine.Editor)
	if !ok {
		return nil, engine.NotEditable()
	}
	ctx, span := e.tracer.Start(ctx, "engine "+e.name+" edit", trace.WithAttributes(attribute.String("vts.engine", e.name),
		attribute.String("vts.mode", e.mode), attribute.String("vts.page", req.Transcript.Page)))
	defer span.End()
	res, err := ed.Edit(ctx, req)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "engine failed")
	}
	return res, err
}

func engineName(name func(job.Mode) string, mode job.Mode) string {
	if name == nil {
		return "unknown"
	}
	if n := name(mode); n != "" {
		return n
	}
	return "unknown"
}

// metricsInterceptor counts what the activities settle: pages translated or failed for good, and
// credits reserved, charged and refunded. It reads the activities' inputs and results, so the
// activities themselves know nothing of metrics.
type metricsInterceptor struct {
	interceptor.WorkerInterceptorBase
	m    *metrics.Metrics
	name func(job.Mode) string
}

func (i *metricsInterceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	a := &activityMetrics{m: i.m, name: i.name}
	a.Next = next
	return a
}

type activityMetrics struct {
	interceptor.ActivityInboundInterceptorBase
	m    *metrics.Metrics
	name func(job.Mode) string
}

func (a *activityMetrics) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	res, err := a.Next.ExecuteActivity(ctx, in)
	switch arg := firstArg(in).(type) {
	case activities.TranslatePageInput:
		switch {
		case err == nil:
			a.m.Page(engineName(a.name, arg.Mode), string(arg.Mode), true)
		case finalAttempt(ctx, err):
			a.m.Page(engineName(a.name, arg.Mode), string(arg.Mode), false)
		}
	case activities.ReserveInput:
		if r, ok := res.(*activities.ReserveResult); ok && err == nil && r.Reserved {
			a.m.Credits(metrics.CreditsReserved, r.CreditsNeeded)
		}
	case activities.FinishJobInput:
		if r, ok := res.(*activities.FinishJobResult); ok && err == nil {
			a.m.Credits(metrics.CreditsCharged, r.Charged)
			a.m.Credits(metrics.CreditsRefunded, r.Refunded)
		}
	}
	return res, err
}

// firstArg is the activity's input by value (the SDK hands arguments over as values or pointers).
func firstArg(in *interceptor.ExecuteActivityInput) any {
	if len(in.Args) == 0 {
		return nil
	}
	switch v := in.Args[0].(type) {
	case *activities.TranslatePageInput:
		return *v
	case *activities.ReserveInput:
		return *v
	case *activities.FinishJobInput:
		return *v
	default:
		return v
	}
}

// finalAttempt says whether err ends the activity for good: not retryable, or its last attempt.
func finalAttempt(ctx context.Context, err error) bool {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.NonRetryable() {
		return true
	}
	info := activity.GetInfo(ctx)
	if errors.As(err, &app) && info.RetryPolicy != nil && slices.Contains(info.RetryPolicy.NonRetryableErrorTypes, app.Type()) {
		return true
	}
	return info.RetryPolicy != nil && info.RetryPolicy.MaximumAttempts > 0 && info.Attempt >= info.RetryPolicy.MaximumAttempts
}
