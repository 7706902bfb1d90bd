// http_server_request_duration_seconds for every request the server takes (server.mjs's, and the test
// router's), timed by a request hook (lib/http/request-hooks.ts) from the request's arrival at the server's
// edge to its answer's end. The route label is the declared pattern (/api/developers/jobs/{jobId}), never the
// raw path: "" for anything no API route declares (pages, assets, unknown paths), so it stays bounded.
import type { IncomingMessage, ServerResponse } from "node:http";
import { metrics } from "@/lib/metrics";
import { onEveryRequest } from "./request-hooks";
import { routes } from "./routes";

interface RoutePattern {
  route: string;
  test: RegExp;
}

const patterns: RoutePattern[] = [...new Set(Object.values(routes).map((r) => r.path as string))]
  .map((route) => ({
    route,
    test: new RegExp(`^${route.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}/]+\}/g, "[^/]+")}/?$`),
  }))
  // A literal segment wins over a parameter in the same place (/api/developers/keys/{keyId} vs …/keys/x/rotate).
  .sort((a, b) => (a.route.match(/\{/g)?.length ?? 0) - (b.route.match(/\{/g)?.length ?? 0));

/** The declared route pattern a path belongs to, or "" when no API route declares it. */
export function routeOf(url: string | undefined): string {
  const path = (url ?? "/").split("?", 1)[0] ?? "/";
  if (!path.startsWith("/api/")) return "";
  return patterns.find((p) => p.test.test(path))?.route ?? "";
}

/** OpenTelemetry's rule: the methods of HTTP itself by name, any other as _OTHER. */
const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]);
export const methodOf = (request: IncomingMessage) =>
  knownMethods.has(request.method ?? "") ? (request.method as string) : "_OTHER";

function observe(request: IncomingMessage, response: ServerResponse, startedAt: number): void {
  metrics().requestDuration.observe(
    {
      http_request_method: methodOf(request),
      http_route: routeOf(request.url),
      http_response_status_code: String(response.statusCode),
    },
    (performance.now() - startedAt) / 1000,
  );
}

const measuredKey = Symbol.for("execution-network.request-metrics");

/** Once per process (server-edge.ts, for each server it serves): every request's duration is observed. */
export function measureRequests(): void {
  // Flagged on globalThis: Next.js may load this module more than once in one process (separate bundles).
  const shared = globalThis as { [measuredKey]?: boolean };
  if (shared[measuredKey]) return;
  shared[measuredKey] = true;
  onEveryRequest((request, response) => {
    const startedAt = performance.now();
    response.once("finish", () => observe(request, response, startedAt));
  });
}
