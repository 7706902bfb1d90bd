// Helpers for the engine's tests (tests/integration/engine-*.test.ts): nodes registered in-process, and
// everything a job change writes, read straight from the database, so a test can assert what one engine call
// appended — and that a refused one appended nothing.
import { sql, type SQL } from "drizzle-orm";
import { db } from "@/lib/domain/database";
import { eventTypesOf } from "@/lib/domain/webhook-events";
import { authenticateNode, issueNodeToken, registerNode } from "@/lib/network/coordinator";
import type { JobStatus } from "@/lib/contract/vocabulary";

export async function rowsOf<T>(query: SQL): Promise<T[]> {
  return ((await (await db()).execute(query)) as unknown as { rows: T[] }).rows;
}

/**
 * Folds every usage delta into the rollups, waiting for any fold another caller (the sweeper) has under way, so the
 * rollup tables hold all the work written so far (`batch` deltas a statement).
 */
export async function foldAllUsage(batch?: number): Promise<void> {
  const { foldUsageDeltas } = await import("@/lib/domain/usage-rollups");
  const left = async () => (await rowsOf<{ n: number }>(sql`select count(*)::int as n from usage_deltas`))[0].n;
  while ((await foldUsageDeltas(await db(), batch)) > 0 || (await left()) > 0)
    await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A node of the tests' own, registered for `serviceIds`, as the coordinator authenticates it. */
export async function engineNode(name: string, serviceIds = ["token-count"], concurrency = 4) {
  const { token } = await issueNodeToken(name, { region: "test" });
  await registerNode(await authenticateNode(token), { name, region: "test", serviceIds, concurrency });
  return authenticateNode(token);
}

/** A webhook delivery as [status of the job it shows, event type, the job's telemetry sequence it carries]. */
export type Announced = [string, string, number];

export interface JobEffects {
  job: {
    status: string;
    attempt: number;
    progress: number;
    assignedNodeId: string | null;
    leased: boolean;
    retryDue: boolean;
    eventSeq: number;
    logSeq: number;
  };
  events: { sequence: number; type: string; attempt: number }[];
  logs: { sequence: number; level: string; source: string; message: string }[];
  ledger: { type: string; amount: number }[];
  deliveries: Announced[];
  /** The job's developer's balance, and the spend its key has counted (all time). */
  balance: number;
  keySpent: number | null;
  bodies: { type: string; data: { job: Record<string, unknown>; sequence: number } }[];
}

export async function effectsOf(jobId: string): Promise<JobEffects> {
  const [job] = await rowsOf<{
    status: string;
    attempt: number;
    progress: number;
    assigned_node_id: string | null;
    leased: boolean;
    retry_due: boolean;
    event_seq: number;
    log_seq: number;
    balance: string | number;
    key_spent: string | number | null;
  }>(sql`select j.status, j.attempt, j.progress, j.assigned_node_id, j.lease_expires_at is not null as leased,
      j.next_attempt_at is not null as retry_due, j.event_seq, j.log_seq, a.credit_balance as balance, k.spent_total as key_spent
    from jobs j join accounts a on a.id = j.account_id left join api_keys k on k.id = j.api_key_id where j.id = ${jobId}`);
  const events = await rowsOf<JobEffects["events"][number]>(
    sql`select sequence, type, attempt from job_events where job_id = ${jobId} order by sequence`,
  );
  const logs = await rowsOf<JobEffects["logs"][number]>(
    sql`select sequence, level, source, message from job_logs where job_id = ${jobId} order by sequence`,
  );
  const ledger = await rowsOf<{ type: string; amount: string | number }>(
    sql`select type, amount from credit_ledger where job_id = ${jobId} order by seq`,
  );
  const deliveries = await rowsOf<{ body: string }>(sql`select body from webhook_deliveries where job_id = ${jobId}`);
  // In the order the job passed its statuses (rows of one statement share their creation time).
  const bodies = deliveries
    .map((d) => JSON.parse(d.body) as JobEffects["bodies"][number])
    .sort((a, b) => a.data.sequence - b.data.sequence || a.type.localeCompare(b.type));
  return {
    job: {
      status: job.status,
      attempt: job.attempt,
      progress: job.progress,
      assignedNodeId: job.assigned_node_id,
      leased: job.leased,
      retryDue: job.retry_due,
      eventSeq: job.event_seq,
      logSeq: job.log_seq,
    },
    events,
    logs,
    ledger: ledger.map((l) => ({ type: l.type, amount: Number(l.amount) })),
    deliveries: sortAnnounced(bodies.map((b): Announced => [String(b.data.job.status), b.type, b.data.sequence])),
    balance: Number(job.balance),
    keySpent: job.key_spent === null ? null : Number(job.key_spent),
    bodies,
  };
}

const sortAnnounced = (rows: Announced[]) =>
  [...rows].sort((a, b) => a[2] - b[2] || a[1].localeCompare(b[1]) || a[0].localeCompare(b[0]));

/** What `after` has that `before` had not: the rows one engine call appended, and how the counters moved. */
export function appended(before: JobEffects, after: JobEffects) {
  const seen = new Set(before.deliveries.map((d) => d.join("|")));
  return {
    events: after.events.slice(before.events.length).map((e) => [e.sequence, e.type]),
    logs: after.logs.slice(before.logs.length).map((l) => l.message),
    ledger: after.ledger.slice(before.ledger.length),
    deliveries: after.deliveries.filter((d) => !seen.has(d.join("|"))),
    balance: after.balance - before.balance,
    keySpent: (after.keySpent ?? 0) - (before.keySpent ?? 0),
  };
}

/**
 * The webhook deliveries a developer with one endpoint subscribed to every job event gets for the statuses
 * passed (each with the job's telemetry sequence there); none for a developer without endpoints.
 */
export function announced(subscribed: boolean, ...passed: [JobStatus, number][]): Announced[] {
  if (!subscribed) return [];
  return sortAnnounced(
    passed.flatMap(([status, sequence]) => eventTypesOf(status).map((type): Announced => [status, type, sequence])),
  );
}

/** Sequences 1…n with no gap, for the job's events and its log lines, ending at the row's counters. */
export function gapless(effects: JobEffects): boolean {
  const run = (xs: number[], end: number) => xs.length === end && xs.every((x, i) => x === i + 1);
  return (
    run(
      effects.events.map((e) => e.sequence),
      effects.job.eventSeq,
    ) &&
    run(
      effects.logs.map((l) => l.sequence),
      effects.job.logSeq,
    )
  );
}
