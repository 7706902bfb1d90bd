// A serving process's start-up, called by instrumentation.ts when server.mjs prepares Next.js: configuration,
// the database (migrated; on the embedded one, DATA_DIR's lock), the execution network's services and, on the
// embedded database, the operator socket. It runs in the background, so /api/health answers "starting" until
// it is done; a fatal error ends the process with one line and a non-zero exit, so a supervisor sees it
// (and restarts it) instead of a server that answers 500 forever. It also hands server.mjs, which runs
// outside the build, the server's edge (lib/http/server-edge.ts) and the graceful stop.
import type { RequestListener, Server } from "node:http";
import { env } from "@/lib/env";
import { coalesceHeaderWrites } from "@/lib/http/coalesced-writes";
import type { DeclaredHandler } from "@/lib/http/api";
import { keepIdleConnections, serverEdge, type ServerEdge } from "@/lib/http/server-edge";
import { closeDatabase } from "@/lib/db/open";
import { listenForKeyChanges } from "@/lib/domain/api-key-cache";
import { readyDatabase } from "@/lib/domain/database";
import { log } from "@/lib/log";
import { startNetworkServices, stopNetworkServices } from "@/lib/network/embedded";
import { startOperatorSocket } from "@/lib/operator/socket";
import { checkPaymentsAtStart } from "@/lib/payments/watcher";
import { processSingleton } from "@/lib/singleton";
import { stopTracing } from "@/lib/tracing";

const serving = processSingleton("serving", async () => {
  const config = env();
  // Each answer's headers and body in one write (lib/http/coalesced-writes.ts).
  coalesceHeaderWrites();
  const database = await readyDatabase();
  // Every instance drops revoked keys and says so from the start (revocations wait for each one's word).
  await listenForKeyChanges();
  await checkPaymentsAtStart();
  await startNetworkServices();
  const stopOperatorSocket =
    database.driver === "pglite" && !config.DATA_DIR.startsWith("memory://")
      ? await startOperatorSocket(config.DATA_DIR)
      : undefined;
  return { stopOperatorSocket };
});

/** Whether start-up has not begun (a test harness), is running, or is done. */
export const servingState = () => serving.state();

/** The error's message on one line (configuration errors list each variable). */
const oneLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, " ");

/**
 * What server.mjs leaves on globalThis before Next.js loads the build, for the build's start-up to fill in:
 * server.mjs is plain JavaScript run by Node, the edge and the direct routes are compiled into the build.
 */
interface ServerSlot {
  /** The edge before `next` (Next.js's request handler) on `server`, which a signal then closes. */
  serve?: (server: Server, next: RequestListener) => ServerEdge;
}
const serverSlotKey = Symbol.for("execution-network.server");

/** The HTTP servers server.mjs serves through the edge: a signal stops them taking connections first. */
const servers = new Set<Server>();

const fail = (error: unknown) => {
  // The one line below is what a person reads; the stack is there for whoever asks for it.
  log.debug("start-up failed", { err: error });
  process.stderr.write(`Execution Network cannot start: ${oneLine(error)}\n`);
  process.exit(1);
};

/**
 * Starts serving in the background; a failure prints one line and exits 1. server.mjs gets the edge every
 * request meets first, with `directRoutes` answered beside Next.js's router (lib/http/direct-routes.ts). A
 * production server started another way (`next start`) would serve without that edge: it is refused. Under
 * `next dev` nothing is handed over (its edits to the direct routes would not reach the copies loaded here).
 */
export function startServing(directRoutes: readonly DeclaredHandler[] = []): void {
  const slot = (globalThis as { [serverSlotKey]?: ServerSlot })[serverSlotKey];
  if (slot) {
    slot.serve = (server, next) => {
      servers.add(keepIdleConnections(server));
      return serverEdge(next, directRoutes);
    };
  } else if (process.env.NODE_ENV === "production") {
    return fail(
      "start it with `npm start` or `node server.mjs`: `next start` would serve without the server's edge (lib/http/server-edge.ts).",
    );
  }
  serving.get().catch(fail);
}

async function stopServing(): Promise<void> {
  // No new connections; idle keep-alive ones close now, open ones (event streams, long polls) below.
  for (const server of servers) server.close();
  const running = serving.take();
  await (await running?.catch(() => undefined))?.stopOperatorSocket?.();
  await stopNetworkServices();
  for (const server of servers) server.closeAllConnections();
  try {
    await closeDatabase();
  } finally {
    // Last, even when the database would not close: the spans of everything above are exported.
    await stopTracing();
  }
}

/** SIGTERM/SIGINT: stop accepting, stop claiming, finish or release running jobs, close the operator socket and the database, then exit. */
export function stopOnSignals(): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    stopServing()
      .catch((err: unknown) => log.error("shutdown failed", { err }))
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
