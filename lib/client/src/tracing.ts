// The caller's trace, carried to the server (CONTRACT §14): when `@opentelemetry/api` (an optional peer
// dependency) is installed and the caller has an active span, each request sends the propagation headers of the
// caller's own OpenTelemetry set-up (`traceparent`, W3C Trace Context), so the job joins the caller's trace.
// Without the package nothing is sent and nothing fails; it is loaded once, on the first request.

/** The three calls used here, so the package's types never name @opentelemetry/api. */
interface OpenTelemetryApi {
  context: { active(): unknown };
  propagation: { inject(context: unknown, carrier: Record<string, string>): void };
  trace: { getSpanContext(context: unknown): unknown };
}

// A name in a variable keeps the type checker off the optional package; the comments keep bundlers (webpack,
// Turbopack, Vite) from replacing the import with a stub that always fails when the caller's app is bundled, so
// Node resolves the package at run time from wherever the app runs.
const apiPackage = "@opentelemetry/api";
let loading: Promise<OpenTelemetryApi | undefined> | undefined;

const openTelemetryApi = () =>
  (loading ??= import(/* webpackIgnore: true */ /* turbopackIgnore: true */ /* @vite-ignore */ apiPackage).then(
    (api: OpenTelemetryApi) => api,
    () => undefined,
  ));

/** The headers that carry the caller's active trace; none without the package or an active span. @internal */
export async function traceHeaders(): Promise<Record<string, string>> {
  const api = await openTelemetryApi();
  const active = api?.context.active();
  if (!api || !api.trace.getSpanContext(active)) return {};
  const headers: Record<string, string> = {};
  api.propagation.inject(active, headers);
  return headers;
}
