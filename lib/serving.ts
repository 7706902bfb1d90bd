// A serving process's start-up, called by instrumentation.ts in `next start`: configuration, the database
// (migrated; on the embedded one, DATA_DIR's lock), the execution network's services and, on the embedded
// database, the operator socket. It runs beside Next's own start, so /api/health answers "starting" until
// it is done; a fatal error ends the process with one line and a non-zero exit, so a supervisor sees it
// (and restarts it) instead of a server that answers 500 forever.
import { env } from "@/lib/env";
import { stampSocketAddresses } from "@/lib/http/client-address";
import { coalesceHeaderWrites } from "@/lib/http/coalesced-writes";
import type { DeclaredHandler } from "@/lib/http/api";
import { guardServers } from "@/lib/http/server-edge";
import { listenForKeyChanges } from "@/lib/domain/api-key-cache";
import { readyDatabase } from "@/lib/domain/database";
import { log } from "@/lib/log";
import { startNetworkServices, stopNetworkServices } from "@/lib/network/embedded";
import { startOperatorSocket } from "@/lib/operator/socket";
import { checkPaymentsAtStart } from "@/lib/payments/watcher";
import { processSingleton } from "@/lib/singleton";

const serving = processSingleton("serving", async () => {
  const config = env();
  // The per-IP sign-in limit needs each request's socket address (lib/http/client-address.ts).
  stampSocketAddresses();
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
 * Starts serving in the background; a failure prints one line and exits 1. Every request meets the server's
 * edge first (lib/http/server-edge.ts); `directRoutes` are answered beside Next.js's router
 * (lib/http/direct-routes.ts), though not under `next dev`, whose edits to them would not reach the copies
 * loaded here.
 */
export function startServing(directRoutes: readonly DeclaredHandler[] = []): void {
  guardServers(process.env.NODE_ENV === "production" ? directRoutes : []);
  serving.get().catch((error: unknown) => {
    // The one line below is what a person reads; the stack is there for whoever asks for it.
    log.debug("start-up failed", { err: error });
    process.stderr.write(`Execution Network cannot start: ${oneLine(error)}\n`);
    process.exit(1);
  });
}

async function stopServing(): Promise<void> {
  const running = serving.take();
  await (await running?.catch(() => undefined))?.stopOperatorSocket?.();
  await stopNetworkServices();
}

/** SIGTERM/SIGINT: stop claiming, finish or release running jobs, close the operator socket, then exit. */
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
