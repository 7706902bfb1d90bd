// A real HTTP server on 127.0.0.1 serving the app's real route handlers (no Next build), with a fresh
// in-memory database (or TEST_DATABASE_URL's PostgreSQL), the sweeper and embedded nodes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { createScratchDatabase, usePostgres } from "./postgres";
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

async function toRequest(req: IncomingMessage, baseUrl: string, signal: AbortSignal): Promise<Request> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) v.forEach((x) => headers.append(k, x));
    else if (v !== undefined) headers.set(k, v);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(new URL(req.url ?? "/", baseUrl), {
    method: req.method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    // @ts-expect-error Node's fetch needs duplex for streamed request bodies.
    duplex: "half",
    signal,
  });
}

async function writeResponse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  // A response sent before the request body was read (413) must not leave the connection reusable.
  if (!req.complete) headers.connection = "close";
  response.headers.forEach((value, key) => {
    if (key === "set-cookie") headers[key] = response.headers.getSetCookie();
    else headers[key] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    if (!res.write(chunk)) await new Promise((r) => res.once("drain", r));
  }
  res.end();
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const scratch = options.databaseUrl || !usePostgres() ? undefined : await createScratchDatabase();
  const databaseUrl = options.databaseUrl ?? scratch?.url;
  Object.assign(process.env, {
    DATA_DIR: "memory://",
    LOG_LEVEL: "warn",
    SESSION_SECRET: "test-session-secret-that-is-long-enough-0123456789",
    EMBEDDED_NODES: String(options.embeddedNodes ?? 1),
    SWEEP_INTERVAL_MS: "50",
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...options.env,
  });
  const routes = findRoutes(path.join(process.cwd(), "app", "api"));
  const modules = new Map<string, Promise<RouteModule>>();
  const load = (file: string) => {
    if (!modules.has(file)) modules.set(file, import(/* @vite-ignore */ pathToFileURL(file).href) as Promise<RouteModule>);
    return modules.get(file) as Promise<RouteModule>;
  };
  let baseUrl = "";
  const server: Server = createServer((req, res) => {
    const aborter = new AbortController();
    res.on("close", () => aborter.abort());
    void (async () => {
      try {
        const url = new URL(req.url ?? "/", baseUrl);
        const match = matchRoute(routes, url.pathname);
        const mod = match ? await load(match.route.file) : undefined;
        const handler = mod?.[req.method ?? "GET"];
        if (!match || !handler) {
          res.writeHead(match ? 405 : 404).end();
          return;
        }
        const response = await handler(await toRequest(req, baseUrl, aborter.signal), { params: Promise.resolve(match.params) });
        await writeResponse(req, res, response);
      } catch (err) {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(err));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The app's origin comes from configuration only (never from request headers): this server's own address.
  process.env.APP_ORIGIN ??= baseUrl;
  const { startNetworkServices } = await import("@/lib/network/embedded");
  await startNetworkServices();

  return {
    baseUrl,
    async close() {
      const { stopNetworkServices } = await import("@/lib/network/embedded");
      await stopNetworkServices(2_000);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      const { closeDatabase } = await import("@/lib/db/client");
      const { resetReady } = await import("@/lib/domain/database");
      await closeDatabase();
      resetReady();
      await scratch?.drop();
    },
  };
}
