// The one write of a job change: every change to an existing job — a claim, a node's report, a sweep, a
// cancellation — comes here. The status (checked by the state machine), the columns, the telemetry events
// with gapless per-job sequences, the log lines, the webhook events of the statuses it passes and the change
// signals are ONE statement (change-statement.ts); a change to failed also gives the credits back (the key's
// spend and a refund entry) in the same transaction. A reader never sees one effect without the others.
import { getTableColumns, is } from "drizzle-orm";
import { PgTransaction } from "drizzle-orm/pg-core";
import { executeShaped } from "@/lib/db/prepared-statements";
import type { Tx } from "@/lib/db/database";
import { jobs } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { jobChannel, signal, signalsInline, workChannel } from "@/lib/domain/signals";
import { countFailures } from "@/lib/domain/usage-rollups";
import { webhookChannel } from "@/lib/domain/webhook-events";
import { metrics, secondsBetween } from "@/lib/metrics";
import { afterCommit } from "@/lib/db/after-commit";
import type { JobStatus } from "@/lib/contract/vocabulary";
import { appendedLogValues, appendedRows } from "./appended-log";
import { changeStatement, eachJob, shapeOf } from "./change-statement";
import { Computed, oneJob, type Candidates, type JobChange, type JobRow } from "./job-change";
import { activeStatuses, assertTransition, isFinal, statusesBefore } from "./job-machine";
import { refundJobCredits } from "./refunds";

const jobColumns = Object.entries(getTableColumns(jobs));

/** A row of `returning *` read by hand (raw SQL): each column decoded as drizzle would. */
function toJobRow(raw: Record<string, unknown>): JobRow {
  const row: Record<string, unknown> = {};
  for (const [key, column] of jobColumns) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as JobRow;
}

/** The statuses a change passes, in order, each checked against the one before by the state machine. */
function assertChange(from: readonly JobStatus[], change: JobChange): void {
  if (!change.to) return;
  for (const status of from) {
    if (change.through) {
      assertTransition(status, change.through.status);
      assertTransition(change.through.status, change.to);
    } else assertTransition(status, change.to);
  }
}

/**
 * What a change to failed owes its developer: the key's spend and the credits, given back once; then the
 * failures and refunds counted in the usage rollups (deltas appended: they lock nothing).
 */
async function refund(tx: Tx, rows: JobRow[]): Promise<void> {
  for (const row of rows) await refundJobCredits(tx, row, row.creditCost, `Refund: ${row.serviceId} job failed`);
  await countFailures(
    tx,
    rows.map((row) => ({ ...row, refunded: Math.max(row.creditCost, 0) })),
  );
}

export interface AppliedChanges {
  rows: JobRow[];
  /** How many jobs the candidates named: more than `rows` when some were not in an allowed state. */
  candidates: number;
}

/** The columns a change sets from a value (bound, not computed by the statement), under their value names. */
function setValues(change: JobChange): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(change.set ?? {})) {
    if (value !== undefined && value !== null)
      values[`set_${key}`] = value instanceof Computed ? value.parameter : value;
  }
  return values;
}

/** The change's rows as written, its signals (PGlite: after the statement) and, for a change to failed, the refunds. */
async function written(tx: Tx, raw: Record<string, unknown>[], change: JobChange, inline: boolean): Promise<JobRow[]> {
  const rows = raw.filter((r) => r.id !== null && r.id !== undefined).map(toJobRow);
  if (!inline) {
    // PGlite: its signals are in-process, sent after the statement (still inside the caller's transaction).
    for (const row of rows) {
      await signal(tx, jobChannel, row.id);
      if (change.to === "routing") await signal(tx, workChannel, row.serviceId);
    }
    if (Number(raw[0]?.webhooks ?? 0) > 0) await signal(tx, webhookChannel, "");
  }
  if (change.to === "failed") await refund(tx, rows);
  // Counted once the change commits (a change inside a transaction that rolls back never happened).
  afterCommit(tx, () => countChanges(rows, change));
  return rows;
}

/** This instance's job metrics (lib/metrics.ts): counted where every status change is written. */
function countChanges(rows: JobRow[], change: JobChange): void {
  if (!change.to || (change.to !== "running" && !isFinal(change.to))) return;
  const m = metrics();
  for (const row of rows) {
    const service = row.serviceId;
    if (change.to === "running") {
      const waited = secondsBetween(row.createdAt, row.startedAt);
      if (waited !== undefined) m.queueSeconds.observe({ service }, waited);
      continue;
    }
    m.jobsFinished.inc({ service, status: row.status });
    const ran = secondsBetween(row.startedAt, row.completedAt);
    if (ran !== undefined) m.runSeconds.observe({ service }, ran);
  }
}

/** The statement of `change` for `candidates`, built once per shape, run with `values`. */
async function runChange(tx: Tx, candidates: Candidates, change: JobChange, values: Record<string, unknown>) {
  if (change.to === "failed" && !is(tx, PgTransaction))
    throw new Error("A change to failed is applied in a transaction (its refund commits with it).");
  const from = change.from ?? (change.to ? statusesBefore(change.to) : activeStatuses);
  const inline = await signalsInline();
  const raw = await executeShaped<Record<string, unknown>>(
    tx,
    "job_change",
    shapeOf(candidates, change, from, inline),
    () => {
      // Checked once per shape (its statuses are part of it): an explicit `from` narrows what the state
      // machine allows; it can never widen it. A refused shape is never compiled, so it is refused every time.
      assertChange(from, change);
      return changeStatement(tx, candidates, change, from, inline);
    },
    values,
  );
  return { raw, rows: await written(tx, raw, change, inline) };
}

/**
 * Applies `change` to the jobs `candidates` names (e.g. `array(select … for update skip locked)`) that are
 * in an allowed state and pass its guards. The statement is compiled once per shape and only bound
 * afterwards. `tx` may be the database itself (the change is then its own transaction), except for a change
 * to failed, whose refund must commit with it.
 */
export async function applyJobChanges(tx: Tx, candidates: Candidates, change: JobChange): Promise<AppliedChanges> {
  const { raw, rows } = await runChange(tx, candidates, change, {
    ...candidates.values,
    ...appendedLogValues(change.events, change.logs),
    attempt: change.attempt,
    nodeId: change.nodeId,
    throughEventCount: change.through?.eventCount,
    ...setValues(change),
  });
  return { rows, candidates: Number(raw[0]?.candidate_count ?? 0) };
}

export interface ChangeOfOneJob {
  jobId: string;
  change: JobChange;
}

/**
 * Applies to each job its own change, as ONE statement: changes of one shape (the same statuses, guards and
 * columns; their values, events and log lines may differ), such as the completions a node reports together.
 * Returns, in their order, each job's row as written, or null where its change was not allowed.
 */
export async function applyEachJobChange(tx: Tx, changes: readonly ChangeOfOneJob[]): Promise<(JobRow | null)[]> {
  if (changes.length === 0) return [];
  const inline = await signalsInline();
  const shape = (change: JobChange) =>
    shapeOf(eachJob, change, change.from ?? (change.to ? statusesBefore(change.to) : activeStatuses), inline);
  const first = changes[0].change;
  const firstShape = shape(first);
  if (changes.some(({ change }) => shape(change) !== firstShape))
    throw new Error("Changes applied together must have one shape.");
  const rows = changes.map(({ jobId, change }) => {
    const { events, logs, reportedCount, reportedBytes } = appendedRows(change.events, change.logs);
    const values = {
      id: jobId,
      attempt: change.attempt,
      nodeId: change.nodeId,
      events,
      logs,
      ...(change.capped ? { reportedCount, reportedBytes } : {}),
      ...setValues(change),
    };
    const counted = { ...values, eventCount: events.length, logCount: logs.length };
    // The input row's columns (change-statement.ts, eachColumns): each value's name with a prefix of its own.
    return Object.fromEntries(Object.entries(counted).map(([name, value]) => [`v_${name}`, value]));
  });
  const { rows: changed } = await runChange(tx, eachJob, first, { each: JSON.stringify(rows) });
  const byId = new Map(changed.map((row) => [row.id, row]));
  return changes.map(({ jobId }) => byId.get(jobId) ?? null);
}

/** Applies `change` to one job if it is in an allowed state; returns the updated row, or null when it was not. */
export async function applyJobChange(tx: Tx, jobId: string, change: JobChange): Promise<JobRow | null> {
  const { rows } = await applyJobChanges(tx, oneJob(jobId), change);
  return rows[0] ?? null;
}

/**
 * applyJobChange as its own transaction: ONE statement (the hot path of a node's reports), or, for a
 * change to failed, a transaction with its refund.
 */
export async function applyJobChangeAtOnce(jobId: string, change: JobChange): Promise<JobRow | null> {
  const d = await db();
  if (change.to === "failed") return d.transaction((tx) => applyJobChange(tx, jobId, change));
  return applyJobChange(d, jobId, change);
}
