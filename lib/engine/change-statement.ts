// The text of a job change's statement, for one shape (every value a placeholder, bound by apply-change.ts):
// the update under the state machine's guard, the append of events and log lines, the webhook events of the
// statuses it passes, and on PostgreSQL the change signals, all in ONE statement. Its values are bound once
// for every job it changes (a claim, a sweep, one job's report), or come one row per job from the `each`
// placeholder (node reports written together: each job its own attempt, result and log lines).
import { and, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { sqlLiterals as literals } from "@/lib/db/prepared-statements";
import type { Tx } from "@/lib/db/database";
import { jobs } from "@/lib/db/schema";
import { webhookChannel } from "@/lib/domain/webhook-events";
import { jobChannel, workChannel } from "@/lib/domain/signals";
import { completedDeltasSql, usageRollupCtes } from "@/lib/domain/usage-rollups";
import type { JobStatus } from "@/lib/contract/vocabulary";
import { appendedLogSql, cappedCounts, type AppendedLists } from "./appended-log";
import { Computed, type Candidates, type JobChange } from "./job-change";
import { webhookFanoutSql, type StatusPassed } from "./webhook-fanout";

/** Everything that changes the text of a change's statement (not its values): the key of its compiled form. */
export function shapeOf(
  candidates: Candidates,
  change: JobChange,
  from: readonly JobStatus[],
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
    change.capped === true,
    inline,
    set.join(","),
  ].join(";");
}

/**
 * The jobs of a change applied to each job with its own values: the `v_id` of each row of the `each`
 * placeholder (its columns: eachColumns).
 */
export const eachJob: Candidates = { shape: "each", sql: sql`array(select v_id from input)`, values: {} };

/** A value of the change: a placeholder bound once, or for `eachJob` the input row's column of that name. */
const valueOf = (perJob: boolean) => (name: string) =>
  perJob ? sql`i.${sql.identifier(`v_${name}`)}` : sql`${sql.placeholder(name)}`;

/** What the input row of each job holds, and its type: the names apply-change.ts fills, for one shape. */
function eachColumns(change: JobChange): [string, string][] {
  const columns = getTableColumns(jobs) as Record<string, PgColumn>;
  const fixed: [string, string][] = [
    ["id", "uuid"],
    ["eventCount", "int"],
    ["logCount", "int"],
    ["events", "jsonb"],
    ["logs", "jsonb"],
  ];
  if (change.attempt !== undefined) fixed.push(["attempt", "int"]);
  if (change.nodeId !== undefined) fixed.push(["nodeId", "uuid"]);
  if (change.capped) fixed.push(["reportedCount", "bigint"], ["reportedBytes", "bigint"]);
  for (const [key, value] of Object.entries(change.set ?? {})) {
    if (value === undefined || value === null) continue;
    if (!(value instanceof Computed)) fixed.push([`set_${key}`, columns[key].getSQLType()]);
    else if (value.parameter !== null) fixed.push([`set_${key}`, value.parameterType]);
  }
  return fixed;
}

/** The statuses a change passes, with the job's telemetry sequence at each (its webhook events' `sequence`). */
function statusesPassed(change: JobChange, perJob: boolean): StatusPassed[] {
  if (!change.to) return [];
  // A status passed on the way is a claim's (one change for every job it takes): never written per job.
  if (change.through && perJob) throw new Error("A change that passes a status is not applied to each job.");
  const through: StatusPassed[] = change.through
    ? [
        {
          status: change.through.status,
          sequence: sql`c.event_seq - ${sql.placeholder("eventCount")}::int + ${sql.placeholder("throughEventCount")}::int`,
        },
      ]
    : [];
  return [...through, { status: change.to, sequence: sql`c.event_seq` }];
}

export function changeStatement(
  tx: Tx,
  candidates: Candidates,
  change: JobChange,
  from: readonly JobStatus[],
  inline: boolean,
): SQL {
  const perJob = candidates === eachJob;
  const value = valueOf(perJob);
  const conditions = [
    sql`${jobs.id} = any((select ids from candidates)::uuid[])`,
    sql`${jobs.status} in (${literals(from)})`,
  ];
  if (perJob) conditions.push(sql`${jobs.id} = i.v_id`);
  if (change.attempt !== undefined) conditions.push(eq(jobs.attempt, value("attempt")));
  if (change.nodeId !== undefined) conditions.push(eq(jobs.assignedNodeId, value("nodeId")));
  const columns = getTableColumns(jobs) as Record<string, PgColumn>;
  const set: Record<string, SQL> = {};
  for (const [key, v] of Object.entries(change.set ?? {})) {
    if (v === undefined) continue;
    const parameter = value(`set_${key}`);
    set[key] = v === null ? sql`null` : v instanceof Computed ? v.sqlFor(columns[key], parameter) : parameter;
  }
  // The lists of events and log lines each job appends, and what of them counts against its caps.
  const lists: AppendedLists = perJob
    ? { events: sql`i.v_events`, logs: sql`i.v_logs` }
    : { events: sql`${sql.placeholder("events")}::jsonb`, logs: sql`${sql.placeholder("logs")}::jsonb` };
  const reported = change.capped ? { items: value("reportedCount"), bytes: value("reportedBytes") } : undefined;
  const updating = tx.update(jobs).set({
    ...set,
    ...(change.to ? { status: sql`${literals([change.to])}` } : {}),
    ...(reported
      ? cappedCounts(lists, reported)
      : {
          eventSeq: sql`${jobs.eventSeq} + ${value("eventCount")}::int`,
          logSeq: sql`${jobs.logSeq} + ${value("logCount")}::int`,
        }),
    updatedAt: sql`now()`,
  });
  const update = (perJob ? updating.from(sql`input i`) : updating).where(and(...conditions)).returning();
  const passed = statusesPassed(change, perJob);
  const webhooks = passed.length > 0;
  // pg_notify returns void: selected for its effect (delivered at commit; repeats of one payload fold into one).
  const signals = inline
    ? sql`, pg_notify(${literals([jobChannel])}, c.id::text)${change.to === "routing" ? sql`, pg_notify(${literals([workChannel])}, c.service_id)` : sql``}${
        webhooks ? sql`, (select pg_notify(${literals([webhookChannel])}, '') from webhook_written limit 1)` : sql``
      }`
    : sql``;
  // Each job's own events and log lines: its input row, joined to the job as written.
  const input = perJob
    ? sql`input as (select * from jsonb_to_recordset(${sql.placeholder("each")}::jsonb) as i(${sql.join(
        eachColumns(change).map(([name, type]) => sql`${sql.identifier(`v_${name}`)} ${sql.raw(type)}`),
        sql`, `,
      )})),
    `
    : sql``;
  const eachLists: AppendedLists = {
    events: sql`c.v_events`,
    logs: sql`c.v_logs`,
    eventCount: sql`c."v_eventCount"`,
    logCount: sql`c."v_logCount"`,
  };
  const eachReported = reported && { items: sql`c."v_reportedCount"`, bytes: sql`c."v_reportedBytes"` };
  const appended = perJob
    ? sql`changed_input as (select c.*, i.v_events, i.v_logs, i."v_eventCount", i."v_logCount"${
        reported ? sql`, i."v_reportedCount", i."v_reportedBytes"` : sql``
      } from changed c join input i on i.v_id = c.id),
    ${appendedLogSql(sql`changed_input`, eachLists, eachReported)}`
    : appendedLogSql(sql`changed`, undefined, reported);
  // A completion counts in the usage rollups here (a delta appended, locking no rollup row); a failure with its
  // refund (apply-change.ts).
  const usage =
    change.to === "completed"
      ? sql`,
    ${usageRollupCtes("usage_counted", completedDeltasSql(sql`changed`))}`
      : sql``;
  // Always one row at least (the left join), so that the count of candidates comes back with no change too.
  return sql`
    with ${input}candidates as (select ${candidates.sql} as ids),
    changed as (${update.getSQL()}),
    ${appended}${
      webhooks
        ? sql`,
    ${webhookFanoutSql(sql`changed`, passed)}`
        : sql``
    }${usage}
    select c.*, coalesce(cardinality(k.ids), 0) as candidate_count,
      ${webhooks ? sql`(select count(*) from webhook_written)` : sql`0`} as webhooks${signals}
    from candidates k left join changed c on true`;
}
