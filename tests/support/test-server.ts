// A real HTTP server on 127.0.0.1 serving the app's real route handlers (no Next build), with a fresh
// in-memory database (or TEST_DATABASE_URL's PostgreSQL), the sweeper and embedded nodes.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { NextRequest } from "next/server";
import { nodeHeadersOf, toWebRequest } from "@/lib/http/direct-routes";
import { edgeServer, serverEdge } from "@/lib/http/server-edge";
import { proxy } from "@/proxy";
import { createScratchDatabase, usePostgres } from "./postgres";
import { freePort } from "./next-server";
import { findRoutes, matchRoute, type RouteModule } from "./route-table";

export interface TestServer {
  baseUrl: string;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Configuration applied before the app is loaded (each test file is its own process). */
  env?: Record<string, string>;
  embeddedNodes?: number;
  port?: number;
  /** Share an existing PostgreSQL database (several coordinator instances). */
  databaseUrl?: string;
}

async function writeResponse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers = nodeHeadersOf(response);
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
  }
  res.end();
}

type Handler = NonNullable<RouteModule[string]>;

/**
 * What `next start` does before (or instead of) calling a route handler, checked against it by
 * tests/next-start/real-server.test.ts: a trailing slash is a 308 to the path without it; then our proxy.ts
 * runs where its matcher says (pages' security headers; the envelope's 404 for a malformed API path);
 * HEAD runs GET and drops the body; OPTIONS without a handler is 204 with the route's methods in Allow; any
 * other method the route does not export is a bare 405 (no API route lacks one: each re-exports
 * lib/http/other-methods.ts). Not reproduced here: compression, `poweredByHeader`, next.config headers and instrumentation.ts (startNetworkServices is
 * called directly).
 */
async function nextLikeAnswer(
  url: URL,
  method: string,
  proxied: Response,
  routes: ReturnType<typeof findRoutes>,
  load: (file: string) => Promise<RouteModule>,
): Promise<Response | { handler: Handler; params: Record<string, string | string[]>; withoutBody: boolean }> {
  if (url.pathname.length > 1 && url.pathname.endsWith("/")) {
    const location = url.pathname.replace(/\/+$/, "") + url.search;
    return new Response(location, { status: 308, headers: { location, refresh: `0;url=${location}` } });
  }
  if (!proxied.headers.has("x-middleware-next")) return proxied;
  let match: ReturnType<typeof matchRoute>;
  try {
    match = matchRoute(routes, url.pathname);
  } catch (err) {
    if (!(err instanceof URIError)) throw err;
    return new Response("Internal Server Error", { status: 500, headers: { "content-type": "text/plain" } });
  }
  if (!match) return new Response(null, { status: 404 });
  const mod = await load(match.route.file);
  const exported = Object.keys(mod).filter((name) => /^[A-Z]+$/.test(name) && typeof mod[name] === "function");
  const own = mod[method];
  if (own) return { handler: own, params: match.params, withoutBody: false };
  if (method === "HEAD" && mod.GET) return { handler: mod.GET, params: match.params, withoutBody: true };
  if (method === "OPTIONS") {
    const allow = [...new Set([...exported, ...(mod.GET ? ["HEAD"] : []), "OPTIONS"])].sort();
    return new Response(null, { status: 204, headers: { allow: allow.join(", ") } });
  }
  return new Response(null, { status: 405 });
}

/** The request as the route sees it after proxy.ts: with the request headers the proxy set (NextResponse.next). */
function withProxiedHeaders(request: Request, proxied: Response): Request {
  const overridden = proxied.headers.get("x-middleware-override-headers");
  if (!overridden) return request;
  const headers = new Headers();
  for (const name of overridden.split(",")) {
    const value = proxied.headers.get(`x-middleware-request-${name}`);
    if (value !== null) headers.set(name, value);
  }
  // @ts-expect-error Node's fetch needs duplex for streamed request bodies.
  return new Request(request, { headers, duplex: "half" });
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const scratch = options.databaseUrl || !usePostgres() ? undefined : await createScratchDatabase();
  const port = options.port || (await freePort());
  const databaseUrl = options.databaseUrl ?? scratch?.url;
  Object.assign(process.env, {
    DATA_DIR: "memory://",
    LOG_LEVEL: "warn",
    SESSION_SECRET: "test-session-secret-that-is-long-enough-0123456789",
    EMBEDDED_NODES: String(options.embeddedNodes ?? 1),
    SWEEP_INTERVAL_MS: "50",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
    // The port it listens on, as `PORT=… npm start` has it: the embedded nodes' names carry it, so two
    // instances on one machine and database are two sets of nodes (one name would be one node whose token
    // each instance re-issues, failing the other's start).
    PORT: String(port),
  });
  const routes = findRoutes(path.join(process.cwd(), "app", "api"));
  const modules = new Map<string, Promise<RouteModule>>();
  const load = (file: string) => {
    if (!modules.has(file))
      modules.set(file, import(/* @vite-ignore */ pathToFileURL(file).href) as Promise<RouteModule>);
    return modules.get(file) as Promise<RouteModule>;
  };
  let baseUrl = "";
  // As in server.mjs: every request meets the server's edge (methods no route has, unread bodies, the socket
  // address for per-IP limits) before the router.
  const server: Server = edgeServer(
    serverEdge((req, res) => {
      const aborter = new AbortController();
      res.on("close", () => aborter.abort());
      void (async () => {
        try {
          const url = new URL(req.url ?? "/", baseUrl);
          const request = toWebRequest(req, aborter.signal, baseUrl);
          // Every request, though Next.js runs proxy.ts only where its matcher says: on an API path the matcher
          // skips, the proxy passes the request on untouched (lib/http/proxy.test.ts checks both), so the
          // answer is the same, and this router need not load Next.js's matcher code (which wants its runtime).
          const proxied = proxy(new NextRequest(request.url, { method: request.method, headers: request.headers }));
          const answer = await nextLikeAnswer(url, req.method ?? "GET", proxied, routes, load);
          if (answer instanceof Response) return void (await writeResponse(req, res, answer));
          const response = await answer.handler(withProxiedHeaders(request, proxied), {
            params: Promise.resolve(answer.params),
          });
          if (answer.withoutBody) await response.body?.cancel();
          const final = answer.withoutBody ? new Response(null, response) : response;
          for (const [name, value] of proxied.headers)
            if (!name.startsWith("x-middleware-")) final.headers.set(name, value);
          await writeResponse(req, res, final);
        } catch (err) {
          if (!res.headersSent) res.writeHead(500);
          res.end(String(err));
        }
      })();
    }),
  );
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The app's origin comes from configuration only (never from request headers): this server's own address.
  process.env.APP_ORIGIN ??= baseUrl;
  // The dashboard's Run calls the execution API: this same server.
  process.env.EXECUTION_API_URL ??= baseUrl;
  // What lib/serving.ts does at start: listen for key changes, start the network.
  const { listenForKeyChanges } = await import("@/lib/domain/api-key-cache");
  await listenForKeyChanges();
  const { startNetworkServices } = await import("@/lib/network/embedded");
  await startNetworkServices();

  return {
    baseUrl,
    async close() {
      const { stopNetworkServices } = await import("@/lib/network/embedded");
      await stopNetworkServices(2_000);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const { closeDatabase } = await import("@/lib/db/open");
      const { resetReady } = await import("@/lib/domain/database");
      await closeDatabase();
      resetReady();
      await scratch?.drop();
    },
  };
}
