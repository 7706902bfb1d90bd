// Time-driven transitions (the sweeper runs them on every server instance; rows are taken with SKIP LOCKED,
// so instances never act on the same job twice): expired leases → NODE_LOST, due retries → routing, routing
// past its timeout → ROUTING_FAILED.
import { asc, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { executeShaped, sqlLiterals } from "@/lib/db/prepared-statements";
import { jobs, listCountDeltas, usageDeltas } from "@/lib/db/schema";
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

// What each sweep looks for; the probe below and each sweep's locking read use the same condition. Statuses
// are literals, not parameters: the probe is a prepared statement, and only a literal lets its generic plan
// use the partial indexes whose predicates name them.
const heldStatusList = sqlLiterals(heldStatuses);
const expiredLeases = () => sql`${jobs.status} in (${heldStatusList}) and ${jobs.leaseExpiresAt} < now()`;
const dueRetries = () => sql`${jobs.status} = 'retrying' and ${jobs.nextAttemptAt} < now()`;
/** `timeoutSeconds`: ROUTING_TIMEOUT_MS in seconds, bound as a value (the locking read) or a placeholder (the probe). */
const overdueRouting = (timeoutSeconds: number | Placeholder) =>
  sql`${jobs.status} = 'routing' and ${jobs.routingStartedAt} < now() - make_interval(secs => ${timeoutSeconds}::double precision)`;

export interface DueSweeps {
  leases: boolean;
  retries: boolean;
  routing: boolean;
  /** Deltas of the kept list totals and of the usage rollups are waiting to be folded (the sweeper's folds). */
  listCounts: boolean;
  usage: boolean;
}

const dueSweepsStatement = () => sql`select
    exists (select 1 from ${jobs} where ${expiredLeases()}) as leases,
    exists (select 1 from ${jobs} where ${dueRetries()}) as retries,
    exists (select 1 from ${jobs} where ${overdueRouting(sql.placeholder("routingTimeoutSeconds"))}) as routing,
    exists (select 1 from ${listCountDeltas}) as "listCounts",
    exists (select 1 from ${usageDeltas}) as usage`;

/**
 * Which sweeps and folds have work due, in one read that takes no lock, prepared once per connection: the
 * sweeper runs twice a second on every instance, and an idle one then sends this one statement a tick (it
 * sent three, each planned anew: an idle server's PostgreSQL spent 8 ms of CPU a second on them). Work that
 * falls due just after the probe is found on the next tick, as it would have been.
 */
export async function dueSweeps(): Promise<DueSweeps> {
  const [row] = await executeShaped<DueSweeps>(await db(), "due_sweeps", "", dueSweepsStatement, {
    routingTimeoutSeconds: env().ROUTING_TIMEOUT_MS / 1000,
  });
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
  return lockDue(overdueRouting(timeoutMs / 1000), async (tx, rows) => {
    for (const job of rows) {
      await applyStopOutcome(tx, job.id, stopOutcome(job, { kind: "unroutable", waitedMs: timeoutMs }), {
        from: ["routing"],
        events: [{ type: "ROUTING_FAILED", data: { waitedMs: timeoutMs, serviceId: job.serviceId } }],
        logs: [{ level: "error", source: "platform", message: unroutableMessage(timeoutMs) }],
      });
    }
  });
}
