// Time-driven transitions, run by every server instance (rows are taken with SKIP LOCKED, so instances
// never act on the same job twice): expired leases → NODE_LOST, due retries → routing, routing past its
// timeout → ROUTING_FAILED, and idempotency keys, sessions and sign-in nonces past use.
import { and, asc, eq, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/lib/db/client";
import { jobs, rateLimits } from "@/lib/db/schema";
import { purgeIdempotencyKeys } from "@/lib/domain/idempotency";
import { Computed, recordJobChange, recordStopOutcome, type JobRow } from "@/lib/domain/job-log";
import { heldStatuses, stopOutcome, unroutableMessage } from "@/lib/domain/job-machine";
import { db } from "@/lib/domain/database";
import { purgeDeadSessions } from "@/lib/domain/sessions";
import { purgeSpentNonces } from "@/lib/domain/sign-in";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { loseJobs } from "./coordinator";

const batch = 200;

async function lockDue(where: SQL | undefined, write: (tx: Tx, rows: JobRow[]) => Promise<unknown>): Promise<number> {
  const d = await db();
  return d.transaction(async (tx) => {
    const rows = await tx
      .select()
      .from(jobs)
      .where(where)
      .orderBy(asc(jobs.createdAt))
      .limit(batch)
      .for("update", { skipLocked: true });
    if (rows.length > 0) await write(tx, rows);
    return rows.length;
  });
}

/** Jobs whose lease ran out (their node stopped heart-beating): NODE_LOST, then routed again or failed. */
export async function loseExpiredLeases(): Promise<number> {
  return lockDue(and(inArray(jobs.status, [...heldStatuses]), lt(jobs.leaseExpiresAt, sql`now()`)), (tx, rows) =>
    loseJobs(tx, rows, "lease expired"),
  );
}

export async function promoteDueRetries(): Promise<number> {
  return lockDue(and(eq(jobs.status, "retrying"), lt(jobs.nextAttemptAt, sql`now()`)), async (tx, rows) => {
    for (const job of rows) {
      await recordJobChange(tx, job.id, {
        to: "routing",
        from: ["retrying"],
        set: { routingStartedAt: Computed.now, nextAttemptAt: null },
        events: [{ type: "ROUTING_STARTED", data: { attempt: job.attempt + 1 } }],
      });
    }
  });
}

export async function failUnroutable(): Promise<number> {
  const timeoutMs = env().ROUTING_TIMEOUT_MS;
  return lockDue(
    and(eq(jobs.status, "routing"), lt(jobs.routingStartedAt, sql`now() - make_interval(secs => ${timeoutMs / 1000})`)),
    async (tx, rows) => {
      for (const job of rows) {
        await recordStopOutcome(tx, job.id, stopOutcome(job, { kind: "unroutable", waitedMs: timeoutMs }), {
          from: ["routing"],
          events: [{ type: "ROUTING_FAILED", data: { waitedMs: timeoutMs, serviceId: job.serviceId } }],
          logs: [{ level: "error", source: "platform", message: unroutableMessage(timeoutMs) }],
        });
      }
    },
  );
}

let lastPurge = 0;

export async function sweepOnce(): Promise<void> {
  await loseExpiredLeases();
  await promoteDueRetries();
  await failUnroutable();
  if (Date.now() - lastPurge > 60_000) {
    lastPurge = Date.now();
    await purgeIdempotencyKeys(await db(), env().IDEMPOTENCY_TTL_HOURS);
    await purgeDeadSessions();
    await purgeSpentNonces();
    await (await db()).delete(rateLimits).where(lt(rateLimits.expire, sql`now()`));
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
