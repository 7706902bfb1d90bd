// The creation of one developer's jobs (one or several submissions through one key, written together by the
// developer's lane: write-lanes.ts), in ONE statement (its own transaction: no BEGIN/COMMIT either): the
// charge of them all (only while the balance covers it and the key's limit allows it), the key's spend, each
// job born routing (queued, then offered to the nodes), its first events and log line, the webhook events of
// both statuses for the developer's subscribed endpoints (none without), a ledger entry per job, the
// idempotency records, and a `credits.low` event when the charge crosses the developer's threshold. On
// PostgreSQL the statement also signals the waiting nodes and the webhook dispatcher (NOTIFY is delivered at
// its commit).
import { sql, type SQL } from "drizzle-orm";
import { executeShaped, sqlLiterals } from "@/lib/db/prepared-statements";
import type { Tx } from "@/lib/db/database";
import { accounts, apiKeys, creditLedger, idempotencyKeys, jobs } from "@/lib/db/schema";
import { DomainError } from "@/lib/domain/errors";
import { countedSql, creditEntriesCounted, jobsCounted } from "@/lib/domain/list-counts";
import { signal, signalsInline, workChannel } from "@/lib/domain/signals";
import {
  chargeCountersSql,
  keyCreditLimitError,
  lowBalanceDeliveryRowsSql,
  spendClockOverride,
  spendClockSql,
  spentAgainstLimitSql,
} from "@/lib/domain/spend-controls";
import { createdDeltasSql, usageRollupCtes } from "@/lib/domain/usage-rollups";
import { newEventId, webhookChannel } from "@/lib/domain/webhook-events";
import type { CreditLimitReset } from "@/lib/contract/vocabulary";
import type { ExecutionJob } from "@/lib/contract/schemas";
import { appendedLogSql, appendedRows } from "./appended-log";
import { isoSql, toExecutionJob } from "./execution-job";
import type { EventInput, JobRow, LogInput } from "./job-change";
import { assertTransition } from "./job-machine";
import { webhookFanoutSql } from "./webhook-fanout";
import { createdWork, sendHandingOver } from "./work-signals";
import { metrics } from "@/lib/metrics";
import { afterCommit } from "@/lib/db/after-commit";

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

/** Jobs that may be created in one statement: one key's, with as many events and log lines each. */
export const createdTogether = (a: NewJob, b: NewJob): boolean =>
  a.row.accountId === b.row.accountId &&
  a.row.apiKeyId === b.row.apiKeyId &&
  a.created.events.length === b.created.events.length &&
  a.created.logs.length === b.created.logs.length &&
  a.routed.events.length === b.routed.events.length;

/** Several jobs were not charged together (their total is short): each must be created, or refused, alone. */
class RefusedTogether extends Error {
  constructor() {
    super("The jobs' total cost is more than the balance or the key's limit allows.");
  }
}

/** One batch entry: what a job's row, log, ledger entry and idempotency record need beyond what all share. */
function batchEntry(job: NewJob, i: number) {
  const { row } = job;
  const rows = appendedRows([...job.created.events, ...job.routed.events], job.created.logs);
  return {
    i,
    id: row.id,
    workflow_run_id: row.workflowRunId,
    service_id: row.serviceId,
    input: row.input,
    credit_cost: row.creditCost,
    placement: row.placement,
    max_attempts: row.maxAttempts,
    timeout_ms: row.timeoutMs,
    events: rows.events,
    logs: rows.logs,
    ledger_description: `${row.serviceId} job`,
    // Only a keyed job's response is stored (it gets its times from the same clock as the job row); it holds
    // the input, which would otherwise go to the database twice.
    response_template: job.idempotency ? asCreated(job, new Date(0)) : null,
    idempotency_key: job.idempotency?.key ?? null,
    fingerprint: job.idempotency?.fingerprint ?? null,
    trace_context: row.traceContext,
  };
}

/**
 * Creates the jobs (all `createdTogether`), or writes nothing and throws: alone, 402 when the balance or the
 * key's limit is short; several, RefusedTogether. A concurrent request with one of their idempotency keys
 * fails the whole statement on the key's primary key. Inside a caller's transaction (`d` one), the nodes are
 * woken by the NOTIFY its commit delivers, never before: a claim woken earlier would not see the jobs yet.
 */
export async function createJobs(
  d: Tx,
  batch: NewJob[],
  { inTransaction = false }: { inTransaction?: boolean } = {},
): Promise<ExecutionJob[]> {
  const [first] = batch;
  const { row } = first;
  const inline = await signalsInline();
  const keyed = row.apiKeyId !== null;
  const cost = batch.reduce((sum, job) => sum + job.row.creditCost, 0);
  const serviceIds = new Set(batch.map((job) => job.row.serviceId));
  const work = inline
    ? await createdWork(
        batch.map(({ row }) => ({ serviceId: row.serviceId, placement: row.placement })),
        { handOver: !inTransaction },
      )
    : undefined;
  const send = (on: Tx) =>
    executeShaped<Outcome>(on, "submission", `${inline};${keyed}`, () => creationStatement(inline, keyed), {
      jobs: JSON.stringify(batch.map(batchEntry)),
      accountId: row.accountId,
      apiKeyId: row.apiKeyId,
      cost,
      eventCount: first.created.events.length + first.routed.events.length,
      logCount: first.created.logs.length,
      createdEventCount: first.created.events.length,
      spendAt: spendClockOverride(),
      alertEventId: newEventId(),
      workTag: work?.tag ?? "",
      handedOver: work?.handedOver ?? [],
    });
  const [outcome] = await sendHandingOver(d, work, send).catch((error: unknown) => {
    work?.abandoned();
    throw error;
  });
  if (outcome.created_at === null) {
    work?.abandoned();
    if (batch.length > 1) throw new RefusedTogether();
    const limit = outcome.key_limit === null || outcome.key_limit === undefined ? null : Number(outcome.key_limit);
    if (limit !== null && Number(outcome.key_spent) + cost > limit)
      throw keyCreditLimitError(
        { creditLimit: limit, creditLimitReset: outcome.key_limit_reset, spent: Number(outcome.key_spent) },
        cost,
      );
    throw insufficientCredits(first);
  }
  if (inTransaction) work?.abandoned();
  else await work?.committed();
  if (!inline) {
    // PGlite: its in-process bus, now that the jobs are committed.
    for (const serviceId of serviceIds) await signal(d, workChannel, serviceId);
    if (Number(outcome.webhooks) > 0) await signal(d, webhookChannel, "");
  }
  const createdAt = new Date(outcome.created_at);
  // Inside a caller's transaction, counted once it commits: a rolled-back submission was never accepted.
  afterCommit(d, () => countSubmissions(batch));
  return batch.map((job) => asCreated(job, createdAt));
}

function countSubmissions(batch: NewJob[]): void {
  const { jobsSubmitted, creditsCharged } = metrics();
  for (const { row } of batch) {
    jobsSubmitted.inc({ service: row.serviceId });
    if (row.creditCost > 0) creditsCharged.inc(row.creditCost);
  }
}

/** createJobs' text for one shape: every value is a placeholder, bound on each submission. */
function creationStatement(inline: boolean, keyed: boolean): SQL {
  const p = (name: string) => sql.placeholder(name);
  const at = spendClockSql(p("spendAt"));
  const cost = sql`${p("cost")}::bigint`;
  // pg_notify returns void: selected only for its effect, once per service of the jobs created (repeats of
  // one payload fold into one) but those handed to a claim of this process, tagged with the creation
  // (work-signals.ts), and once when a webhook was written.
  const signals = inline
    ? sql`, (select count(*) from (select pg_notify(${sqlLiterals([workChannel])}, service_id || ' ' || ${p("workTag")}::text) from (select distinct service_id from job where service_id <> all(${p("handedOver")}::text[])) s) n) as signalled,
       (select pg_notify(${sqlLiterals([webhookChannel])}, '') from webhook_rows limit 1) as webhooks_signalled`
    : sql``;
  // The key's row is locked (key_room) before the account's (charge joins it), as on every path that
  // charges or refunds through a key, so concurrent charges through one key never pass its limit.
  const keyRoom = keyed
    ? sql`
    key_room as (
      select credit_limit, credit_limit_reset, ${spentAgainstLimitSql(at)} as spent from ${apiKeys}
      where id = ${p("apiKeyId")}::uuid and ${cost} > 0
      for no key update
    ),`
    : sql``;
  const chargeFrom = keyed ? sql` from key_room` : sql``;
  const withinLimit = keyed
    ? sql` and (key_room.credit_limit is null or key_room.spent + ${cost} <= key_room.credit_limit)`
    : sql``;
  const keySpent = keyed
    ? sql`
    key_spent as (
      update ${apiKeys} set ${chargeCountersSql(cost, at)}
      from charge where ${apiKeys}.id = ${p("apiKeyId")}::uuid
    ),`
    : sql``;
  const keyLimit = keyed
    ? sql`, (select credit_limit from key_room) as key_limit, (select credit_limit_reset from key_room) as key_limit_reset, (select spent from key_room) as key_spent`
    : sql`, null as key_limit, null as key_limit_reset, null as key_spent`;
  // Each job's own charge: of several that together cross the threshold, the one that takes it below alerts.
  const crossing = sql`select ${p("accountId")}::uuid as account_id, balance_after as balance, threshold, credit_cost as cost from charged`;
  // The job's status events and the low-balance alert in one insert of deliveries.
  const webhooks = webhookFanoutSql(
    sql`job`,
    [
      { status: "queued", sequence: sql`c.event_seq - ${p("eventCount")}::int + ${p("createdEventCount")}::int` },
      { status: "routing", sequence: sql`c.event_seq` },
    ],
    lowBalanceDeliveryRowsSql(crossing, p("alertEventId")),
  );
  // Each job's own events and log lines, from its batch entry.
  const ownLists = {
    events: sql`(select b.events from batch b where b.id = c.id)`,
    logs: sql`(select b.logs from batch b where b.id = c.id)`,
    // The job and its JOB_CREATED show one instant (the job's, cut to the milliseconds its charge is matched in).
    eventsAt: sql`c.created_at`,
  };
  return sql`
    with batch as (
      select * from jsonb_to_recordset(${p("jobs")}::jsonb) as b(
        i int, id uuid, workflow_run_id uuid, service_id text, input jsonb, credit_cost int, placement text,
        max_attempts int, timeout_ms int, events jsonb, logs jsonb, ledger_description text,
        response_template jsonb, idempotency_key text, fingerprint text, trace_context text)
    ),${keyRoom}
    charge as (
      update ${accounts} set credit_balance = credit_balance - ${cost}, credit_updated_at = now()${chargeFrom}
      where ${accounts}.id = ${p("accountId")}::uuid and credit_balance >= ${cost} and ${cost} > 0${withinLimit}
      returning credit_balance, low_balance_threshold
    ),${keySpent}
    allowed as (
      select 1 from charge
      union all
      select 1 where ${cost} = 0
    ),
    job as (
      insert into ${jobs} (id, workflow_run_id, account_id, api_key_id, service_id, status, input, credit_cost,
                           placement, max_attempts, timeout_ms, routing_started_at, event_seq, log_seq, charged_at,
                           created_at, updated_at, trace_context)
      select b.id, b.workflow_run_id, ${p("accountId")}::uuid, ${p("apiKeyId")}::uuid, b.service_id, 'routing',
             b.input, b.credit_cost, b.placement, b.max_attempts, b.timeout_ms, now(),
             ${p("eventCount")}::int, ${p("logCount")}::int, ${keyed ? at : sql`null`}, ${at}, ${at}, b.trace_context
      from batch b cross join allowed
      order by b.i
      returning *
    ),
    ${appendedLogSql(sql`job`, ownLists)},
    charged as (
      -- In the batch's order, each job's charge with the balance after it.
      select b.i, b.id, b.credit_cost, b.ledger_description, charge.low_balance_threshold as threshold,
             charge.credit_balance + coalesce(sum(b.credit_cost) over (order by b.i rows between 1 following and unbounded following), 0) as balance_after
      from batch b cross join charge
    ),
    ledger as (
      insert into ${creditLedger} (account_id, type, amount, balance_after, job_id, description, created_at)
      select ${p("accountId")}::uuid, 'charge', -credit_cost, balance_after, id, ledger_description, ${at}
      from charged
      order by i
    ),
    ${usageRollupCtes("usage_counted", createdDeltasSql(sql`job`))},
    ${webhooks},
    webhook_rows as (select 1 from webhook_written),
    lists_counted as (${countedSql(
      jobsCounted(p("accountId"), sql`select count(*) from job`),
      creditEntriesCounted(p("accountId"), sql`select count(*) from charged`),
    )}),
    remembered as (
      insert into ${idempotencyKeys} (account_id, key, fingerprint, job_id, response_status, response_body)
      select ${p("accountId")}::uuid, b.idempotency_key, b.fingerprint, b.id, 202,
             jsonb_set(jsonb_set(b.response_template, '{createdAt}', to_jsonb(${isoSql(sql`j.created_at`)})), '{updatedAt}', to_jsonb(${isoSql(sql`j.created_at`)}))
      from batch b join job j on j.id = b.id
      where b.idempotency_key is not null
    )
    select (select ${isoSql(sql`created_at`)} from job limit 1) as created_at${keyLimit},
           (select count(*) from webhook_rows) as webhooks${signals}`;
}
