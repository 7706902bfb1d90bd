// http_server_request_duration_seconds for every request of every HTTP server in the process (Next.js's,
// the direct routes, the test router), timed on the documented node:http diagnostics channels from the
// request's arrival to its answer's end. The route label is the declared pattern (/api/developers/jobs/{jobId}),
// never the raw path: "" for anything no API route declares (pages, assets, unknown paths), so it stays bounded.
import { subscribe } from "node:diagnostics_channel";
import type { IncomingMessage, ServerResponse } from "node:http";
import { metrics } from "@/lib/metrics";
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

const startedAt = new WeakMap<IncomingMessage, number>();

/** Called once per process (server-edge.ts's guardServers). */
export function measureRequests(): void {
  subscribe("http.server.request.start", (message) => {
    startedAt.set((message as { request: IncomingMessage }).request, performance.now());
  });
  subscribe("http.server.response.finish", (message) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    const start = startedAt.get(request);
    if (start === undefined) return;
    metrics().requestDuration.observe(
      {
        http_request_method: knownMethods.has(request.method ?? "") ? (request.method as string) : "_OTHER",
        http_route: routeOf(request.url),
        http_response_status_code: String(response.statusCode),
      },
      (performance.now() - start) / 1000,
    );
  });
}
