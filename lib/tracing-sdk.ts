// The OpenTelemetry SDK, loaded by lib/tracing.ts only when the OTEL_EXPORTER_OTLP_* variables ask for
// traces (and imported here only inside the function, so no bundler hoists it into a process that runs
// without them). The SDK honours every standard OTEL_* variable (protocol, headers, sampler, batch sizes).
import {
  context,
  INVALID_SPAN_CONTEXT,
  trace,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";

/**
 * Next.js traces its own request handling when it finds a tracer provider (a second server span per request, and
 * its own route form written onto the active span). The product's server span is its own (lib/http/
 * request-tracing.ts): Next.js's tracer gets spans that only carry the active context on, recording nothing.
 */
const contextOnly: Tracer = {
  startSpan: (_name: string, _options?: SpanOptions, parent: Context = context.active()): Span =>
    trace.wrapSpanContext(trace.getSpanContext(parent) ?? INVALID_SPAN_CONTEXT),
  startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
    const work = rest.pop() as (span: Span) => ReturnType<F>;
    const [options, parent = context.active()] = rest as [SpanOptions | undefined, Context | undefined];
    const span = contextOnly.startSpan(name, options, parent);
    return context.with(trace.setSpan(parent, span), work, undefined, span);
  },
};

class WithoutNextJsSpans implements TracerProvider {
  constructor(private readonly sdk: TracerProvider) {}
  getTracer(name: string, version?: string, options?: { schemaUrl?: string }): Tracer {
    return name === "next.js" ? contextOnly : this.sdk.getTracer(name, version, options);
  }
}

/** Whether the standard variables name the service (they win over the product's default name). */
const serviceNamed = (environment: NodeJS.ProcessEnv) =>
  Boolean(environment.OTEL_SERVICE_NAME?.trim()) ||
  /(^|,)\s*service\.name\s*=/.test(environment.OTEL_RESOURCE_ATTRIBUTES ?? "");

/** Starts the SDK for traces only (metrics are Prometheus's, lib/metrics.ts; logs are ours); returns its shutdown. */
export async function startTracingSdk(serviceName: string): Promise<() => Promise<void>> {
  // Not the process detector by default: its process.command_args would carry a node's token.
  // (Set but empty would mean the SDK's defaults, the process detector among them.)
  if (!process.env.OTEL_NODE_RESOURCE_DETECTORS?.trim()) process.env.OTEL_NODE_RESOURCE_DETECTORS = "service,host";
  const { startNodeSdk } = await import("@opentelemetry/sdk-node");
  const sdk = startNodeSdk({
    metricReaders: [],
    logRecordProcessors: [],
    resourceAttributes: serviceNamed(process.env) ? {} : { "service.name": serviceName },
  });
  const provider = trace.getTracerProvider() as TracerProvider & { getDelegate?: () => TracerProvider };
  const sdkProvider = provider.getDelegate?.();
  if (sdkProvider) {
    trace.disable();
    trace.setGlobalTracerProvider(new WithoutNextJsSpans(sdkProvider));
  }
  return () => sdk.shutdown();
}
