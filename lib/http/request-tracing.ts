// A server span per API request (CONTRACT §14), when tracing is on (lib/tracing.ts): a request scope
// (lib/http/request-hooks.ts) that continues an incoming traceparent, names the span by the declared route
// (`POST /api/developers/jobs`), and ends it with the answer's status. Its attributes are the HTTP semantic
// conventions' method, route and status code: never the path's values, the query, a header or an address.
import { propagation, ROOT_CONTEXT, trace } from "@opentelemetry/api";
import { requestSpanKey, SpanKind, SpanStatusCode, startSpan, tracingOn, withParent } from "@/lib/tracing";
import { aroundEveryRequest, type RequestScope } from "./request-hooks";
import { methodOf, routeOf } from "./request-metrics";

const traceRequest: RequestScope = (req, res, next) => {
  if (!req.url?.startsWith("/api/")) return next();
  const method = methodOf(req);
  const route = routeOf(req.url);
  const caller = propagation.extract(ROOT_CONTEXT, req.headers);
  const span = startSpan(route ? `${method} ${route}` : method, {
    kind: SpanKind.SERVER,
    parent: caller,
    attributes: { "http.request.method": method, ...(route ? { "http.route": route } : {}) },
  });
  if (!span) return next();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    // A request whose connection closed before its answer ended keeps the status it was about to send.
    span.setAttribute("http.response.status_code", res.statusCode);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  };
  res.once("finish", end).once("close", end);
  // The handlers see the span's context, not the span itself: Next.js's router would otherwise write its own
  // route form (`[jobId]`) and name onto the active span. The product's code reaches it under its own key.
  const active = trace.setSpan(caller, trace.wrapSpanContext(span.spanContext())).setValue(requestSpanKey, span);
  withParent(active, next);
};

const tracedKey = Symbol.for("execution-network.request-tracing");

/** Once per process (server-edge.ts, for each server it serves), and only with tracing on. */
export function traceRequests(): void {
  const shared = globalThis as { [tracedKey]?: boolean };
  if (!tracingOn || shared[tracedKey]) return;
  shared[tracedKey] = true;
  aroundEveryRequest(traceRequest);
}
