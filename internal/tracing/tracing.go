// Package tracing is the service's OpenTelemetry wiring: a tracer provider that exports OTLP
// when the standard OTEL_EXPORTER_OTLP_* variables name an endpoint (and records nothing
// otherwise), the Temporal SDK's tracing interceptor for clients and workers, the HTTP
// middleware, and log lines that carry the trace ID.
package tracing

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/go-chi/chi/v5"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// Enabled says whether the environment asks for OTLP export.
func Enabled() bool {
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Setup installs the process's tracer provider and the W3C propagators: OTLP over HTTP to the
// endpoint of the standard variables (OTEL_EXPORTER_OTLP_ENDPOINT, _HEADERS, …) when one is set,
// a provider that records nothing otherwise. Call shutdown before exiting to flush spans.
func Setup(ctx context.Context, service string) (tp trace.TracerProvider, shutdown func(context.Context) error, err error) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if !Enabled() {
		tp = noop.NewTracerProvider()
		otel.SetTracerProvider(tp)
		return tp, func(context.Context) error { return nil }, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: %w", err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", service)))
	if err != nil {
		res = resource.Default()
	}
	sdk := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	otel.SetTracerProvider(sdk)
	return sdk, sdk.Shutdown, nil
}

// Temporal is the Temporal SDK's tracing interceptor on tp, for client.Options.Interceptors (a
// worker built on that client uses it too): starting a workflow, the workflow and each activity
// become spans of the caller's trace.
func Temporal(tp trace.TracerProvider) (interceptor.Interceptor, error) {
	return temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{Tracer: tp.Tracer("vts/temporal")})
}

// HTTP wraps a chi router in otelhttp: each request is a server span named by its method and
// route pattern (never one name per job ID), continuing the caller's trace when it sent one.
func HTTP(tp trace.TracerProvider, next http.Handler) http.Handler {
	named := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rctx := chi.RouteContext(r.Context())
		if rctx == nil {
			rctx = chi.NewRouteContext()
			r = r.WithContext(context.WithValue(r.Context(), chi.RouteCtxKey, rctx))
		}
		next.ServeHTTP(w, r)
		if route := rctx.RoutePattern(); route != "" {
			span := trace.SpanFromContext(r.Context())
			span.SetName(r.Method + " " + route)
			span.SetAttributes(attribute.String("http.route", route))
		}
	})
	return otelhttp.NewHandler(named, "http", otelhttp.WithTracerProvider(tp),
		otelhttp.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }))
}

// LogHandler adds the trace and span IDs of the context's span to every record logged with a
// context (slog's …Context calls).
func LogHandler(h slog.Handler) slog.Handler { return logHandler{h} }

type logHandler struct{ slog.Handler }

func (h logHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace", sc.TraceID().String()), slog.String("span", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h logHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return logHandler{h.Handler.WithAttrs(as)}
}
func (h logHandler) WithGroup(name string) slog.Handler { return logHandler{h.Handler.WithGroup(name)} }

// Trace is the trace ID of ctx's span, "" when there is none: for log lines made without a context.
func Trace(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		return sc.TraceID().String()
	}
	return ""
}
