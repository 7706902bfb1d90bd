// The append of a change's telemetry events and log lines, written once for every statement that changes or
// creates jobs (apply-change.ts, create-job.ts): per written job, the rows that end at its event_seq /
// log_seq (already advanced by the statement), so sequences are gapless per job. Both tables in one
// statement, since each round trip to the database costs more than the rows themselves.
//
// What nodes report (provider requests, log lines: marked `reported`) is capped per job (lib/limits.ts): the
// job row counts every reported item and byte, stored or not, so the items of all reports form one stream in
// which the ones past either cap are dropped, and the first of them becomes one "logs truncated" line. The
// counts change under the job row's lock, in the statement that appends, so concurrent reports agree on
// where the stream crossed the cap: exactly one such line, whatever the races.
import { sql, type SQL } from "drizzle-orm";
import { sqlLiterals } from "@/lib/db/prepared-statements";
import { jobEvents, jobLogs, jobs } from "@/lib/db/schema";
import { limits } from "@/lib/limits";
import type { EventInput, LogInput } from "./job-change";

/** A reported item's place in its change's stream: its index and the bytes up to it and before it. */
interface ReportedPlace {
  r_i?: number;
  r_bytes?: number;
  r_prev_bytes?: number;
}

/** A change's events and log lines as the rows jsonb_to_recordset reads in appendedLogSql. */
export function appendedRows(events: EventInput[] = [], logs: LogInput[] = []) {
  let reportedCount = 0;
  let reportedBytes = 0;
  // Only reported items carry their place (undefined members stay out of the JSON: a submission's rows are as before).
  const place = (reported: boolean | undefined, bytes: () => number): ReportedPlace => {
    if (!reported) return {};
    const before = reportedBytes;
    reportedBytes += bytes();
    return { r_i: ++reportedCount, r_bytes: reportedBytes, r_prev_bytes: before };
  };
  const eventRows = events.map((e, i) => ({
    i: i + 1,
    type: e.type,
    node_id: e.nodeId ?? null,
    data: e.data ?? null,
    with_attempt: e.withAttempt ?? false,
    ...place(e.reported, () => Buffer.byteLength(JSON.stringify(e.data ?? null))),
  }));
  const logRows = logs.map((l, i) => ({
    i: i + 1,
    level: l.level,
    source: l.source,
    message: l.message,
    node_id: l.nodeId ?? null,
    with_attempt: l.withAttempt ?? false,
    ...place(l.reported, () => Buffer.byteLength(l.message)),
  }));
  return { events: eventRows, logs: logRows, reportedCount, reportedBytes };
}

/** The placeholders appendedLogSql reads, filled from a change's events and log lines. */
export function appendedLogValues(events: EventInput[] = [], logs: LogInput[] = []): Record<string, unknown> {
  const rows = appendedRows(events, logs);
  return {
    eventCount: events.length,
    logCount: logs.length,
    events: JSON.stringify(rows.events),
    logs: JSON.stringify(rows.logs),
    reportedCount: rows.reportedCount,
    reportedBytes: rows.reportedBytes,
  };
}

/** The line stored in place of everything reported past the caps. */
export const truncatedLogMessage = `Logs truncated: this job reached its limit of ${limits.jobReportedItems} log lines and provider requests (${limits.jobReportedBytes} bytes) reported by nodes; nothing more they report is stored.`;

const placeColumns = sql.raw("r_i int, r_bytes bigint, r_prev_bytes bigint");
const eventColumns = sql`i int, type text, node_id uuid, data jsonb, with_attempt boolean, ${placeColumns}`;
const logColumns = sql`i int, level text, source text, message text, node_id uuid, with_attempt boolean, ${placeColumns}`;
const items = sql.raw(String(limits.jobReportedItems));
const bytes = sql.raw(String(limits.jobReportedBytes));

/** The job's counts before this change: of the row being updated, or of the written row less this change's. */
interface Before {
  items: SQL;
  bytes: SQL;
}
/** Whether row `a` of a list is stored: the platform's own, or reported within both caps. */
const isStored = (a: SQL, before: Before) =>
  sql`(${a}.r_i is null or (${before.items} + ${a}.r_i <= ${items} and ${before.bytes} + ${a}.r_bytes <= ${bytes}))`;
/** Whether row `a` is the first reported item past a cap, the one a "logs truncated" line stands for. */
const isFirstPast = (a: SQL, before: Before) =>
  sql`(${a}.r_i is not null and not (${before.items} + ${a}.r_i <= ${items} and ${before.bytes} + ${a}.r_bytes <= ${bytes})
      and ${before.items} + ${a}.r_i - 1 <= ${items} and ${before.bytes} + ${a}.r_prev_bytes <= ${bytes})`;
const truncatesHere = (lists: AppendedLists, before: Before) =>
  sql`(exists (select 1 from jsonb_to_recordset(${lists.events}) as e(${eventColumns}) where ${isFirstPast(sql`e`, before)})
      or exists (select 1 from jsonb_to_recordset(${lists.logs}) as l(${logColumns}) where ${isFirstPast(sql`l`, before)}))`;

/**
 * For a capped change (its reported items count against the job's caps): the columns its update sets, from the
 * row before it. `reported` are this change's counts (placeholders, or the input row's columns).
 */
export function cappedCounts(lists: AppendedLists, reported: Before) {
  const before = { items: sql`${jobs.reportedItems}`, bytes: sql`${jobs.reportedBytes}` };
  return {
    reportedItems: sql`${jobs.reportedItems} + ${reported.items}::bigint`,
    reportedBytes: sql`${jobs.reportedBytes} + ${reported.bytes}::bigint`,
    eventSeq: sql`${jobs.eventSeq} + (select count(*) from jsonb_to_recordset(${lists.events}) as e(${eventColumns})
      where ${isStored(sql`e`, before)})::int`,
    logSeq: sql`${jobs.logSeq} + (select count(*) from jsonb_to_recordset(${lists.logs}) as l(${logColumns})
      where ${isStored(sql`l`, before)})::int + (case when ${truncatesHere(lists, before)} then 1 else 0 end)`,
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
  /** The events' time, SQL over `c` (by default the database's now()): a new job's first events take its own. */
  eventsAt?: SQL;
}

const p = (name: string) => sql.placeholder(name);
const sameForEveryJob: AppendedLists = { events: sql`${p("events")}::jsonb`, logs: sql`${p("logs")}::jsonb` };

/**
 * Two CTEs (appended_events, appended_logs) that append to every job of `written` (a relation of jobs rows
 * after the change: id, attempt, event_seq, log_seq): "{attempt}" and `withAttempt` take the job's attempt
 * after the change, which only the statement knows (a claim begins it). Every job appends as many events
 * (and log lines) as the lists' counts say, or, for a capped change (`reported`: its counts), those within
 * the caps (as cappedCounts counted them) and the "logs truncated" line where the stream crossed one.
 */
export function appendedLogSql(written: SQL, lists: AppendedLists = sameForEveryJob, reported?: Before): SQL {
  if (reported) return cappedLogSql(written, lists, reported);
  const eventCount = lists.eventCount ?? sql`${p("eventCount")}::int`;
  const logCount = lists.logCount ?? sql`${p("logCount")}::int`;
  const eventsAt = lists.eventsAt ?? sql`now()`;
  return sql`appended_events as (
      insert into ${jobEvents} (job_id, sequence, type, attempt, node_id, data, created_at)
      select c.id, c.event_seq - ${eventCount} + e.i, e.type, c.attempt, e.node_id,
        case when e.with_attempt then coalesce(e.data, '{}'::jsonb) || jsonb_build_object('attempt', c.attempt) else e.data end,
        ${eventsAt}
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

function cappedLogSql(written: SQL, lists: AppendedLists, reported: Before): SQL {
  const before = {
    items: sql`(c.reported_items - ${reported.items})`,
    bytes: sql`(c.reported_bytes - ${reported.bytes})`,
  };
  // Sequences count back from the written row's: the rows stored, in order, end at its event_seq / log_seq.
  return sql`appended_events as (
      insert into ${jobEvents} (job_id, sequence, type, attempt, node_id, data)
      select c.id, c.event_seq - count(*) over (partition by c.id) + row_number() over (partition by c.id order by e.i),
        e.type, c.attempt, e.node_id,
        case when e.with_attempt then coalesce(e.data, '{}'::jsonb) || jsonb_build_object('attempt', c.attempt) else e.data end
      from ${written} c cross join jsonb_to_recordset(${lists.events}) as e(${eventColumns})
      where ${isStored(sql`e`, before)}
    ),
    appended_logs as (
      insert into ${jobLogs} (job_id, sequence, level, source, message, node_id)
      select o.id, o.log_seq - count(*) over (partition by o.id) + row_number() over (partition by o.id order by o.place, o.kept),
        o.level, o.source, o.message, o.node_id
      from (
        select c.id, c.log_seq, l.i as place, 1 as kept, l.level, l.source,
          case when l.with_attempt then replace(l.message, '{attempt}', c.attempt::text) else l.message end as message, l.node_id
        from ${written} c cross join jsonb_to_recordset(${lists.logs}) as l(${logColumns})
        where ${isStored(sql`l`, before)}
        union all
        -- In place of the first reported line dropped (before the change's lines when a provider request was).
        select c.id, c.log_seq,
          coalesce((select min(l.i) from jsonb_to_recordset(${lists.logs}) as l(${logColumns})
            where l.r_i is not null and not ${isStored(sql`l`, before)}), 0),
          0, 'warn', 'platform', ${sqlLiterals([truncatedLogMessage])}, null::uuid
        from ${written} c
        where ${truncatesHere(lists, before)}
      ) o
    )`;
}
