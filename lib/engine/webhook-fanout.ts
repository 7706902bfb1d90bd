// The webhook events of a status change, written by the change's own statement: one event per (job, status
// passed, event type) that some enabled endpoint of the job's developer subscribes to, one delivery per such
// endpoint. A developer without endpoints gets no rows; the statement is the same either way, so having
// endpoints changes which rows a change writes, never which code runs. The dispatcher sends them
// (lib/network/webhook-dispatcher.ts), woken by the webhook signal the statement's caller sends.
import { sql, type SQL } from "drizzle-orm";
import { sqlLiterals } from "@/lib/db/prepared-statements";
import { nodes, webhookDeliveries, webhookEndpoints } from "@/lib/db/schema";
import { eventTypesOf, newEventIdSql } from "@/lib/domain/webhook-events";
import type { JobStatus } from "@/lib/contract/vocabulary";
import { executionJobSql, isoSql } from "./execution-job";

/** A status a change passes, and the job's telemetry sequence there (SQL over the written row `c`). */
export interface StatusPassed {
  status: JobStatus;
  sequence: SQL;
}

/**
 * Two CTEs, webhook_events (materialized: one event id per event, shared by its deliveries) and
 * webhook_written (the deliveries, `returning 1`), for the jobs of `written` (jobs rows after the change).
 * `data.sequence` is the job's telemetry sequence at the status, so a receiver can order events. `alsoDelivered`:
 * more deliveries the statement writes (rows of endpoint_id, account_id, event_id, event_type, job_id, body), in
 * the same insert: each insert into webhook_deliveries runs the kept total's statement trigger, rows or none.
 */
export function webhookFanoutSql(written: SQL, passed: readonly StatusPassed[], alsoDelivered?: SQL): SQL {
  const rows = passed.flatMap(({ status, sequence }) =>
    eventTypesOf(status).map((type) => sql`(${sqlLiterals([status])}, ${sqlLiterals([type])}, ${sequence})`),
  );
  const subscribed = (account: SQL, type: SQL) =>
    sql`w.account_id = ${account} and w.status = 'enabled' and ${type} = any(w.events)`;
  return sql`webhook_events as materialized (
      select c.id as job_id, c.account_id, s.type, ${sql.raw(newEventIdSql)} as event_id,
        json_build_object('type', s.type, 'timestamp', ${isoSql(sql`c.updated_at`)}, 'data',
          json_build_object('job', ${executionJobSql(sql`c`, sql`n`, sql`s.status`)}, 'sequence', s.sequence))::text as body
      from ${written} c
        cross join lateral (values ${sql.join(rows, sql`, `)}) as s(status, type, sequence)
        left join ${nodes} n on n.id = c.assigned_node_id
      where exists (select 1 from ${webhookEndpoints} w where ${subscribed(sql`c.account_id`, sql`s.type`)})
    ),
    webhook_written as (
      insert into ${webhookDeliveries} (endpoint_id, account_id, event_id, event_type, job_id, body)
      select w.id, e.account_id, e.event_id, e.type, e.job_id, e.body
      from webhook_events e join ${webhookEndpoints} w on ${subscribed(sql`e.account_id`, sql`e.type`)}${
        alsoDelivered
          ? sql`
      union all ${alsoDelivered}`
          : sql``
      }
      returning 1
    )`;
}
