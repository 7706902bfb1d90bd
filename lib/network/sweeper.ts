// Time-driven work, run by every server instance: the engine's sweeps (lib/engine/sweeps.ts: expired
// leases, due retries, routing timeouts), idempotency keys, sessions and sign-in nonces past use, and old final
// jobs' events and log lines (JOB_RETENTION_DAYS), and the kept list totals' and usage rollups' deltas folded.
import { lt, sql } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { rateLimits } from "@/lib/db/schema";
import { purgeIdempotencyKeys } from "@/lib/domain/idempotency";
import { foldListCountDeltas } from "@/lib/domain/list-counts";
import { db } from "@/lib/domain/database";
import { foldUsageDeltas } from "@/lib/domain/usage-rollups";
import { purgeDeadSessions } from "@/lib/domain/sessions";
import { purgeSpentNonces } from "@/lib/domain/sign-in";
import { pruneOldJobRows } from "@/lib/engine/retention";
import { dueSweeps, failUnroutable, loseExpiredLeases, promoteDueRetries } from "@/lib/engine/sweeps";
import { env } from "@/lib/env";
import { log } from "@/lib/log";

let lastPurge = 0;
const foldBatch = 5000;

/**
 * A burst may write more deltas in an interval than one fold takes: fold on while the batches come back full,
 * up to ten a sweep (50,000 deltas), so a sweep stays short and the backlog still shrinks faster than it grows.
 */
async function foldWhileFull(fold: (d: Tx, batch: number) => Promise<number>): Promise<void> {
  for (let batch = 0; batch < 10 && (await fold(await db(), foldBatch)) === foldBatch; batch++);
}

export async function sweepOnce(): Promise<void> {
  const due = await dueSweeps();
  if (due.leases) await loseExpiredLeases();
  if (due.retries) await promoteDueRetries();
  if (due.routing) await failUnroutable();
  // Every sweep that finds deltas: a kept total's read, and a usage summary's, sums the deltas not yet folded
  // (list-counts.ts, usage-rollups.ts), so a read's cost stays a sweep interval's work.
  if (due.listCounts) await foldWhileFull(foldListCountDeltas);
  if (due.usage) await foldWhileFull(foldUsageDeltas);
  if (Date.now() - lastPurge > 60_000) {
    lastPurge = Date.now();
    await purgeIdempotencyKeys(await db(), env().IDEMPOTENCY_TTL_HOURS);
    await purgeDeadSessions();
    await purgeSpentNonces();
    await (await db()).delete(rateLimits).where(lt(rateLimits.expire, sql`now()`));
    await pruneJobRows();
  }
}

/**
 * At most 20 batches of 500 jobs a minute (10,000 jobs: over 14 million a day), each its own short statement,
 * with the event loop free between them.
 */
async function pruneJobRows(): Promise<void> {
  const days = env().JOB_RETENTION_DAYS;
  if (days === undefined) return;
  for (let batch = 0; batch < 20; batch++) {
    const pruned = await pruneOldJobRows(await db(), days, 500);
    if (pruned.jobs < 500) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Runs the sweep every SWEEP_INTERVAL_MS until the returned stop() is called. */
export function startSweeper(intervalMs = env().SWEEP_INTERVAL_MS): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = sweepOnce()
      .catch((err: unknown) => log.error("sweep failed", { err }))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, intervalMs);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
