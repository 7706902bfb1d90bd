// Time-driven transitions (the sweeper runs them on every server instance; rows are taken with SKIP LOCKED,
// so instances never act on the same job twice): expired leases → NODE_LOST, due retries → routing, routing
// past its timeout → ROUTING_FAILED.
import { and, asc, eq, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { jobs } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { env } from "@/lib/env";
import { applyJobChange } from "./apply-change";
import { Computed, type JobRow } from "./job-change";
import { heldStatuses, stopOutcome, unroutableMessage } from "./job-machine";
import { expireLeases } from "./lost-jobs";
import { applyStopOutcome } from "./stop-outcomes";

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

// What each sweep looks for; the probe below and each sweep's locking read use the same condition.
const expiredLeases = () => and(inArray(jobs.status, [...heldStatuses]), lt(jobs.leaseExpiresAt, sql`now()`));
const dueRetries = () => and(eq(jobs.status, "retrying"), lt(jobs.nextAttemptAt, sql`now()`));
const overdueRouting = () =>
  and(
    eq(jobs.status, "routing"),
    lt(jobs.routingStartedAt, sql`now() - make_interval(secs => ${env().ROUTING_TIMEOUT_MS / 1000})`),
  );

export interface DueSweeps {
  leases: boolean;
  retries: boolean;
  routing: boolean;
}

/**
 * Which sweeps have a job due, in one read that takes no lock: the sweeper runs twice a second on every
 * instance, and an idle one then sends one statement a tick instead of three transactions (nine round
 * trips). A job that falls due just after the probe is found on the next tick, as it would have been.
 */
export async function dueSweeps(): Promise<DueSweeps> {
  const result = await (
    await db()
  ).execute(sql`select
    exists (select 1 from ${jobs} where ${expiredLeases()}) as leases,
    exists (select 1 from ${jobs} where ${dueRetries()}) as retries,
    exists (select 1 from ${jobs} where ${overdueRouting()}) as routing`);
  const [row] = (result as unknown as { rows: DueSweeps[] }).rows;
  return row;
}

/**
 * Jobs whose lease ran out: their node stopped heart-beating (NODE_LOST, then routed again or failed), or a
 * developer's node's attempt reached its deadline (TIMEOUT, retried or failed).
 */
export async function loseExpiredLeases(): Promise<number> {
  return lockDue(expiredLeases(), expireLeases);
}

export async function promoteDueRetries(): Promise<number> {
  return lockDue(dueRetries(), async (tx, rows) => {
    for (const job of rows) {
      await applyJobChange(tx, job.id, {
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
  return lockDue(overdueRouting(), async (tx, rows) => {
    for (const job of rows) {
      await applyStopOutcome(tx, job.id, stopOutcome(job, { kind: "unroutable", waitedMs: timeoutMs }), {
        from: ["routing"],
        events: [{ type: "ROUTING_FAILED", data: { waitedMs: timeoutMs, serviceId: job.serviceId } }],
        logs: [{ level: "error", source: "platform", message: unroutableMessage(timeoutMs) }],
      });
    }
  });
}
