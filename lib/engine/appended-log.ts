// The append of a change's telemetry events and log lines, written once for every statement that changes or
// creates jobs (apply-change.ts, create-job.ts): per written job, the rows that end at its event_seq /
// log_seq (already advanced by the statement), so sequences are gapless per job. Both tables in one
// statement, since each round trip to the database costs more than the rows themselves.
import { sql, type SQL } from "drizzle-orm";
import { jobEvents, jobLogs } from "@/lib/db/schema";
import type { EventInput, LogInput } from "./job-change";

/** A change's events and log lines as the rows jsonb_to_recordset reads in appendedLogSql. */
export function appendedRows(events: EventInput[] = [], logs: LogInput[] = []) {
  return {
    events: events.map((e, i) => ({
      i: i + 1,
      type: e.type,
      node_id: e.nodeId ?? null,
      data: e.data ?? null,
      with_attempt: e.withAttempt ?? false,
    })),
    logs: logs.map((l, i) => ({
      i: i + 1,
      level: l.level,
      source: l.source,
      message: l.message,
      node_id: l.nodeId ?? null,
      with_attempt: l.withAttempt ?? false,
    })),
  };
}

/** The placeholders appendedLogSql reads, filled from a change's events and log lines. */
export function appendedLogValues(events: EventInput[] = [], logs: LogInput[] = []): Record<string, unknown> {
  const rows = appendedRows(events, logs);
  return {
    eventCount: events.length,
    logCount: logs.length,
    events: JSON.stringify(rows.events),
    logs: JSON.stringify(rows.logs),
  };
}

/** Where each written job's rows come from: by default the same placeholders for every job of the change. */
export interface AppendedLists {
  /** jsonb of appendedRows' events (and logs), SQL over the written row `c`. */
  events: SQL;
  logs: SQL;
  /** How many events (and log lines) each job appends: by default the placeholders eventCount and logCount. */
  eventCount?: SQL;
  logCount?: SQL;
}

const p = (name: string) => sql.placeholder(name);
const sameForEveryJob: AppendedLists = { events: sql`${p("events")}::jsonb`, logs: sql`${p("logs")}::jsonb` };

/**
 * Two CTEs (appended_events, appended_logs) that append to every job of `written` (a relation of jobs rows
 * after the change: id, attempt, event_seq, log_seq): "{attempt}" and `withAttempt` take the job's attempt
 * after the change, which only the statement knows (a claim begins it). Every job appends as many events
 * (and log lines) as the lists' counts say.
 */
export function appendedLogSql(written: SQL, lists: AppendedLists = sameForEveryJob): SQL {
  const eventCount = lists.eventCount ?? sql`${p("eventCount")}::int`;
  const logCount = lists.logCount ?? sql`${p("logCount")}::int`;
  return sql`appended_events as (
      insert into ${jobEvents} (job_id, sequence, type, attempt, node_id, data)
      select c.id, c.event_seq - ${eventCount} + e.i, e.type, c.attempt, e.node_id,
        case when e.with_attempt then coalesce(e.data, '{}'::jsonb) || jsonb_build_object('attempt', c.attempt) else e.data end
      from ${written} c cross join jsonb_to_recordset(${lists.events})
        as e(i int, type text, node_id uuid, data jsonb, with_attempt boolean)
    ),
    appended_logs as (
      insert into ${jobLogs} (job_id, sequence, level, source, message, node_id)
      select c.id, c.log_seq - ${logCount} + l.i, l.level, l.source,
        case when l.with_attempt then replace(l.message, '{attempt}', c.attempt::text) else l.message end, l.node_id
      from ${written} c cross join jsonb_to_recordset(${lists.logs})
        as l(i int, level text, source text, message text, node_id uuid, with_attempt boolean)
    )`;
}
