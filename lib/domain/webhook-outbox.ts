// The webhook outbox's dispatch side: events are written by the statement of the job change that causes them
// (lib/engine/webhook-fanout.ts: none is lost and none is phantom), claimed by one dispatcher at a time (FOR UPDATE SKIP LOCKED plus a lease kept
// in next_attempt_at, so a crash mid-send leads to a retry), and retried on the schedule of CONTRACT §8.
import { randomUUID } from "node:crypto";
import { getTableColumns, sql } from "drizzle-orm";
import { webhookDestinationForbidden } from "@/lib/contract/vocabulary";
import {
  accounts,
  jobReceipts,
  jobs,
  nodes,
  webhookAttempts,
  webhookDeliveries,
  webhookEndpoints,
} from "@/lib/db/schema";
import { env } from "@/lib/env";
import { limits } from "@/lib/limits";
import { db } from "./database";
import { receiptEventType } from "./webhook-events";
import { metrics } from "@/lib/metrics";
import { tracingOn } from "@/lib/tracing";

// ── Dispatching ──────────────────────────────────────────────────────────────────────────────────────

export interface ClaimedDelivery {
  deliveryId: string;
  claimId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  jobId: string | null;
  body: string;
  attempt: number;
  /** Position in the retry schedule and start of the retry window of this (re)delivery. */
  cycleAttempts: number;
  cycleStartedAt: Date;
  url: string;
  /** Encrypted secrets that sign this attempt: the current one, and the previous one during its overlap. */
  secretCiphertexts: string[];
  /** The job's trace (its traceparent) when tracing is on and the job has one: the delivery is a span in it. */
  traceContext: string | null;
  /** A job.completed event's job, with what its receipt states beyond it and the receipt if issued; else null. */
  receiptSource: ReceiptSource | null;
}

/** A job with what its receipt states beyond it (the developer's wallet, the node's owner) and its stored receipt. */
export interface ReceiptSource {
  job: typeof jobs.$inferSelect;
  wallet: string;
  nodeOwner: string | null;
  /** The stored receipt (job_receipts.body: its stored form, lib/contract/receipts.ts), or null before it is issued. */
  receipt: string | null;
}

/** The jobs table's columns, selected as `j_<key>` from the relation `j` and mapped back as drizzle maps them. */
const jobColumns = Object.entries(getTableColumns(jobs));
const jobColumnsSql = sql.raw(jobColumns.map(([key, column]) => `j.${column.name} as "j_${key}"`).join(", "));
function jobOf(row: Record<string, unknown>): typeof jobs.$inferSelect {
  const job: Record<string, unknown> = {};
  for (const [key, column] of jobColumns) {
    const value = row[`j_${key}`];
    job[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return job as typeof jobs.$inferSelect;
}

/** The lease of a claimed attempt: past it, another dispatcher may try again (the sender crashed). */
const leaseMs = () => env().WEBHOOK_TIMEOUT_MS + 5_000;

/** A claim's deliveries, and in how long the next delivery it left falls due. */
export interface Claim {
  claims: ClaimedDelivery[];
  /** By the database's clock at the claim (0 or less: due, but not claimable here); null: none pending. */
  nextDueInMs: number | null;
}

/**
 * Claims up to `max` due deliveries of enabled endpoints, at most `limits.webhookInFlightPerEndpoint` in flight
 * per endpoint, counting those `inFlight` here already (an endpoint at the limit gets none). One statement: rows
 * another instance holds are skipped, and a claimed row is not due again until its lease ends. The same statement
 * reads when the next pending delivery it did not claim falls due (the dispatcher's sleep), so nothing that falls
 * due after the claim can be missed by a later read, and it reads what a job.completed event's receipt needs (the
 * job, its developer's wallet, its node's owner, the receipt if issued): a claim costs one round trip.
 */
export async function claimDueDeliveries(max: number, inFlight: ReadonlyMap<string, number>): Promise<Claim> {
  const claimId = randomUUID();
  const perEndpoint = limits.webhookInFlightPerEndpoint;
  // Endpoints at the limit are left out before the ranking; the others rank against the room their cap leaves.
  const busyEndpoints = [...inFlight].filter(([, n]) => n >= perEndpoint).map(([id]) => id);
  const sentHere = JSON.stringify(Object.fromEntries(inFlight));
  const result = await (
    await db()
  ).execute(sql`
    with due as (
      select id from (
        select d.id, d.endpoint_id, d.next_attempt_at,
               row_number() over (partition by d.endpoint_id order by d.next_attempt_at) as rank
        from ${webhookDeliveries} d join ${webhookEndpoints} e on e.id = d.endpoint_id
        where d.status = 'pending' and d.next_attempt_at <= now() and e.status = 'enabled'
          and not (d.endpoint_id::text = any(string_to_array(${busyEndpoints.join(",")}, ',')))
      ) ranked
      where rank <= ${perEndpoint}::int - coalesce((${sentHere}::jsonb ->> ranked.endpoint_id::text)::int, 0)
    ),
    locked as (
      select d.id from ${webhookDeliveries} d
      where d.id in (select id from due) and d.status = 'pending' and d.next_attempt_at <= now()
      order by d.next_attempt_at
      limit ${max}
      for update skip locked
    ),
    claimed as (
      update ${webhookDeliveries} d
      set claim_id = ${claimId}, attempts = d.attempts + 1, cycle_attempts = d.cycle_attempts + 1,
          next_attempt_at = now() + make_interval(secs => ${leaseMs() / 1000}), updated_at = now()
      from locked where d.id = locked.id
      returning d.id, d.endpoint_id, d.event_id, d.event_type, d.job_id, d.body, d.attempts, d.cycle_attempts, d.cycle_started_at
    )
    select claimed_row.*, extract(epoch from (due.at - now())) * 1000 as next_due_in_ms
    from (
      select min(d.next_attempt_at) as at
      from ${webhookDeliveries} d join ${webhookEndpoints} e on e.id = d.endpoint_id
      where d.status = 'pending' and e.status = 'enabled' and d.id not in (select id from claimed)
    ) due left join (
      select c.id, c.endpoint_id, c.event_id, c.event_type, c.job_id, c.body, c.attempts, c.cycle_attempts, c.cycle_started_at, e.url, e.secret_ciphertext,
             case when e.previous_secret_expires_at > now() then e.previous_secret_ciphertext end as previous_secret_ciphertext,
             ${tracingOn ? sql`(select t.trace_context from ${jobs} t where t.id = c.job_id)` : sql`null`} as trace_context,
             ${jobColumnsSql}, a.wallet_address as receipt_wallet, n.owner_account_id as receipt_node_owner,
             r.body as receipt_body
      from claimed c join ${webhookEndpoints} e on e.id = c.endpoint_id
        left join ${jobs} j on c.event_type = ${receiptEventType} and j.id = c.job_id
        left join ${accounts} a on a.id = j.account_id
        left join ${nodes} n on n.id = j.assigned_node_id
        left join ${jobReceipts} r on r.job_id = j.id
    ) claimed_row on true`);
  type Row = {
    next_due_in_ms: string | number | null;
    id: string | null;
    endpoint_id: string;
    event_id: string;
    event_type: string;
    job_id: string | null;
    body: string;
    attempts: number;
    cycle_attempts: number;
    cycle_started_at: string | Date;
    url: string;
    secret_ciphertext: string;
    previous_secret_ciphertext: string | null;
    trace_context: string | null;
    receipt_wallet: string | null;
    receipt_node_owner: string | null;
    receipt_body: string | null;
  } & Record<string, unknown>;
  const rows = (result as unknown as { rows: Row[] }).rows;
  const dueIn = rows[0]?.next_due_in_ms;
  const claims = rows
    .filter((r): r is Row & { id: string } => r.id !== null)
    .map((r) => ({
      deliveryId: r.id,
      claimId,
      endpointId: r.endpoint_id,
      eventId: r.event_id,
      eventType: r.event_type,
      jobId: r.job_id,
      body: r.body,
      attempt: r.attempts,
      cycleAttempts: r.cycle_attempts,
      cycleStartedAt: new Date(r.cycle_started_at),
      url: r.url,
      secretCiphertexts: [r.secret_ciphertext, ...(r.previous_secret_ciphertext ? [r.previous_secret_ciphertext] : [])],
      traceContext: r.trace_context,
      receiptSource:
        r.receipt_wallet === null || r.receipt_wallet === undefined
          ? null
          : { job: jobOf(r), wallet: r.receipt_wallet, nodeOwner: r.receipt_node_owner, receipt: r.receipt_body },
    }));
  return { claims, nextDueInMs: dueIn === null || dueIn === undefined ? null : Number(dueIn) };
}

export interface AttemptOutcome {
  responseStatus: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string | null;
}

/** The wait before the retry after the `n`th failed attempt of a cycle (1-based): the last step repeats. */
export function retryDelayMs(n: number, schedule: readonly number[] = env().WEBHOOK_RETRY_SCHEDULE_MS): number {
  return schedule[Math.min(n, schedule.length) - 1];
}

/** PostgreSQL's text holds any character but NUL: an answer's NUL is kept as U+FFFD, not refused. */
const storableText = (text: string | null) => text?.replaceAll("\u0000", "\uFFFD") ?? null;

/** What an attempt sent besides the delivery's body: the headers (signature included) and when. */
export interface AttemptRequest {
  headers: Record<string, string>;
  attemptedAt: Date;
}

export const isSuccess = (outcome: AttemptOutcome) =>
  outcome.responseStatus !== null && outcome.responseStatus >= 200 && outcome.responseStatus < 300;

/**
 * Records an attempt and what follows from it: success; a retry on the schedule; `failed` once the next
 * try would fall outside the retry window, or at once when the policy refused the destination (no retry
 * would be allowed either); and the endpoint disabled when it has failed for too long.
 * The attempt is kept with what it sent and what was answered, and only the delivery's newest
 * `limits.webhookAttemptsKept` are kept (a delivery retried for 24 h, then redelivered, stays small).
 * Only the claim that made the attempt may record it (a redelivery or deletion in between wins).
 */
export async function recordAttempt(
  claim: ClaimedDelivery,
  outcome: AttemptOutcome,
  request: AttemptRequest,
): Promise<void> {
  const config = env();
  const succeeded = isSuccess(outcome);
  const delay = retryDelayMs(claim.cycleAttempts);
  const givesUp =
    !succeeded &&
    (outcome.error === webhookDestinationForbidden ||
      Date.now() + delay > claim.cycleStartedAt.getTime() + config.WEBHOOK_RETRY_WINDOW_MS);
  const disableAfter = sql`make_interval(secs => ${config.WEBHOOK_DISABLE_AFTER_MS / 1000})`;
  const disabledReason = `Every delivery failed for ${Math.round(config.WEBHOOK_DISABLE_AFTER_MS / 3_600_000)} h; disabled automatically.`;
  // One statement (the dispatcher's only write per attempt): the attempt row, the delivery's next state, and
  // the endpoint's failure clock. Nothing happens when the claim is no longer the delivery's.
  await (
    await db()
  ).execute(sql`
    with delivery as (
      update ${webhookDeliveries}
      set status = ${succeeded ? "succeeded" : givesUp ? "failed" : "pending"},
          next_attempt_at = ${succeeded || givesUp ? null : sql`now() + make_interval(secs => ${delay / 1000})`},
          claim_id = null,
          last_response_status = ${outcome.responseStatus},
          last_error = ${outcome.error},
          last_latency_ms = ${outcome.latencyMs},
          updated_at = now()
      where id = ${claim.deliveryId} and claim_id = ${claim.claimId}
      returning id
    ),
    attempt as (
      insert into ${webhookAttempts} (delivery_id, attempt, response_status, latency_ms, error, response_body, request_headers, created_at)
      select id, ${claim.attempt}, ${outcome.responseStatus}, ${outcome.latencyMs}, ${outcome.error},
             ${storableText(outcome.responseBody)}, ${JSON.stringify(request.headers)}::jsonb, ${request.attemptedAt.toISOString()}::timestamptz
      from delivery
    ),
    older as (
      delete from ${webhookAttempts}
      where delivery_id = (select id from delivery) and attempt <= ${claim.attempt - limits.webhookAttemptsKept}
    )
    update ${webhookEndpoints}
    set ${
      succeeded
        ? sql`failing_since = null`
        : sql`failing_since = coalesce(failing_since, now()),
              status = case when failing_since < now() - ${disableAfter} then 'disabled' else status end,
              disabled_reason = case when failing_since < now() - ${disableAfter} then ${disabledReason} else disabled_reason end,
              updated_at = now()`
    }
    where id = ${claim.endpointId} and exists (select 1 from delivery) ${succeeded ? sql`and failing_since is not null` : sql``}`);
  metrics().webhookDeliveries.inc({ outcome: succeeded ? "succeeded" : givesUp ? "failed" : "retried" });
}
