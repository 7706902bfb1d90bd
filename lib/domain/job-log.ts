// Every change to a job goes through recordJobChange: the status (checked by the state machine), the
// telemetry events with gapless per-job sequences, the log lines and the refund of a failed job are written
// in one transaction, so a reader never sees one without the others; so are the webhook events of a status
// change (the outbox), so a webhook is never lost nor sent for a change that was rolled back.
import { and, eq, getTableColumns, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { executeShaped, sqlLiterals as literals, type Tx } from "@/lib/db/client";
import { jobEvents, jobLogs, jobs, webhookEndpoints } from "@/lib/db/schema";
import { applyLedgerEntry } from "./credits";
import type { EventType, JobStatus, LogLevel, LogSource } from "@/lib/contract/vocabulary";
import { activeStatuses, assertTransition, statusesBefore, type StopOutcome } from "./job-machine";
import { db } from "./database";
import { jobChannel, signal, signalsInline, workChannel } from "./signals";
import { giveBackKeySpend } from "./spend-controls";
import { eventTypesOf, recordJobWebhookEvents } from "./webhook-outbox";

export type JobRow = typeof jobs.$inferSelect;

export interface EventInput {
  type: EventType;
  data?: Record<string, unknown>;
  nodeId?: string | null;
  /** data.attempt is the job's attempt after the change: for a change that begins an attempt (a claim). */
  withAttempt?: boolean;
}

export interface LogInput {
  level: LogLevel;
  source: LogSource;
  /** With `withAttempt`, "{attempt}" in it stands for the job's attempt after the change. */
  message: string;
  nodeId?: string | null;
  withAttempt?: boolean;
}

/**
 * A value the database computes as the change is written. Each kind is fixed SQL with at most one bound
 * parameter, so a change's statement text depends on its shape alone and is built once (executeShaped).
 */
export class Computed {
  private constructor(
    readonly kind: "now" | "now-if-unset" | "increment" | "seconds-from-now" | "at-least",
    readonly parameter: number | null = null,
  ) {}
  static readonly now = new Computed("now");
  /** The column's value if it has one, else now (a first start keeps its time across attempts). */
  static readonly nowIfUnset = new Computed("now-if-unset");
  static readonly increment = new Computed("increment");
  static secondsFromNow = (seconds: number) => new Computed("seconds-from-now", seconds);
  /** The column's value, raised to `floor` (never lowered by a late or concurrent writer). */
  static atLeast = (floor: number) => new Computed("at-least", floor);

  sqlFor(column: PgColumn, parameter: Placeholder): SQL {
    switch (this.kind) {
      case "now":
        return sql`now()`;
      case "now-if-unset":
        return sql`coalesce(${column}, now())`;
      case "increment":
        return sql`${column} + 1`;
      case "seconds-from-now":
        return sql`now() + make_interval(secs => ${parameter}::double precision)`;
      case "at-least":
        return sql`greatest(${column}, ${parameter}::int)`;
    }
  }
}

type ColumnPatch = { [K in keyof JobRow]?: JobRow[K] | Computed };

export interface JobChange {
  /** New status; omitted for events or logs that leave the status alone. */
  to?: JobStatus;
  /**
   * A status passed on the way to `to` in the same change (a claim that starts its jobs at once passes
   * assigned): checked by the state machine and announced to webhooks like any status. Its share of the
   * events is the first `eventCount`.
   */
  through?: { status: JobStatus; eventCount: number };
  /** Statuses the job must be in now (default: every status `to` may follow, or any active status). */
  from?: readonly JobStatus[];
  /** Guards against stale writers: the job's current attempt / assigned node must match. */
  attempt?: number;
  nodeId?: string;
  set?: ColumnPatch;
  events?: EventInput[];
  logs?: LogInput[];
}

/**
 * Writes the events and log lines that end at the row's eventSeq / logSeq, in one statement (both tables),
 * since each round trip to the embedded database costs more than the rows themselves.
 */
async function appendToLog(tx: Tx, row: JobRow, events: EventInput[], logs: LogInput[]): Promise<void> {
  if (events.length === 0 && logs.length === 0) return;
  const firstEvent = row.eventSeq - events.length + 1;
  const firstLog = row.logSeq - logs.length + 1;
  const eventRows = events.map((e, i) => ({
    job_id: row.id,
    sequence: firstEvent + i,
    type: e.type,
    attempt: row.attempt,
    node_id: e.nodeId ?? null,
    data: e.data ?? null,
  }));
  const logRows = logs.map((l, i) => ({
    job_id: row.id,
    sequence: firstLog + i,
    level: l.level,
    source: l.source,
    message: l.message,
    node_id: l.nodeId ?? null,
  }));
  await tx.execute(sql`
    with appended_events as (
      insert into ${jobEvents} (job_id, sequence, type, attempt, node_id, data)
      select job_id, sequence, type, attempt, node_id, data
      from jsonb_to_recordset(${JSON.stringify(eventRows)}::jsonb)
        as e(job_id uuid, sequence int, type text, attempt int, node_id uuid, data jsonb)
    )
    insert into ${jobLogs} (job_id, sequence, level, source, message, node_id)
    select job_id, sequence, level, source, message, node_id
    from jsonb_to_recordset(${JSON.stringify(logRows)}::jsonb)
      as l(job_id uuid, sequence int, level text, source text, message text, node_id uuid)`);
}

/** A new job with its first events and log lines (the start of its log), in the caller's transaction. */
export async function recordJobCreation(
  tx: Tx,
  values: typeof jobs.$inferInsert,
  events: EventInput[],
  logs: LogInput[],
): Promise<JobRow> {
  const [row] = await tx
    .insert(jobs)
    .values({ ...values, eventSeq: events.length, logSeq: logs.length })
    .returning();
  // No signal: nobody can be following a job that did not exist before this transaction.
  await appendToLog(tx, row, events, logs);
  await recordJobWebhookEvents(tx, row);
  return row;
}

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

/** Enabled endpoints of the job's developer subscribed to what `change`'s statuses send (webhook-outbox.ts). */
function webhookSubscribers(accountId: SQL, change: JobChange & { to: JobStatus }): SQL {
  const types = new Set([...eventTypesOf(change.to), ...(change.through ? eventTypesOf(change.through.status) : [])]);
  return sql`select 1 from ${webhookEndpoints} w where w.account_id = ${accountId} and w.status = 'enabled'
    and w.events && array[${literals([...types])}]::text[]`;
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
 * The jobs a change applies to: `sql`, a uuid[] expression that is the same object on every call with the
 * same `shape` (a module constant), taking its values from placeholders filled from `values`.
 */
export interface Candidates {
  shape: string;
  sql: SQL;
  values: Record<string, unknown>;
}

const oneJobSql = sql`array[${sql.placeholder("jobId")}::uuid]`;
const oneJob = (jobId: string): Candidates => ({ shape: "one", sql: oneJobSql, values: { jobId } });

interface WrittenChange {
  row: JobRow;
  hasWebhooks: boolean;
}

interface WrittenChanges {
  written: WrittenChange[];
  /** How many jobs `candidates` named: more than were written when some were not in an allowed state or left alone. */
  candidates: number;
}

/** Everything that changes the text of a change's statement (not its values): the key of its compiled form. */
function shapeOf(
  candidates: Candidates,
  change: JobChange,
  from: readonly JobStatus[],
  unlessWebhooks: boolean,
  inline: boolean,
): string {
  const set = Object.entries(change.set ?? {})
    .filter(([, value]) => value !== undefined)
    .map(
      ([column, value]) => `${column}=${value === null ? "null" : value instanceof Computed ? value.kind : "value"}`,
    );
  return [
    candidates.shape,
    change.to,
    change.through?.status,
    from.join("|"),
    change.attempt !== undefined,
    change.nodeId !== undefined,
    unlessWebhooks,
    inline,
    set.join(","),
  ].join(";");
}

/** The statement of a change's shape, every value a placeholder (see writeJobChanges for its values). */
function changeStatement(
  tx: Tx,
  candidates: Candidates,
  change: JobChange,
  from: readonly JobStatus[],
  unlessWebhooks: boolean,
  inline: boolean,
): SQL {
  const conditions = [
    sql`${jobs.id} = any((select ids from candidates)::uuid[])`,
    sql`${jobs.status} in (${literals(from)})`,
  ];
  if (change.attempt !== undefined) conditions.push(eq(jobs.attempt, sql.placeholder("attempt")));
  if (change.nodeId !== undefined) conditions.push(eq(jobs.assignedNodeId, sql.placeholder("nodeId")));
  if (unlessWebhooks && change.to)
    conditions.push(sql`not exists (${webhookSubscribers(sql`${jobs.accountId}`, { ...change, to: change.to })})`);
  const columns = getTableColumns(jobs) as Record<string, PgColumn>;
  const set: Record<string, SQL | Placeholder> = {};
  for (const [key, value] of Object.entries(change.set ?? {})) {
    if (value === undefined) continue;
    const parameter = sql.placeholder(`set_${key}`);
    set[key] =
      value === null ? sql`null` : value instanceof Computed ? value.sqlFor(columns[key], parameter) : parameter;
  }
  const update = tx
    .update(jobs)
    .set({
      ...set,
      ...(change.to ? { status: sql`${literals([change.to])}` } : {}),
      eventSeq: sql`${jobs.eventSeq} + ${sql.placeholder("eventCount")}::int`,
      logSeq: sql`${jobs.logSeq} + ${sql.placeholder("logCount")}::int`,
      updatedAt: sql`now()`,
    })
    .where(and(...conditions))
    .returning();
  const signals = inline
    ? sql`, pg_notify(${literals([jobChannel])}, c.id::text)${change.to === "routing" ? sql`, pg_notify(${literals([workChannel])}, c.service_id)` : sql``}`
    : sql``;
  const hasWebhooks = change.to
    ? sql`exists (${webhookSubscribers(sql`c.account_id`, { ...change, to: change.to })})`
    : sql`false`;
  // Always one row at least (the left join), so that the count of candidates comes back with no change too.
  return sql`
    with candidates as (select ${candidates.sql} as ids),
    changed as (${update.getSQL()}),
    appended_events as (
      insert into ${jobEvents} (job_id, sequence, type, attempt, node_id, data)
      select c.id, c.event_seq - ${sql.placeholder("eventCount")}::int + e.i, e.type, c.attempt, e.node_id,
        case when e.with_attempt then coalesce(e.data, '{}'::jsonb) || jsonb_build_object('attempt', c.attempt) else e.data end
      from changed c cross join jsonb_to_recordset(${sql.placeholder("events")}::jsonb)
        as e(i int, type text, node_id uuid, data jsonb, with_attempt boolean)
    ),
    appended_logs as (
      insert into ${jobLogs} (job_id, sequence, level, source, message, node_id)
      select c.id, c.log_seq - ${sql.placeholder("logCount")}::int + l.i, l.level, l.source,
        case when l.with_attempt then replace(l.message, '{attempt}', c.attempt::text) else l.message end, l.node_id
      from changed c cross join jsonb_to_recordset(${sql.placeholder("logs")}::jsonb)
        as l(i int, level text, source text, message text, node_id uuid, with_attempt boolean)
    )
    select c.*, ${hasWebhooks} as has_webhooks, coalesce(cardinality(k.ids), 0) as candidate_count${signals}
    from candidates k left join changed c on true`;
}

/**
 * The jobs named by `candidates` that pass `change`'s guards get the change, their events and their log
 * lines in ONE statement (a data-modifying CTE; the gapless sequences come from the updated eventSeq /
 * logSeq), with the change signals inside it on PostgreSQL. Round trips, not rows, are what a job's path
 * costs; the statement is compiled once per shape and only bound afterwards. What may follow (webhook
 * outbox, refund) is the caller's: each row says whether its developer has subscribers. `unlessWebhooks`
 * leaves alone the jobs whose change would need webhook events, for callers that write outside a transaction.
 */
async function writeJobChanges(
  tx: Tx,
  candidates: Candidates,
  change: JobChange,
  options: { unlessWebhooks?: boolean } = {},
): Promise<WrittenChanges> {
  const events = change.events ?? [];
  const logs = change.logs ?? [];
  const from = change.from ?? (change.to ? statusesBefore(change.to) : activeStatuses);
  const unlessWebhooks = options.unlessWebhooks ?? false;
  const inline = await signalsInline();
  const values: Record<string, unknown> = {
    ...candidates.values,
    attempt: change.attempt,
    nodeId: change.nodeId,
    eventCount: events.length,
    logCount: logs.length,
    events: JSON.stringify(
      events.map((e, i) => ({
        i: i + 1,
        type: e.type,
        node_id: e.nodeId ?? null,
        data: e.data ?? null,
        with_attempt: e.withAttempt ?? false,
      })),
    ),
    logs: JSON.stringify(
      logs.map((l, i) => ({
        i: i + 1,
        level: l.level,
        source: l.source,
        message: l.message,
        node_id: l.nodeId ?? null,
        with_attempt: l.withAttempt ?? false,
      })),
    ),
  };
  for (const [key, value] of Object.entries(change.set ?? {})) {
    if (value !== undefined && value !== null)
      values[`set_${key}`] = value instanceof Computed ? value.parameter : value;
  }
  // Named by shape (a claim, a start report …): compiled once, every value a parameter.
  const rows = await executeShaped<Record<string, unknown>>(
    tx,
    "job_change",
    shapeOf(candidates, change, from, unlessWebhooks, inline),
    () => {
      // Checked once per shape (its statuses are part of it): an explicit `from` narrows what the state
      // machine allows; it can never widen it.
      assertChange(from, change);
      return changeStatement(tx, candidates, change, from, unlessWebhooks, inline);
    },
    values,
  );
  const written = rows
    .filter((raw) => raw.id !== null && raw.id !== undefined)
    .map((raw) => ({ row: toJobRow(raw), hasWebhooks: raw.has_webhooks === true }));
  if (!inline) {
    for (const { row } of written) {
      await signal(tx, jobChannel, row.id);
      if (change.to === "routing") await signal(tx, workChannel, row.serviceId);
    }
  }
  return { written, candidates: Number(rows[0]?.candidate_count ?? 0) };
}

/** What a written change still needs in its transaction: the webhook outbox, and the refund of a failed job. */
async function completeJobChange(tx: Tx, { row, hasWebhooks }: WrittenChange, change: JobChange): Promise<JobRow> {
  if (change.to && hasWebhooks) {
    if (change.through) {
      const eventSeq = row.eventSeq - (change.events?.length ?? 0) + change.through.eventCount;
      await recordJobWebhookEvents(tx, { ...row, status: change.through.status, eventSeq });
    }
    await recordJobWebhookEvents(tx, row);
  }
  if (change.to === "failed" && row.creditCost > 0) {
    // The key's spend first: keys are locked before accounts on every path (lib/domain/spend-controls.ts).
    await giveBackKeySpend(tx, row);
    await applyLedgerEntry(tx, {
      accountId: row.accountId,
      type: "refund",
      amount: row.creditCost,
      jobId: row.id,
      description: `Refund: ${row.serviceId} job failed`,
    });
  }
  return row;
}

/** Applies `change` if the job is in an allowed state; returns the updated row, or null when it was not. */
export async function recordJobChange(tx: Tx, jobId: string, change: JobChange): Promise<JobRow | null> {
  const {
    written: [written],
  } = await writeJobChanges(tx, oneJob(jobId), change);
  return written ? completeJobChange(tx, written, change) : null;
}

/**
 * Applies `change` to the jobs `candidates` names (e.g. `array(select … for update skip locked)`). Without a transaction (`tx` is the database) the jobs whose change needs more than the one
 * statement (webhook events) are left alone and counted in `left`, for the caller to change in a
 * transaction; within one, every candidate in an allowed state is changed.
 */
export async function recordJobChanges(
  tx: Tx,
  candidates: Candidates,
  change: JobChange,
  options: { inTransaction: boolean },
): Promise<{ rows: JobRow[]; left: number }> {
  // A refund must be in the same transaction as the failure it pays back.
  if (!options.inTransaction && change.to === "failed")
    throw new Error("A change to failed is written in a transaction.");
  const result = await writeJobChanges(tx, candidates, change, { unlessWebhooks: !options.inTransaction });
  const rows: JobRow[] = [];
  for (const w of result.written) rows.push(await completeJobChange(tx, w, change));
  return { rows, left: result.candidates - rows.length };
}

/**
 * recordJobChange in its own transaction, as ONE statement when nothing has to follow it (no refund, no
 * subscribed webhook endpoint): the hot path of a node's reports. Otherwise, or when the job is not in an
 * allowed state, the change is tried again in a transaction that does everything (and refuses the same way).
 */
export async function recordJobChangeAtOnce(jobId: string, change: JobChange): Promise<JobRow | null> {
  const d = await db();
  if (change.to !== "failed") {
    const {
      written: [written],
    } = await writeJobChanges(d, oneJob(jobId), change, { unlessWebhooks: true });
    if (written) return written.row;
  }
  return d.transaction((tx) => recordJobChange(tx, jobId, change));
}

/**
 * The one write for a StopOutcome (lib/domain/job-machine.ts): status, columns and the closing events, after
 * the events and log lines that say why (`change.events`, `change.logs`).
 */
export function recordStopOutcome(
  tx: Tx,
  jobId: string,
  outcome: StopOutcome,
  change: Omit<JobChange, "to" | "set">,
): Promise<JobRow | null> {
  const why = change.events ?? [];
  switch (outcome.kind) {
    case "reroute":
      return recordJobChange(tx, jobId, {
        ...change,
        to: "routing",
        set: { routingStartedAt: Computed.now, leaseExpiresAt: null, nextAttemptAt: null },
        events: [...why, { type: "ROUTING_STARTED", data: { attempt: outcome.nextAttempt } }],
      });
    case "retry":
      return recordJobChange(tx, jobId, {
        ...change,
        to: "retrying",
        set: { nextAttemptAt: Computed.secondsFromNow(outcome.delayMs / 1000), leaseExpiresAt: null },
        events: [
          ...why,
          { type: "RETRY_SCHEDULED", data: { delayMs: outcome.delayMs, nextAttempt: outcome.nextAttempt } },
        ],
      });
    case "fail":
    case "cancel":
      return recordJobChange(tx, jobId, {
        ...change,
        to: "failed",
        set: { error: outcome.error, completedAt: Computed.now, leaseExpiresAt: null },
        // A cancellation is its own closing event (JOB_CANCELLED, given by the caller).
        events:
          outcome.kind === "fail"
            ? [...why, { type: "JOB_FAILED", data: { category: outcome.error.category, code: outcome.error.code } }]
            : why,
      });
  }
}
