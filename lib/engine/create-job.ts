// A job's creation, in ONE statement (its own transaction: no BEGIN/COMMIT either): the charge (only while
// the balance covers it and the key's limit allows it), the key's spend, the job born routing (queued, then
// offered to the nodes), its first events and log line, the webhook events of both statuses for the
// developer's subscribed endpoints (none without), the ledger entry, the idempotency record, and a
// `credits.low` event when the charge crosses the developer's threshold. On PostgreSQL the statement also
// signals the waiting nodes and the webhook dispatcher (NOTIFY is delivered at its commit).
import { sql, type SQL } from "drizzle-orm";
import { executeShaped, sqlLiterals } from "@/lib/db/prepared-statements";
import type { Db } from "@/lib/db/database";
import { accounts, apiKeys, creditLedger, idempotencyKeys, jobs } from "@/lib/db/schema";
import { DomainError } from "@/lib/domain/errors";
import { signal, signalsInline, workChannel } from "@/lib/domain/signals";
import {
  chargeCountersSql,
  keyCreditLimitError,
  lowBalanceDeliveriesSql,
  spendClockOverride,
  spendClockSql,
  spentAgainstLimitSql,
} from "@/lib/domain/spend-controls";
import { newEventId, webhookChannel } from "@/lib/domain/webhook-events";
import type { CreditLimitReset } from "@/lib/contract/vocabulary";
import type { ExecutionJob } from "@/lib/contract/schemas";
import { appendedLogSql, appendedLogValues } from "./appended-log";
import { isoSql, toExecutionJob } from "./execution-job";
import type { EventInput, JobRow, LogInput } from "./job-change";
import { assertTransition } from "./job-machine";
import { webhookFanoutSql } from "./webhook-fanout";

/** A checked submission: the job to create, as it is born (queued) before it is offered to the nodes. */
export interface NewJob {
  row: Omit<JobRow, "createdAt" | "updatedAt">;
  /** The events and log lines of its birth (queued), then the events of its routing. */
  created: { events: EventInput[]; logs: LogInput[] };
  routed: { events: EventInput[] };
  idempotency?: { key: string; fingerprint: string };
}

// Every job is created queued and routed in the same statement.
assertTransition("queued", "routing");

/** The response shows the job as created (queued), at the database's time of creation. */
const asCreated = (job: NewJob, createdAt: Date): ExecutionJob =>
  toExecutionJob({ ...job.row, createdAt, updatedAt: createdAt }, null);

const insufficientCredits = (job: NewJob) =>
  new DomainError("INSUFFICIENT_CREDITS", "Not enough credits for this request.", { required: job.row.creditCost });

type Outcome = {
  created_at: string | null;
  key_limit: string | number | null;
  key_limit_reset: CreditLimitReset | null;
  key_spent: string | number | null;
  webhooks: string | number;
};

/**
 * Creates the job, or writes nothing and throws: 402 when the balance or the key's limit is short. A
 * concurrent request with the same idempotency key fails the whole statement on the key's primary key.
 */
export async function createJob(d: Db, job: NewJob): Promise<ExecutionJob> {
  const { row } = job;
  const key = job.idempotency;
  const inline = await signalsInline();
  const keyed = row.apiKeyId !== null;
  const [outcome] = await executeShaped<Outcome>(
    d,
    "submission",
    `${inline};${key !== undefined};${keyed}`,
    () => creationStatement(inline, key !== undefined, keyed),
    {
      id: row.id,
      workflowRunId: row.workflowRunId,
      accountId: row.accountId,
      apiKeyId: row.apiKeyId,
      serviceId: row.serviceId,
      input: JSON.stringify(row.input),
      creditCost: row.creditCost,
      placement: row.placement,
      maxAttempts: row.maxAttempts,
      timeoutMs: row.timeoutMs,
      ...appendedLogValues([...job.created.events, ...job.routed.events], job.created.logs),
      createdEventCount: job.created.events.length,
      ledgerDescription: `${row.serviceId} job`,
      // The stored response gets its times from the same clock as the job row.
      responseTemplate: JSON.stringify(asCreated(job, new Date(0))),
      idempotencyKey: key?.key ?? null,
      fingerprint: key?.fingerprint ?? null,
      spendAt: spendClockOverride(),
      alertEventId: newEventId(),
    },
  );
  if (outcome.created_at === null) {
    const limit = outcome.key_limit === null || outcome.key_limit === undefined ? null : Number(outcome.key_limit);
    if (limit !== null && Number(outcome.key_spent) + row.creditCost > limit)
      throw keyCreditLimitError(
        { creditLimit: limit, creditLimitReset: outcome.key_limit_reset, spent: Number(outcome.key_spent) },
        row.creditCost,
      );
    throw insufficientCredits(job);
  }
  if (!inline) {
    // PGlite: its in-process bus, now that the job is committed.
    await signal(d, workChannel, row.serviceId);
    if (Number(outcome.webhooks) > 0) await signal(d, webhookChannel, "");
  }
  return asCreated(job, new Date(outcome.created_at));
}

/** createJob's text for one shape: every value is a placeholder, bound on each submission. */
function creationStatement(inline: boolean, remembered: boolean, keyed: boolean): SQL {
  const p = (name: string) => sql.placeholder(name);
  const at = spendClockSql(p("spendAt"));
  // pg_notify returns void: selected only for its effect, once when the job was created (or a webhook written).
  const signals = inline
    ? sql`, (select pg_notify(${sqlLiterals([workChannel])}, ${p("serviceId")}::text) from job) as signalled,
       (select pg_notify(${sqlLiterals([webhookChannel])}, '') from webhook_rows limit 1) as webhooks_signalled`
    : sql``;
  // The key's row is locked (key_room) before the account's (charge joins it), as on every path that
  // charges or refunds through a key, so concurrent charges through one key never pass its limit.
  const keyRoom = keyed
    ? sql`
    key_room as (
      select credit_limit, credit_limit_reset, ${spentAgainstLimitSql(at)} as spent from ${apiKeys}
      where id = ${p("apiKeyId")}::uuid and ${p("creditCost")}::int > 0
      for no key update
    ),`
    : sql``;
  const chargeFrom = keyed ? sql` from key_room` : sql``;
  const withinLimit = keyed
    ? sql` and (key_room.credit_limit is null or key_room.spent + ${p("creditCost")}::int <= key_room.credit_limit)`
    : sql``;
  const keySpent = keyed
    ? sql`
    key_spent as (
      update ${apiKeys} set ${chargeCountersSql(sql`${p("creditCost")}::bigint`, at)}
      from charge where ${apiKeys}.id = ${p("apiKeyId")}::uuid
    ),`
    : sql``;
  const keyLimit = keyed
    ? sql`, (select credit_limit from key_room) as key_limit, (select credit_limit_reset from key_room) as key_limit_reset, (select spent from key_room) as key_spent`
    : sql`, null as key_limit, null as key_limit_reset, null as key_spent`;
  const crossing = sql`select ${p("accountId")}::uuid as account_id, credit_balance as balance, low_balance_threshold as threshold, ${p("creditCost")}::bigint as cost from charge`;
  const webhooks = webhookFanoutSql(sql`job`, [
    { status: "queued", sequence: sql`c.event_seq - ${p("eventCount")}::int + ${p("createdEventCount")}::int` },
    { status: "routing", sequence: sql`c.event_seq` },
  ]);
  return sql`
    with${keyRoom}
    charge as (
      update ${accounts} set credit_balance = credit_balance - ${p("creditCost")}::int, credit_updated_at = now()${chargeFrom}
      where ${accounts}.id = ${p("accountId")}::uuid and credit_balance >= ${p("creditCost")}::int and ${p("creditCost")}::int > 0${withinLimit}
      returning credit_balance, low_balance_threshold
    ),${keySpent}
    allowed as (
      select 1 from charge
      union all
      select 1 where ${p("creditCost")}::int = 0
    ),
    job as (
      insert into ${jobs} (id, workflow_run_id, account_id, api_key_id, service_id, status, input, credit_cost,
                           placement, max_attempts, timeout_ms, routing_started_at, event_seq, log_seq, charged_at)
      select ${p("id")}::uuid, ${p("workflowRunId")}::uuid, ${p("accountId")}::uuid, ${p("apiKeyId")}::uuid, ${p("serviceId")}::text, 'routing',
             ${p("input")}::jsonb, ${p("creditCost")}::int, ${p("placement")}::text, ${p("maxAttempts")}::int, ${p("timeoutMs")}::int, now(),
             ${p("eventCount")}::int, ${p("logCount")}::int, ${keyed ? at : sql`null`}
      from allowed
      returning *
    ),
    ${appendedLogSql(sql`job`)},
    ${webhooks},
    ledger as (
      insert into ${creditLedger} (account_id, type, amount, balance_after, job_id, description)
      select ${p("accountId")}::uuid, 'charge', -${p("creditCost")}::bigint, credit_balance, ${p("id")}::uuid, ${p("ledgerDescription")}::text
      from charge
    ),
    low_balance as (${lowBalanceDeliveriesSql(crossing, p("alertEventId"))}),
    webhook_rows as (select 1 from low_balance union all select 1 from webhook_written)${
      remembered
        ? sql`,
    remembered as (
      insert into ${idempotencyKeys} (account_id, key, fingerprint, job_id, response_status, response_body)
      select ${p("accountId")}::uuid, ${p("idempotencyKey")}::text, ${p("fingerprint")}::text, ${p("id")}::uuid, 202,
             jsonb_set(jsonb_set(${p("responseTemplate")}::jsonb, '{createdAt}', to_jsonb(j.iso)), '{updatedAt}', to_jsonb(j.iso))
      from (select ${isoSql(sql`created_at`)} as iso from job) j
    )`
        : sql``
    }
    select (select ${isoSql(sql`created_at`)} from job) as created_at${keyLimit},
           (select count(*) from webhook_rows) as webhooks${signals}`;
}
