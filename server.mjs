// The product's HTTP server: Next.js as a custom server (https://nextjs.org/docs/app/guides/custom-server) on
// our own http.Server, so every request enters in one place, the server's edge (lib/http/server-edge.ts: the
// request hooks, methods, unread bodies, the direct routes), and only then Next.js's request handler. The edge
// is compiled into the build: instrumentation.ts hands it over (lib/serving.ts) while Next.js prepares.
// Listens as `next start` did: PORT (default 3000) or -p, every interface unless -H, Node's default timeouts
// but a longer idle keep-alive (set by the edge: keepIdleConnections); requests that arrive while Next.js
// prepares wait for it. Run by `npm start` / `npm run serve`.
import { createServer } from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const startedAt = Date.now();
const cannotStart = (reason) => {
  process.stderr.write(`Execution Network cannot start: ${reason}\n`);
  process.exit(1);
};

const { values: args } = parseArgs({
  options: { port: { type: "string", short: "p" }, hostname: { type: "string", short: "H" } },
});
const portText = args.port ?? process.env.PORT ?? "3000";
const port = Number(portText);
if (!/^\d+$/.test(portText) || port > 65535)
  cannotStart(`PORT must be a port number (0 for any free port), not "${portText}".`);
const hostname = args.hostname;
// As the `next` command sets them: the production build, served by the Node.js runtime (instrumentation.ts
// registers only there).
process.env.NODE_ENV ??= "production";
process.env.NEXT_RUNTIME = "nodejs";
const { default: next } = await import("next");

// The build's start-up (lib/serving.ts) hands the edge over here; the slot's presence tells it that it is served
// through this file. In production Next.js runs instrumentation.ts's register() in the background of
// app.prepare(), so the edge is awaited, not assumed.
let handOver;
const handedOver = new Promise((resolve) => (handOver = resolve));
globalThis[Symbol.for("execution-network.server")] = {
  set serve(serve) {
    handOver(serve);
  },
};
const handOverTimeoutMs = 120_000;

const server = createServer();
let readyForRequests;
const edgeReady = new Promise((resolve) => (readyForRequests = resolve));
// Until the edge is ready, each event waits for it (nothing is answered without it); then it has them directly.
const events = ["request", "connect", "clientError"];
const waiting = Object.fromEntries(
  events.map((event) => [event, (...received) => void edgeReady.then((edge) => edge[event](...received))]),
);
for (const event of events) server.on(event, waiting[event]);

server.once("error", (error) =>
  cannotStart(
    error.code === "EADDRINUSE"
      ? `port ${port} is already in use (is a server already running?); stop it or set PORT to a free port.`
      : `cannot listen on port ${port}: ${error.message}`,
  ),
);

server.listen(port, hostname, async () => {
  const listening = server.address().port;
  // As `next start`: the build's configuration reads the port the server listens on (PORT=0 is any free port).
  process.env.PORT = String(listening);
  const shownHost = !hostname || hostname === "0.0.0.0" || hostname === "::" ? "localhost" : hostname;
  const app = next({ dev: false, dir: path.dirname(fileURLToPath(import.meta.url)), hostname, port: listening });
  try {
    await app.prepare();
  } catch (error) {
    cannotStart(error instanceof Error ? error.message : String(error));
  }
  const serve = await Promise.race([
    handedOver,
    new Promise((resolve) => setTimeout(resolve, handOverTimeoutMs).unref()),
  ]);
  if (!serve) cannotStart("the build did not hand over the server's edge within 2 minutes (run `npm run build`).");
  const handle = app.getRequestHandler();
  const edge = serve(server, (req, res) => {
    handle(req, res).catch((error) => {
      // As `next start` answers what its handler throws.
      console.error(`Failed to handle request for ${req.url}`, error);
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  });
  for (const event of events) server.off(event, waiting[event]).on(event, edge[event]);
  readyForRequests(edge);
  const { version } = createRequire(import.meta.url)("next/package.json");
  process.stdout.write(
    `  ▲ Execution Network on Next.js ${version} (server.mjs)\n` +
      `  - Local: http://${shownHost}:${listening}\n` +
      `  ✓ Ready in ${Date.now() - startedAt}ms\n`,
  );
});
