// Submission (CONTRACT §4): the checks, then the job, its first telemetry and log line, the credit charge
// (with the key's spend under its limit and the low-balance alert: §11) and the idempotency record, together
// or not at all. Usually that is one SQL statement (a single statement is its own transaction, so there is no
// BEGIN/COMMIT either); a developer with webhook endpoints for job events takes the general path, which also
// writes the outbox (lib/domain/webhook-outbox.ts).
import { randomUUID } from "node:crypto";
import { sql, type SQL } from "drizzle-orm";
import { executeShaped, sqlLiterals, type Db, type Tx } from "@/lib/db/client";
import {
  accounts,
  apiKeys,
  creditLedger,
  idempotencyKeys,
  jobEvents,
  jobLogs,
  jobs,
  webhookEndpoints,
} from "@/lib/db/schema";
import { env } from "@/lib/env";
import { isServiceId, serviceInputs } from "./catalog";
import { applyLedgerEntry } from "./credits";
import { DomainError, issuesOf } from "./errors";
import { findReplay, isUniqueViolation, requestFingerprint, storeResponse, type StoredResponse } from "./idempotency";
import { Computed, recordJobChange, recordJobCreation, type EventInput, type JobRow, type LogInput } from "./job-log";
import { assertTransition } from "./job-machine";
import { toExecutionJob } from "./jobs";
import { db } from "./database";
import { findService, type ServiceRow } from "./services";
import { signal, signalsInline, workChannel } from "./signals";
import {
  chargeCountersSql,
  chargeKeySpend,
  keyCreditLimitError,
  lowBalanceDeliveriesSql,
  recordLowBalanceAlert,
  spendClockOverride,
  spendClockSql,
  spentAgainstLimitSql,
} from "./spend-controls";
import { eventTypesOf, newEventId, webhookChannel } from "./webhook-outbox";
import type { CreditLimitReset, Placement } from "@/lib/contract/vocabulary";
import { ownNodeCreditCost } from "./own-node-price";
import type { ExecutionJob } from "@/lib/contract/schemas";

export interface Submission {
  accountId: string;
  apiKeyId: string | null;
  serviceId: string;
  input: Record<string, unknown>;
  /** Where the job may run (CONTRACT §12); default "any". */
  placement?: Placement;
  idempotencyKey?: string;
}

export interface SubmissionOutcome {
  response: StoredResponse & { body: ExecutionJob };
  replayed: boolean;
}

/** A checked submission: the job to create, as it is born (queued) before it is offered to the nodes. */
interface NewJob {
  row: Omit<JobRow, "createdAt" | "updatedAt">;
  created: { events: EventInput[]; logs: LogInput[] };
  routed: { events: EventInput[] };
  idempotency?: { key: string; fingerprint: string };
}

// Every job is created queued and routed in the same transaction (or statement).
assertTransition("queued", "routing");

/**
 * The catalog row of a service, read at most every few seconds per process: rows change only when an
 * instance starts and seeds the catalog (lib/domain/database.ts), so a status change shows within seconds.
 */
const serviceLifetimeMs = 5_000;
const knownServices = new Map<string, { row: Promise<ServiceRow | undefined>; until: number }>();

function cachedService(d: Db, serviceId: string): Promise<ServiceRow | undefined> {
  const known = knownServices.get(serviceId);
  if (known && Date.now() < known.until) return known.row;
  const row = findService(d, serviceId);
  knownServices.set(serviceId, { row, until: Date.now() + serviceLifetimeMs });
  row.catch(() => knownServices.delete(serviceId));
  return row;
}

/** Service (404, 409 disabled), then input (422): the job a valid submission creates. */
async function checkSubmission(d: Db, submission: Submission, fingerprint: string | undefined): Promise<NewJob> {
  const { accountId, serviceId } = submission;
  const service = isServiceId(serviceId) ? await cachedService(d, serviceId) : undefined;
  if (!service || !isServiceId(serviceId))
    throw new DomainError("SERVICE_NOT_FOUND", `There is no service '${serviceId}'.`);
  if (service.status !== "active") throw new DomainError("SERVICE_DISABLED", `The service '${serviceId}' is disabled.`);
  const parsed = serviceInputs[serviceId].safeParse(submission.input);
  if (!parsed.success) {
    throw new DomainError("INVALID_SERVICE_INPUT", `The input is not valid for '${serviceId}'.`, {
      issues: issuesOf(parsed.error),
    });
  }
  const config = env();
  const id = randomUUID();
  const workflowRunId = randomUUID();
  const placement = submission.placement ?? "any";
  // A job only the developer's own nodes may run costs their share of the price from the start.
  const creditCost = placement === "own" ? ownNodeCreditCost(service.creditCost) : service.creditCost;
  const maxAttempts = config.JOB_MAX_ATTEMPTS;
  const created = {
    events: [
      { type: "JOB_CREATED", data: { serviceId, creditCost } },
      { type: "WORKFLOW_INITIALIZED", data: { workflowRunId, maxAttempts } },
    ] satisfies EventInput[],
    logs: [
      { level: "info", source: "platform", message: `Job accepted for ${serviceId}; ${creditCost} credits charged.` },
    ] satisfies LogInput[],
  };
  return {
    row: {
      id,
      workflowRunId,
      accountId,
      apiKeyId: submission.apiKeyId,
      serviceId,
      status: "queued",
      progress: 0,
      input: parsed.data,
      creditCost,
      placement,
      attempt: 0,
      maxAttempts,
      timeoutMs: config.JOB_TIMEOUT_MS,
      assignedNodeId: null,
      assignedAt: null,
      leaseExpiresAt: null,
      routingStartedAt: null,
      nextAttemptAt: null,
      result: null,
      error: null,
      eventSeq: created.events.length,
      logSeq: created.logs.length,
      startedAt: null,
      completedAt: null,
      chargedAt: null,
    },
    created,
    routed: { events: [{ type: "ROUTING_STARTED", data: { attempt: 1 } }] },
    idempotency: submission.idempotencyKey && fingerprint ? { key: submission.idempotencyKey, fingerprint } : undefined,
  };
}

/** The response shows the job as created (queued), at the database's time of creation. */
const asCreated = (job: NewJob, createdAt: Date): ExecutionJob =>
  toExecutionJob({ ...job.row, createdAt, updatedAt: createdAt }, null);

/** An ISO-8601 UTC time with milliseconds, exactly as Date#toISOString writes it (both truncate). */
const isoOf = (column: ReturnType<typeof sql>) =>
  sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The key's limit as the statement found it (its row locked), when the key has one. */
interface KeyLimitSeen {
  creditLimit: number;
  creditLimitReset: CreditLimitReset | null;
  spent: number;
}

interface StatementOutcome {
  subscribed: boolean;
  createdAt: string | null;
  signalled: boolean;
  keyLimit: KeyLimitSeen | null;
}

/**
 * The whole creation in one statement: charge (only while the balance covers it and the key's limit
 * allows it), the key's spend, job born routing, its events and log line, ledger entry, idempotency record,
 * and a `credits.low` event when the charge crosses the developer's threshold. Nothing is written when the
 * balance or the key's limit is short (→ `createdAt` null) or when the developer has webhook endpoints for
 * the job's first status changes (→ `subscribed`: the caller takes the general path). A concurrent request
 * with the same idempotency key fails the whole statement on the key's primary key. On PostgreSQL the
 * statement also signals the waiting nodes (`signalled`; NOTIFY is delivered at its commit), so a
 * submission is one round trip.
 */
async function createInOneStatement(d: Db, job: NewJob): Promise<StatementOutcome> {
  const { row } = job;
  const events = [...job.created.events, ...job.routed.events].map((e, i) => ({
    sequence: i + 1,
    type: e.type,
    data: e.data ?? null,
  }));
  const logs = job.created.logs.map((l, i) => ({
    sequence: i + 1,
    level: l.level,
    source: l.source,
    message: l.message,
  }));
  const key = job.idempotency;
  const inline = await signalsInline();
  const keyed = row.apiKeyId !== null;
  type Row = {
    subscribed: boolean;
    created_at: string | null;
    key_limit: string | number | null;
    key_limit_reset: CreditLimitReset | null;
    key_spent: string | number | null;
    alerts: string | number;
  };
  const [outcome] = await executeShaped<Row>(
    d,
    "submission",
    `${inline};${key !== undefined};${keyed}`,
    () => submissionStatement(inline, key !== undefined, keyed),
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
      eventCount: events.length,
      logCount: logs.length,
      events: JSON.stringify(events),
      logs: JSON.stringify(logs),
      ledgerDescription: `${row.serviceId} job`,
      // The stored response gets its times from the same clock as the job row.
      responseTemplate: JSON.stringify(asCreated(job, new Date(0))),
      idempotencyKey: key?.key ?? null,
      fingerprint: key?.fingerprint ?? null,
      spendAt: spendClockOverride(),
      alertEventId: newEventId(),
    },
  );
  if (!inline && Number(outcome.alerts) > 0) await signal(d, webhookChannel, "");
  const keyLimit =
    outcome.key_limit === null || outcome.key_limit === undefined
      ? null
      : {
          creditLimit: Number(outcome.key_limit),
          creditLimitReset: outcome.key_limit_reset,
          spent: Number(outcome.key_spent),
        };
  return { subscribed: outcome.subscribed, createdAt: outcome.created_at, signalled: inline, keyLimit };
}

const webhookTypesAtCreation = `{${[...new Set([...eventTypesOf("queued"), ...eventTypesOf("routing")])].join(",")}}`;

/** createInOneStatement's text for one shape: every value is a placeholder, bound on each submission. */
function submissionStatement(inline: boolean, remembered: boolean, keyed: boolean): SQL {
  const p = (name: string) => sql.placeholder(name);
  const at = spendClockSql(p("spendAt"));
  // pg_notify returns void: selected only for its effect, once when the job was created (or the alert recorded).
  const signals = inline
    ? sql`, (select pg_notify(${sqlLiterals([workChannel])}, ${p("serviceId")}::text) from job) as signalled,
       (select pg_notify(${sqlLiterals([webhookChannel])}, '') from low_balance limit 1) as alerted`
    : sql``;
  // The key's row is locked (key_room) before the account's (charge joins it), as on every path that
  // charges or refunds through a key, so concurrent charges through one key never pass its limit.
  const keyRoom = keyed
    ? sql`
    key_room as (
      select credit_limit, credit_limit_reset, ${spentAgainstLimitSql(at)} as spent from ${apiKeys}
      where id = ${p("apiKeyId")}::uuid and ${p("creditCost")}::int > 0 and not (select yes from subscribed)
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
  return sql`
    with subscribed as (
      select exists (
        select 1 from ${webhookEndpoints}
        where account_id = ${p("accountId")}::uuid and status = 'enabled' and events && ${sqlLiterals([webhookTypesAtCreation])}::text[]
      ) as yes
    ),${keyRoom}
    charge as (
      update ${accounts} set credit_balance = credit_balance - ${p("creditCost")}::int, credit_updated_at = now()${chargeFrom}
      where ${accounts}.id = ${p("accountId")}::uuid and credit_balance >= ${p("creditCost")}::int and ${p("creditCost")}::int > 0 and not (select yes from subscribed)${withinLimit}
      returning credit_balance, low_balance_threshold
    ),${keySpent}
    allowed as (
      select 1 from charge
      union all
      select 1 where ${p("creditCost")}::int = 0 and not (select yes from subscribed)
    ),
    job as (
      insert into ${jobs} (id, workflow_run_id, account_id, api_key_id, service_id, status, input, credit_cost,
                           placement, max_attempts, timeout_ms, routing_started_at, event_seq, log_seq, charged_at)
      select ${p("id")}::uuid, ${p("workflowRunId")}::uuid, ${p("accountId")}::uuid, ${p("apiKeyId")}::uuid, ${p("serviceId")}::text, 'routing',
             ${p("input")}::jsonb, ${p("creditCost")}::int, ${p("placement")}::text, ${p("maxAttempts")}::int, ${p("timeoutMs")}::int, now(),
             ${p("eventCount")}::int, ${p("logCount")}::int, ${keyed ? at : sql`null`}
      from allowed
      returning created_at
    ),
    appended_events as (
      insert into ${jobEvents} (job_id, sequence, type, attempt, data)
      select ${p("id")}::uuid, e.sequence, e.type, 0, e.data
      from job, jsonb_to_recordset(${p("events")}::jsonb) as e(sequence int, type text, data jsonb)
    ),
    appended_logs as (
      insert into ${jobLogs} (job_id, sequence, level, source, message)
      select ${p("id")}::uuid, l.sequence, l.level, l.source, l.message
      from job, jsonb_to_recordset(${p("logs")}::jsonb) as l(sequence int, level text, source text, message text)
    ),
    ledger as (
      insert into ${creditLedger} (account_id, type, amount, balance_after, job_id, description)
      select ${p("accountId")}::uuid, 'charge', -${p("creditCost")}::bigint, credit_balance, ${p("id")}::uuid, ${p("ledgerDescription")}::text
      from charge
    ),
    low_balance as (${lowBalanceDeliveriesSql(crossing, p("alertEventId"))})${
      remembered
        ? sql`,
    remembered as (
      insert into ${idempotencyKeys} (account_id, key, fingerprint, job_id, response_status, response_body)
      select ${p("accountId")}::uuid, ${p("idempotencyKey")}::text, ${p("fingerprint")}::text, ${p("id")}::uuid, 202,
             jsonb_set(jsonb_set(${p("responseTemplate")}::jsonb, '{createdAt}', to_jsonb(j.iso)), '{updatedAt}', to_jsonb(j.iso))
      from (select ${isoOf(sql`created_at`)} as iso from job) j
    )`
        : sql``
    }
    select (select yes from subscribed) as subscribed, (select ${isoOf(sql`created_at`)} from job) as created_at${keyLimit},
           (select count(*) from low_balance) as alerts${signals}`;
}

/** The same creation as a transaction of the general writers, which also fill the webhook outbox. */
async function createInTransaction(tx: Tx, job: NewJob): Promise<ExecutionJob> {
  const { row } = job;
  const keyCharged = row.apiKeyId !== null && row.creditCost > 0;
  // Keys before accounts (the lock order of every charge and refund): the limit first, then the job's creation.
  const chargedAt = keyCharged && row.apiKeyId ? await chargeKeySpend(tx, row.apiKeyId, row.creditCost) : null;
  const created = await recordJobCreation(tx, { ...row, chargedAt }, job.created.events, job.created.logs);
  const body = toExecutionJob(created, null);
  if (job.idempotency) {
    await storeResponse(tx, {
      accountId: row.accountId,
      ...job.idempotency,
      jobId: row.id,
      response: { status: 202, body },
    });
  }
  await recordJobChange(tx, row.id, {
    to: "routing",
    from: ["queued"],
    set: { routingStartedAt: Computed.now },
    events: job.routed.events,
  });
  // The debit comes last so the account row is locked for the shortest time; a 402 rolls everything back.
  if (row.creditCost > 0) {
    const charge = await applyLedgerEntry(tx, {
      accountId: row.accountId,
      type: "charge",
      amount: -row.creditCost,
      jobId: row.id,
      description: `${row.serviceId} job`,
    });
    await recordLowBalanceAlert(tx, {
      accountId: row.accountId,
      balanceAfter: charge.balanceAfter,
      cost: row.creditCost,
    });
  }
  return body;
}

const insufficientCredits = (job: NewJob) =>
  new DomainError("INSUFFICIENT_CREDITS", "Not enough credits for this request.", { required: job.row.creditCost });

async function createJob(d: Db, job: NewJob): Promise<ExecutionJob> {
  const { subscribed, createdAt, signalled, keyLimit } = await createInOneStatement(d, job);
  if (subscribed) return d.transaction((tx) => createInTransaction(tx, job));
  if (createdAt === null && keyLimit && keyLimit.spent + job.row.creditCost > keyLimit.creditLimit)
    throw keyCreditLimitError(keyLimit, job.row.creditCost);
  if (createdAt === null) throw insufficientCredits(job);
  // The nodes waiting for this service wake up now that the job is committed (PGlite: its in-process bus).
  if (!signalled) await signal(d, workChannel, job.row.serviceId);
  return asCreated(job, new Date(createdAt));
}

/**
 * Execute (CONTRACT §4). Check order after the route's key/scope/shape checks: idempotency → service →
 * input → credits → create. A request that fails any check writes nothing and consumes no key.
 */
export async function submitJob(submission: Submission): Promise<SubmissionOutcome> {
  const d = await db();
  const { accountId, idempotencyKey } = submission;
  // Only a keyed request is compared with an earlier one (canonical JSON and a digest of the whole input).
  const fingerprint = idempotencyKey
    ? requestFingerprint(submission.serviceId, submission.input, submission.placement ?? "any")
    : undefined;
  const replay = async (): Promise<SubmissionOutcome | undefined> => {
    if (!idempotencyKey || !fingerprint) return undefined;
    const stored = await findReplay(d, accountId, idempotencyKey, fingerprint);
    return stored && { response: stored as SubmissionOutcome["response"], replayed: true };
  };

  const earlier = await replay();
  if (earlier) return earlier;
  let body: ExecutionJob;
  try {
    body = await createJob(d, await checkSubmission(d, submission, fingerprint));
  } catch (error) {
    // A concurrent request with the same key committed first: answer with its response.
    if (isUniqueViolation(error)) {
      const winner = await replay();
      if (winner) return winner;
    }
    throw error;
  }
  return { response: { status: 202, body }, replayed: false };
}
