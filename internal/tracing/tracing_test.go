package tracing_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/tracing"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// One upload is one trace: the HTTP request's span is the ancestor of the workflow's, whose page
// activity is the ancestor of the engine call, every span with the same trace ID.
func TestOneUploadIsOneTrace(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	env := apitest.Start(t, apitest.Options{Tracer: tp})

	accepted := env.UploadAccepted(t, [][2]string{{"userId", "traced-user"}}, apitest.File{Name: "page1.png", Data: apitest.PNG(t, 40, 30, 1)})
	if err := env.Temporal.GetWorkflow(context.Background(), job.WorkflowID(accepted.JobID), "").Get(context.Background(), nil); err != nil {
		t.Fatal(err)
	}

	byID := map[trace.SpanID]tracetest.SpanStub{}
	var engineSpan *tracetest.SpanStub
	for _, s := range spans.GetSpans() {
		byID[s.SpanContext.SpanID()] = s
		if s.Name == "engine static" {
			engineSpan = &s
		}
	}
	if engineSpan == nil {
		t.Fatalf("no engine span among %v", names(spans.GetSpans()))
	}
	// Walk from the engine call up to the root.
	var chain []string
	for s, ok := *engineSpan, true; ok; s, ok = byID[s.Parent.SpanID()] {
		if s.SpanContext.TraceID() != engineSpan.SpanContext.TraceID() {
			t.Fatalf("span %s is in another trace", s.Name)
		}
		chain = append([]string{s.Name}, chain...)
	}
	got := strings.Join(chain, " → ")
	for _, want := range []string{"POST /api/translate", "UpdateWithStartWorkflow:reserve", "RunWorkflow:TranslateJob",
		"StartActivity:TranslatePage", "RunActivity:TranslatePage", "engine static"} {
		if !strings.Contains(got, want) {
			t.Errorf("the engine call's ancestry %q lacks %q", got, want)
		}
	}
	if !strings.HasPrefix(got, "POST /api/translate") {
		t.Errorf("the trace does not start at the upload: %q", got)
	}
}

func names(ss tracetest.SpanStubs) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

// A line logged with a span's context carries its trace ID.
func TestLogLinesCarryTheTraceID(t *testing.T) {
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(context.Background(), "work")
	defer span.End()
	var buf bytes.Buffer
	log := slog.New(tracing.LogHandler(slog.NewTextHandler(&buf, nil))).With("job", "j1")
	log.InfoContext(ctx, "page translated")
	log.Info("no context")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if want := "trace=" + span.SpanContext().TraceID().String(); !strings.Contains(lines[0], want) || !strings.Contains(lines[0], "job=j1") {
		t.Errorf("line %q lacks %s and the job", lines[0], want)
	}
	if strings.Contains(lines[1], "trace=") {
		t.Errorf("line without a span has a trace: %q", lines[1])
	}
}
