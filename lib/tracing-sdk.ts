// The OpenTelemetry SDK, loaded by lib/tracing.ts only when the OTEL_EXPORTER_OTLP_* variables ask for
// traces (and imported here only inside the function, so no bundler hoists it into a process that runs
// without them). The SDK honours every standard OTEL_* variable (protocol, headers, sampler, batch sizes).
import { trace, type TracerProvider } from "@opentelemetry/api";

/** Whether the standard variables name the service (they win over the product's default name). */
const serviceNamed = (environment: NodeJS.ProcessEnv) =>
  Boolean(environment.OTEL_SERVICE_NAME?.trim()) ||
  /(^|,)\s*service\.name\s*=/.test(environment.OTEL_RESOURCE_ATTRIBUTES ?? "");

/** What the SDK hands lib/tracing.ts: the product's tracer provider, and the SDK's shutdown. */
export interface TracingSdk {
  provider: TracerProvider;
  stop: () => Promise<void>;
}

/**
 * Starts the SDK for traces only (metrics are Prometheus's, lib/metrics.ts; logs are ours). Its context manager
 * and propagator stay global; its tracer provider does not: Next.js traces its own request handling whenever a
 * global provider is registered (a span per internal step, each a context switch, on every request it routes),
 * and the product's server span is its own (lib/http/request-tracing.ts). With no global provider Next.js's
 * tracer is a no-op, and lib/tracing.ts starts every product span from the provider returned here.
 */
export async function startTracingSdk(serviceName: string): Promise<TracingSdk> {
  // Not the process detector by default: its process.command_args would carry a node's token.
  // (Set but empty would mean the SDK's defaults, the process detector among them.)
  if (!process.env.OTEL_NODE_RESOURCE_DETECTORS?.trim()) process.env.OTEL_NODE_RESOURCE_DETECTORS = "service,host";
  const { startNodeSdk } = await import("@opentelemetry/sdk-node");
  const sdk = startNodeSdk({
    metricReaders: [],
    logRecordProcessors: [],
    resourceAttributes: serviceNamed(process.env) ? {} : { "service.name": serviceName },
  });
  const registered = trace.getTracerProvider() as TracerProvider & { getDelegate?: () => TracerProvider };
  const provider = registered.getDelegate?.() ?? registered;
  trace.disable();
  return { provider, stop: () => sdk.shutdown() };
}
