// OpenTelemetry traces (CONTRACT §14), on only when the standard OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set: then the SDK (lib/tracing-sdk.ts, imported only then) exports
// over OTLP/HTTP, and the spans below are recorded. Off, every helper here is one boolean test and the SDK is
// never loaded. A job's trace crosses processes as a W3C traceparent: stored with the job (jobs.trace_context),
// handed to the node with the claimed job, and sent with each webhook delivery.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
  type Tracer,
} from "@opentelemetry/api";
import { processState } from "@/lib/singleton";

export { SpanKind, SpanStatusCode, type Span };

/**
 * Whether the standard variables ask for traces. The SDK reads every OTEL_* variable itself; this is the only
 * one the product reads, to decide whether to load it at all.
 */
export function tracingConfigured(environment: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(
    environment.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || environment.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim(),
  );
}

/** Read once per bundle: the variables do not change while a process runs. */
export const tracingOn = tracingConfigured();

/** The attributes of a job's spans (CONTRACT §14): ids and a count, never a key, an address or an input. */
export interface JobSpanAttributes {
  jobId?: string;
  serviceId?: string;
  nodeId?: string | null;
  attempt?: number;
}

export function jobAttributes({ jobId, serviceId, nodeId, attempt }: JobSpanAttributes): Attributes {
  return {
    ...(jobId ? { "execution.job.id": jobId } : {}),
    ...(serviceId ? { "execution.service.id": serviceId } : {}),
    ...(nodeId ? { "execution.node.id": nodeId } : {}),
    ...(attempt !== undefined ? { "execution.attempt": attempt } : {}),
  };
}

const traceparentPattern = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The W3C traceparent of a span context (version 00). */
export function traceparentOf(spanContext: SpanContext): string {
  return `00-${spanContext.traceId}-${spanContext.spanId}-${spanContext.traceFlags.toString(16).padStart(2, "0")}`;
}

/** A context whose parent is the span a W3C traceparent names; the root context for anything else. */
export function contextOf(traceparent: string | null | undefined): Context {
  const parsed = traceparent ? traceparentPattern.exec(traceparent) : null;
  if (!parsed) return ROOT_CONTEXT;
  const spanContext = { traceId: parsed[1], spanId: parsed[2], traceFlags: parseInt(parsed[3], 16), isRemote: true };
  return trace.isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}

/** The traceparent of the active span, when tracing is on and one is active (a job created now joins it). */
export function activeTraceparent(): string | null {
  if (!tracingOn) return null;
  const active = trace.getSpanContext(context.active());
  return active && trace.isSpanContextValid(active) ? traceparentOf(active) : null;
}

/** The propagation headers (traceparent, tracestate) of the active context, added to `headers` when tracing is on. */
export function injectActiveContext(headers: Record<string, string>): Record<string, string> {
  if (tracingOn) propagation.inject(context.active(), headers);
  return headers;
}

export interface SpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent: a context, or a W3C traceparent (a job's stored one); the active context when absent. */
  parent?: Context | string | null;
  startTime?: number;
}

const parentContext = (parent: SpanOptions["parent"]) =>
  parent === undefined ? context.active() : typeof parent === "string" || parent === null ? contextOf(parent) : parent;

/** Starts a span (tracing on) that the caller ends; undefined when tracing is off. */
export function startSpan(name: string, options: SpanOptions = {}): Span | undefined {
  if (!tracingOn) return undefined;
  const { parent, ...spanOptions } = options;
  return tracer()?.startSpan(name, spanOptions, parentContext(parent));
}

/**
 * Runs `work` inside a span (tracing on), active for everything `work` does; the span ends when it settles, in
 * error when it throws. Off, `work` runs alone with no span.
 */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  const span = startSpan(name, options);
  if (!span) return work(undefined);
  try {
    return await context.with(trace.setSpan(parentContext(options.parent), span), () => work(span));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : undefined });
    throw error;
  } finally {
    span.end();
  }
}

/**
 * Where a request's own server span is kept in its context (lib/http/request-tracing.ts): the handlers see only
 * its span context as the active span, so Next.js cannot write onto it, and the product's code adds to it here.
 * A global symbol: the server's request scope and each route's bundle hold their own copies of this module.
 */
export const requestSpanKey = Symbol.for("execution-network.request-span");

/**
 * Adds attributes to the active request's server span, when it records: the submission is its request's span,
 * carrying the job's ids, rather than a child span of its own (one span fewer per job, CONTRACT §14).
 */
export function annotateRequestSpan(attributes: () => Attributes): void {
  if (!tracingOn) return;
  const span = context.active().getValue(requestSpanKey) as Span | undefined;
  if (span?.isRecording()) span.setAttributes(attributes());
}

/** Runs `work` with `parent` as the active context (the handlers under a server span). */
export function withParent<T>(parent: Context, work: () => T): T {
  return context.with(parent, work);
}

interface TracingState {
  /** The SDK's tracer (not registered globally: lib/tracing-sdk.ts says why), once it started. */
  tracer?: Tracer;
  stop?: () => Promise<void>;
}
const state = () => processState<TracingState>("tracing", () => ({}));

/** This bundle's copy of the process's tracer (read once it exists: a span before the SDK started is dropped). */
let started: Tracer | undefined;
const tracer = (): Tracer | undefined => (started ??= state().tracer);

/**
 * Starts the SDK once per process when the variables ask for traces (`serviceName` unless OTEL_SERVICE_NAME or
 * OTEL_RESOURCE_ATTRIBUTES names one); does nothing, and loads nothing, otherwise.
 */
export async function startTracing(serviceName: string): Promise<void> {
  if (!tracingOn || state().stop) return;
  const { startTracingSdk } = await import("./tracing-sdk");
  const { provider, stop } = await startTracingSdk(serviceName);
  state().tracer = provider.getTracer("execution-network");
  state().stop = stop;
}

/** How long a process ending waits for its last spans: a collector that is down must not hold the exit. */
const flushLimitMs = 3_000;

/** Exports what is still buffered and stops the SDK (a process ending), waiting at most `flushLimitMs`. */
export async function stopTracing(): Promise<void> {
  const stop = state().stop;
  state().stop = undefined;
  if (!stop) return;
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, flushLimitMs);
    timer.unref();
  });
  await Promise.race([stop().catch(() => undefined), limit]);
  clearTimeout(timer);
}
