// The text of a job change's statement, for one shape (every value a placeholder, bound by apply-change.ts):
// the update under the state machine's guard, the append of events and log lines, the webhook events of the
// statuses it passes, and on PostgreSQL the change signals, all in ONE statement.
import { and, eq, getTableColumns, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { sqlLiterals as literals } from "@/lib/db/prepared-statements";
import type { Tx } from "@/lib/db/database";
import { jobs } from "@/lib/db/schema";
import { webhookChannel } from "@/lib/domain/webhook-events";
import { jobChannel, workChannel } from "@/lib/domain/signals";
import type { JobStatus } from "@/lib/contract/vocabulary";
import { appendedLogSql } from "./appended-log";
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
    inline,
    set.join(","),
  ].join(";");
}

/** The statuses a change passes, with the job's telemetry sequence at each (its webhook events' `sequence`). */
function statusesPassed(change: JobChange): StatusPassed[] {
  if (!change.to) return [];
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
  const conditions = [
    sql`${jobs.id} = any((select ids from candidates)::uuid[])`,
    sql`${jobs.status} in (${literals(from)})`,
  ];
  if (change.attempt !== undefined) conditions.push(eq(jobs.attempt, sql.placeholder("attempt")));
  if (change.nodeId !== undefined) conditions.push(eq(jobs.assignedNodeId, sql.placeholder("nodeId")));
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
  const passed = statusesPassed(change);
  const webhooks = passed.length > 0;
  // pg_notify returns void: selected for its effect (delivered at commit; repeats of one payload fold into one).
  const signals = inline
    ? sql`, pg_notify(${literals([jobChannel])}, c.id::text)${change.to === "routing" ? sql`, pg_notify(${literals([workChannel])}, c.service_id)` : sql``}${
        webhooks ? sql`, (select pg_notify(${literals([webhookChannel])}, '') from webhook_written limit 1)` : sql``
      }`
    : sql``;
  // Always one row at least (the left join), so that the count of candidates comes back with no change too.
  return sql`
    with candidates as (select ${candidates.sql} as ids),
    changed as (${update.getSQL()}),
    ${appendedLogSql(sql`changed`)}${
      webhooks
        ? sql`,
    ${webhookFanoutSql(sql`changed`, passed)}`
        : sql``
    }
    select c.*, coalesce(cardinality(k.ids), 0) as candidate_count,
      ${webhooks ? sql`(select count(*) from webhook_written)` : sql`0`} as webhooks${signals}
    from candidates k left join changed c on true`;
}
