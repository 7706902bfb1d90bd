// The one PostgreSQL schema of the product (PGlite and PostgreSQL alike). Migrations are generated from it.
import { sql } from "drizzle-orm";
import type { JobError, JobResult } from "@/lib/contract/schemas";
import {
  creditLimitResets,
  eventTypes,
  jobStatuses,
  ledgerEntryTypes,
  logLevels,
  placements,
  logSources,
  scopes,
  serviceStatuses,
} from "@/lib/contract/vocabulary";
import { topUpFailureReasons, topUpStatuses, x402ErrorReasons, x402PaymentStatuses } from "@/lib/contract/vocabulary";
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";

// Millisecond precision: what the API shows (ISO-8601 with ms) is exactly what is stored, so a client can
// use a returned timestamp as an inclusive filter bound.
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date", precision: 3 });
const createdAt = () => ts("created_at").notNull().defaultNow();

/** A wallet-owned account; the developer profile lives on the same row once created. */
export const accounts = pgTable("accounts", {
  id: uuid("id").primaryKey().defaultRandom(),
  walletAddress: text("wallet_address").notNull().unique(),
  name: text("name"),
  email: text("email"),
  organization: text("organization"),
  profileCreatedAt: ts("profile_created_at"),
  creditBalance: bigint("credit_balance", { mode: "number" }).notNull().default(0),
  creditUpdatedAt: ts("credit_updated_at").notNull().defaultNow(),
  /** A charge that takes the balance from at or above this to below it records a `credits.low` event (CONTRACT §11). */
  lowBalanceThreshold: bigint("low_balance_threshold", { mode: "number" }),
  createdAt: createdAt(),
});

/** SIWE nonces: issued to a session, consumed exactly once. */
export const authNonces = pgTable("auth_nonces", {
  nonce: text("nonce").primaryKey(),
  createdAt: createdAt(),
  usedAt: ts("used_at"),
});

/** Wallet sessions held server-side: the cookie names one, and every read checks it is still live. */
export const sessions = pgTable(
  "sessions",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
    revokedAt: ts("revoked_at"),
  },
  (t) => [index("sessions_account_idx").on(t.accountId)],
);

/**
 * Open job event streams, a row each, so the per-account cap holds across server instances. A live stream
 * renews its lease; a row whose lease lapsed (its instance died) no longer counts.
 */
export const eventStreams = pgTable(
  "event_streams",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id),
    openedAt: createdAt(),
    leaseExpiresAt: ts("lease_expires_at").notNull(),
  },
  (t) => [index("event_streams_account_idx").on(t.accountId)],
);

/** Rate-limit counters shared by every server instance on PostgreSQL (rate-limiter-flexible's Drizzle store). */
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull().default(0),
  expire: timestamp("expire", { withTimezone: true, mode: "date", precision: 3 }),
});

export const apiKeys = pgTable(
  "api_keys",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    scopes: text("scopes", { enum: scopes }).array().notNull(),
    prefix: text("prefix").notNull(),
    secretHash: text("secret_hash").notNull().unique(),
    /** After a rotation with a grace period, the old secret keeps working until previousExpiresAt. */
    previousSecretHash: text("previous_secret_hash").unique(),
    previousExpiresAt: ts("previous_expires_at"),
    createdAt: createdAt(),
    lastUsedAt: ts("last_used_at"),
    expiresAt: ts("expires_at"),
    revokedAt: ts("revoked_at"),
    /** "dashboard": the key the dashboard itself runs services with (its secret sealed in dashboard_keys). */
    kind: text("kind").notNull().default("standard"),
    /** The most this key may spend per creditLimitReset period (or ever, with no reset); null: no cap (CONTRACT §11). */
    creditLimit: bigint("credit_limit", { mode: "number" }),
    creditLimitReset: text("credit_limit_reset", { enum: creditLimitResets }),
    /**
     * Credits charged minus refunded through this key: in all, and in the UTC day, week and month that start
     * at *_start (a counter whose start is not the current period's counts as 0). Kept by the charge itself,
     * so the limit is checked and spent atomically (lib/domain/spend-controls.ts).
     */
    spentTotal: bigint("spent_total", { mode: "number" }).notNull().default(0),
    spentDay: bigint("spent_day", { mode: "number" }).notNull().default(0),
    dayStart: ts("day_start"),
    spentWeek: bigint("spent_week", { mode: "number" }).notNull().default(0),
    weekStart: ts("week_start"),
    spentMonth: bigint("spent_month", { mode: "number" }).notNull().default(0),
    monthStart: ts("month_start"),
  },
  (t) => [index("api_keys_account_idx").on(t.accountId, t.createdAt)],
);

/**
 * The dashboard's own copy of its keys' secrets (the API stores only hashes), sealed with AES-256-GCM.
 * sealed_secret is cleared when the key is replaced; at most one live row per account.
 */
export const dashboardKeys = pgTable(
  "dashboard_keys",
  {
    apiKeyId: uuid("api_key_id")
      .primaryKey()
      .references(() => apiKeys.id),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id),
    sealedSecret: text("sealed_secret"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("dashboard_keys_live_idx")
      .on(t.accountId)
      .where(sql`sealed_secret is not null`),
  ],
);

/** Append-only credits ledger; accounts.credit_balance is the running total it proves. */
export const creditLedger = pgTable(
  "credit_ledger",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id),
    type: text("type", { enum: ledgerEntryTypes }).notNull(),
    amount: bigint("amount", { mode: "number" }).notNull(),
    balanceAfter: bigint("balance_after", { mode: "number" }).notNull(),
    jobId: uuid("job_id"),
    /** The top-up a `topup` entry credits. */
    topUpId: uuid("top_up_id").references(() => topUps.id),
    description: text("description").notNull(),
    createdAt: createdAt(),
    seq: bigint("seq", { mode: "number" }).generatedAlwaysAsIdentity(),
  },
  (t) => [
    index("credit_ledger_account_idx").on(t.accountId, t.seq),
    // The usage summary reads the entries of a period's partial first and last hours (lib/domain/usage.ts).
    index("credit_ledger_account_time_idx").on(t.accountId, t.createdAt),
    // One charge and at most one refund per job, whatever retries happen.
    uniqueIndex("credit_ledger_job_type_idx")
      .on(t.jobId, t.type)
      .where(sql`job_id is not null`),
    // A top-up is credited once, whoever finds it and however often.
    uniqueIndex("credit_ledger_top_up_idx")
      .on(t.topUpId)
      .where(sql`top_up_id is not null`),
  ],
);

/**
 * Payments of the token to the treasury, one row per (chain, transaction, paying address): the unique key is
 * what makes a payment count once, whether the dashboard or the watcher found it first. `account_id`
 * is null while the paying address has no account (credited when that address first signs in).
 */
export const topUps = pgTable(
  "top_ups",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    chainId: integer("chain_id").notNull(),
    /** Lower-case 0x hash. */
    txHash: text("tx_hash").notNull(),
    accountId: uuid("account_id").references(() => accounts.id),
    /** The paying address (checksummed): the Transfer logs' `from`, or the submitter while not yet mined. */
    fromAddress: text("from_address").notNull(),
    tokenAmount: numeric("token_amount", { precision: 78, scale: 0 }).notNull().default("0"),
    // A bigint in JavaScript too: computed from the token amount without passing through a number (the
    // default is SQL because drizzle-kit cannot write a JavaScript bigint into its snapshot).
    credits: bigint("credits", { mode: "bigint" })
      .notNull()
      .default(sql`0`),
    status: text("status", { enum: topUpStatuses }).notNull(),
    confirmations: integer("confirmations").notNull().default(0),
    requiredConfirmations: integer("required_confirmations").notNull(),
    blockNumber: bigint("block_number", { mode: "number" }),
    blockHash: text("block_hash"),
    failureReason: text("failure_reason", { enum: topUpFailureReasons }),
    /** When the server last asked the chain about it (the watcher re-checks the stalest first). */
    checkedAt: ts("checked_at").notNull().defaultNow(),
    createdAt: createdAt(),
    creditedAt: ts("credited_at"),
    /**
     * The pay-per-call payment (CONTRACT §15) this top-up credits, one row each: a transaction may use several of
     * a payer's authorizations. Null for a plain payment, which holds what the sender's transfers in the
     * transaction moved beyond those payments.
     */
    x402PaymentId: uuid("x402_payment_id"),
  },
  (t) => [
    // One row per sender's payment in a transaction (a batch or multicall can pay for several senders at once),
    // beside one per pay-per-call payment in it.
    uniqueIndex("top_ups_tx_payer_idx")
      .on(t.chainId, t.txHash, t.fromAddress)
      .where(sql`x402_payment_id is null`),
    uniqueIndex("top_ups_x402_payment_idx")
      .on(t.x402PaymentId)
      .where(sql`x402_payment_id is not null`),
    // A payer's pay-per-call top-ups, read each time a payment is recorded (what of a transaction's transfers the
    // payments took): without it that read scanned every top-up.
    index("top_ups_x402_payer_idx")
      .on(t.chainId, t.fromAddress, t.txHash)
      .where(sql`x402_payment_id is not null`),
    index("top_ups_account_idx").on(t.accountId, t.createdAt),
    index("top_ups_pending_idx")
      .on(t.checkedAt)
      .where(sql`status in ('submitted', 'confirming')`),
    // DROPPED top-ups are re-checked for a while after they were recorded (the RPC may have lagged).
    index("top_ups_dropped_idx")
      .on(t.createdAt)
      .where(sql`failure_reason = 'DROPPED'`),
    index("top_ups_unattributed_idx")
      .on(t.fromAddress)
      .where(sql`account_id is null`),
  ],
);

/**
 * Pay per call (CONTRACT §15): one row per EIP-3009 authorization, written before any work is done for it, so
 * an authorization is settled at most once whatever the concurrency, and a retry finds what became of it.
 */
export const x402Payments = pgTable(
  "x402_payments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    chainId: integer("chain_id").notNull(),
    /** The token (checksummed). */
    tokenAddress: text("token_address").notNull(),
    /** The payer, the authorization's `from` (checksummed). */
    fromAddress: text("from_address").notNull(),
    /** The authorization's bytes32 nonce, lower-case 0x hex. */
    nonce: text("nonce").notNull(),
    status: text("status", { enum: x402PaymentStatuses }).notNull(),
    serviceId: text("service_id").notNull(),
    /** The request's fingerprint (service, input, placement): a retry with the same key must be the same request. */
    fingerprint: text("fingerprint").notNull(),
    idempotencyKey: text("idempotency_key"),
    value: numeric("value", { precision: 78, scale: 0 }).notNull(),
    /** The call paid for, so that a settlement included after its request ended still creates its job. */
    input: jsonb("input").$type<Record<string, unknown>>(),
    placement: text("placement"),
    /** The settlement in flight: its hash and signed bytes, written before it is broadcast. */
    settlementTxHash: text("settlement_tx_hash"),
    settlementRawTx: text("settlement_raw_tx"),
    /** Earlier transactions sent at the same settler nonce (replaced with a higher fee): any one may be mined. */
    replacedTxHashes: jsonb("replaced_tx_hashes").$type<string[]>().notNull().default([]),
    settlerNonce: bigint("settler_nonce", { mode: "number" }),
    accountId: uuid("account_id").references(() => accounts.id),
    jobId: uuid("job_id"),
    failureReason: text("failure_reason", { enum: x402ErrorReasons }),
    /**
     * When the row became settling: the health's stuck rule measures from it, as the sweep's looks (which move
     * updatedAt on rows they leave unchanged) must not make a settlement that never resolves look fresh.
     */
    settlingSince: ts("settling_since"),
    /**
     * The transaction that moved the payment's money (the settler's own, or whoever used the authorization
     * first), set when it is settled: what PAYMENT-RESPONSE names, whoever credited that transaction first.
     */
    paidTxHash: text("paid_tx_hash"),
    /**
     * The first block at or after the settlement was recorded (less the chain clock's margin), found once by its
     * timestamp: the search for the authorization's use covers the blocks from it, never fewer.
     */
    useSearchFloor: bigint("use_search_floor", { mode: "bigint" }),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("x402_payments_authorization_idx").on(t.chainId, t.tokenAddress, t.fromAddress, t.nonce),
    // A payer's Idempotency-Key is held by one payment in flight: a second authorization with the same key waits
    // for it and replays its job, never settles too. A settled call's key lives on in its job's idempotency row.
    uniqueIndex("x402_payments_idempotency_idx")
      .on(t.fromAddress, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null and ${t.status} in ('reserved', 'settling')`),
    // The sweep's old reservations (a request that crashed between its reservation and its settlement).
    index("x402_payments_reserved_idx")
      .on(t.updatedAt)
      .where(sql`${t.status} = 'reserved'`),
    // The settlement sweep's rows.
    index("x402_payments_settling_idx")
      .on(t.settlerNonce)
      .where(sql`${t.status} = 'settling'`),
  ],
);

/**
 * The settler's next transaction nonce per chain: settlements take it in turn under this row's lock, so
 * instances sharing one PostgreSQL database never send two with one nonce.
 */
export const x402Settlers = pgTable(
  "x402_settlers",
  {
    chainId: integer("chain_id").notNull(),
    address: text("address").notNull(),
    nextNonce: bigint("next_nonce", { mode: "number" }).notNull(),
    /**
     * The side of its AuthorizationUsed log on which the token emitted the Transfer of the settler's last own
     * successful settlement, and that settlement: shared, so every instance checks X402_TRANSFER_LOG from the first
     * settlement any of them made (lib/payments/x402/transfer-log-side.ts).
     */
    transferLogSide: text("transfer_log_side", { enum: ["after", "before"] }),
    transferLogTxHash: text("transfer_log_tx_hash"),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.address] })],
);

/** A paid call's access token (`jt_…`, shown once): only its SHA-256 is kept. It reads that one job. */
export const jobAccessTokens = pgTable(
  "job_access_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    jobId: uuid("job_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("job_access_tokens_job_idx").on(t.jobId)],
);

/**
 * Where the payment watcher has scanned to, per (chain, token, treasury), and which server instance is the
 * active watcher: the one whose lease is live (several instances on PostgreSQL, one scanning).
 */
export const paymentScans = pgTable(
  "payment_scans",
  {
    chainId: integer("chain_id").notNull(),
    tokenAddress: text("token_address").notNull(),
    treasuryAddress: text("treasury_address").notNull(),
    /** The first block not yet scanned past the confirmation depth. */
    nextBlock: bigint("next_block", { mode: "number" }).notNull(),
    leaseOwner: text("lease_owner"),
    leaseExpiresAt: ts("lease_expires_at"),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.tokenAddress, t.treasuryAddress] })],
);

export const services = pgTable("services", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  description: text("description").notNull(),
  creditCost: integer("credit_cost").notNull(),
  status: text("status", { enum: serviceStatuses }).notNull(),
  inputSchema: jsonb("input_schema").notNull(),
  position: integer("position").notNull().default(0),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

export const nodes = pgTable(
  "nodes",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    /** The developer who added the node (CONTRACT §12); null: the network's own (operator or embedded). */
    ownerAccountId: uuid("owner_account_id").references(() => accounts.id),
    /**
     * What the owner declared the node runs (services, jobs at once). What it offers when it registers is
     * narrowed to these (service_ids / concurrency are what claims use); null for the network's nodes.
     */
    declaredServiceIds: text("declared_service_ids").array(),
    declaredConcurrency: integer("declared_concurrency"),
    name: text("name").notNull(),
    region: text("region").notNull().default("local"),
    tokenHash: text("token_hash").notNull().unique(),
    serviceIds: text("service_ids")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    concurrency: integer("concurrency").notNull().default(1),
    embedded: boolean("embedded").notNull().default(false),
    lastHeartbeatAt: ts("last_heartbeat_at"),
    /** Set when the node announced a graceful shutdown; it claims nothing more. */
    drainingAt: ts("draining_at"),
    /** Set when the node said it stopped cleanly (it holds nothing): shown offline, not lost; cleared when it registers. */
    stoppedAt: ts("stopped_at"),
    revokedAt: ts("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [index("nodes_owner_idx").on(t.ownerAccountId, t.createdAt)],
);

export const jobs = pgTable(
  "jobs",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    workflowRunId: uuid("workflow_run_id").notNull().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id),
    apiKeyId: uuid("api_key_id"),
    serviceId: text("service_id")
      .notNull()
      .references(() => services.id),
    status: text("status", { enum: jobStatuses }).notNull(),
    progress: integer("progress").notNull().default(0),
    input: jsonb("input").$type<Record<string, unknown>>().notNull(),
    creditCost: integer("credit_cost").notNull(),
    /** Where the job may run (CONTRACT §12); claims filter on it with the node's owner. */
    placement: text("placement", { enum: placements }).notNull().default("any"),
    attempt: integer("attempt").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull(),
    timeoutMs: integer("timeout_ms").notNull(),
    assignedNodeId: uuid("assigned_node_id"),
    assignedAt: ts("assigned_at"),
    leaseExpiresAt: ts("lease_expires_at"),
    routingStartedAt: ts("routing_started_at"),
    nextAttemptAt: ts("next_attempt_at"),
    result: jsonb("result").$type<JobResult>(),
    error: jsonb("error").$type<JobError>(),
    /** Last telemetry sequence / log sequence written: the next one is +1, so there are never gaps. */
    eventSeq: integer("event_seq").notNull().default(0),
    logSeq: integer("log_seq").notNull().default(0),
    /**
     * What nodes have reported of the job (provider requests and log lines, and their bytes), counted whether
     * stored or not: past the caps of lib/limits.ts nothing more is stored (lib/engine/appended-log.ts).
     */
    reportedItems: bigint("reported_items", { mode: "number" }).notNull().default(0),
    reportedBytes: bigint("reported_bytes", { mode: "number" }).notNull().default(0),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
    startedAt: ts("started_at"),
    completedAt: ts("completed_at"),
    /** The spend clock's time of the charge through api_key_id: its refund gives back to the periods it fell in. */
    chargedAt: ts("charged_at"),
    /**
     * The W3C traceparent of the job's submission span when tracing is on (lib/tracing.ts): its claims, its
     * executions and its webhook deliveries join that trace, in whichever process they happen. Null otherwise.
     */
    traceContext: text("trace_context"),
  },
  (t) => [
    // The list's order, newest first with the id breaking ties (a batch shares its created_at): a page after
    // a cursor is one range read of it, however deep.
    index("jobs_account_created_id_idx").on(t.accountId, t.createdAt, t.id),
    index("jobs_account_service_created_idx").on(t.accountId, t.serviceId, t.createdAt, t.id),
    // Failed jobs are few among many: the status filter reads them here instead of walking every job. Each job
    // enters it once (failed is final); active statuses have jobs_active_idx, completed is most of the list.
    index("jobs_account_failed_idx")
      .on(t.accountId, t.createdAt, t.id)
      .where(sql`status = 'failed'`),
    index("jobs_routing_idx")
      .on(t.serviceId, t.createdAt)
      .where(sql`status = 'routing'`),
    index("jobs_active_idx")
      .on(t.status)
      .where(sql`status in ('queued','routing','assigned','running','retrying')`),
    // A node's held jobs, which every claim counts. A dedicated index, because a claim's generic plan, made
    // while the table is still small, would otherwise count them with a sequential scan ever after.
    index("jobs_held_idx")
      .on(t.assignedNodeId)
      .where(sql`status in ('assigned','running')`),
    // Final jobs in the order they ended: retention walks it from its cursor (lib/engine/retention.ts).
    index("jobs_completed_idx")
      .on(t.completedAt, t.id)
      .where(sql`completed_at is not null`),
  ],
);

/** The ordered per-job event log: telemetry, the SSE stream, the timeline and webhooks all read it. */
export const jobEvents = pgTable(
  "job_events",
  {
    /**
     * The event's id on the wire (`eventId`), made once and kept. Not a key: nothing looks an event up by it, and
     * a B-tree of random UUIDs would take eight scattered inserts per job (about 8 % of a job's WAL, measured).
     */
    id: uuid("id").notNull().defaultRandom(),
    /** Its job's: written only from the job's row in the statement that writes it (no foreign key: see jobLogs). */
    jobId: uuid("job_id").notNull(),
    sequence: integer("sequence").notNull(),
    type: text("type", { enum: eventTypes }).notNull(),
    attempt: integer("attempt").notNull(),
    nodeId: uuid("node_id"),
    data: jsonb("data"),
    createdAt: createdAt(),
  },
  // An event is its job's and its place in the job's gapless sequence: the key every read pages by.
  (t) => [primaryKey({ columns: [t.jobId, t.sequence] })],
);

export const jobLogs = pgTable(
  "job_logs",
  {
    /**
     * Its job's. Events and log lines are written only by the statements that write their job, from the job's row
     * (its insert's or update's RETURNING), and jobs are never deleted (retention removes their events and logs
     * only), so none can name a job that is not there. A foreign key would check that again for every row, in every
     * transition of every job: migration 0040 dropped both (the database audit, tests/support/audit.ts, keeps
     * watching for orphans).
     */
    jobId: uuid("job_id").notNull(),
    sequence: integer("sequence").notNull(),
    level: text("level", { enum: logLevels }).notNull(),
    source: text("source", { enum: logSources }).notNull(),
    message: text("message").notNull(),
    nodeId: uuid("node_id"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.sequence] })],
);

export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id),
    key: text("key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    jobId: uuid("job_id").notNull(),
    responseStatus: integer("response_status").notNull(),
    responseBody: jsonb("response_body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.key] }), index("idempotency_created_idx").on(t.createdAt)],
);

/** A developer's webhook endpoint. Secrets are AES-256-GCM ciphertexts (the server must sign with them). */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id),
    url: text("url").notNull(),
    events: text("events").array().notNull(),
    description: text("description"),
    status: text("status").notNull().default("enabled"),
    disabledReason: text("disabled_reason"),
    secretCiphertext: text("secret_ciphertext").notNull(),
    /** After a rotation the previous secret also signs, until previousSecretExpiresAt. */
    previousSecretCiphertext: text("previous_secret_ciphertext"),
    previousSecretExpiresAt: ts("previous_secret_expires_at"),
    /** Start of the current run of failed attempts (null after a success): the endpoint is disabled after 72 h. */
    failingSince: ts("failing_since"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [index("webhook_endpoints_account_idx").on(t.accountId, t.createdAt)],
);

/** The outbox: one row per (event, endpoint), written in the transaction of the change that causes it. */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    endpointId: uuid("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    accountId: uuid("account_id").notNull(),
    /** The `webhook-id`: the same on every attempt and redelivery. */
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    jobId: uuid("job_id"),
    /** The exact bytes signed and sent. */
    body: text("body").notNull(),
    status: text("status").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    /** Attempts since the delivery was (re)queued: the position in the retry schedule. */
    cycleAttempts: integer("cycle_attempts").notNull().default(0),
    cycleStartedAt: ts("cycle_started_at").notNull().defaultNow(),
    /** When pending: the next attempt; while an attempt is in flight, the end of its lease. */
    nextAttemptAt: ts("next_attempt_at").defaultNow(),
    /** The claim that owns the attempt in flight; only it may record the outcome. */
    claimId: uuid("claim_id"),
    lastResponseStatus: integer("last_response_status"),
    lastError: text("last_error"),
    lastLatencyMs: integer("last_latency_ms"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [
    index("webhook_deliveries_due_idx")
      .on(t.nextAttemptAt)
      .where(sql`status = 'pending'`),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt, t.id),
    index("webhook_deliveries_job_idx").on(t.jobId, t.createdAt),
  ],
);

/**
 * A delivery's attempts, the newest `limits.webhookAttemptsKept`: what was sent, what was answered, how fast,
 * or why it failed (a delivery's detail shows them, CONTRACT §8).
 */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    deliveryId: uuid("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    responseStatus: integer("response_status"),
    latencyMs: integer("latency_ms").notNull(),
    error: text("error"),
    /** The first 4 KB of the answer (a NUL, which text cannot hold, as U+FFFD). */
    responseBody: text("response_body"),
    /** The headers sent (content-type and the Standard Webhooks ones: the signature, never the secret). */
    requestHeaders: jsonb("request_headers").$type<Record<string, string>>(),
    /** When the attempt started. */
    createdAt: createdAt(),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt)],
);

/** What every usage rollup (per hour, minute and day) counts; the same statements write all three. */
const usageCounts = () => ({
  jobs: bigint("jobs", { mode: "number" }).notNull().default(0),
  completed: bigint("completed", { mode: "number" }).notNull().default(0),
  failed: bigint("failed", { mode: "number" }).notNull().default(0),
  creditsCharged: bigint("credits_charged", { mode: "number" }).notNull().default(0),
  creditsRefunded: bigint("credits_refunded", { mode: "number" }).notNull().default(0),
  /** Final jobs' durations (completed_at − created_at): their count and sum (exact), and a histogram of them. */
  durationCount: bigint("duration_count", { mode: "number" }).notNull().default(0),
  durationSumMs: bigint("duration_sum_ms", { mode: "number" }).notNull().default(0),
  /** {"<bucket>": count}: log-scale buckets of the durations (lib/domain/usage-rollups.ts, durationBucket). */
  durations: jsonb("durations").$type<Record<string, number>>().notNull().default({}),
});

/**
 * Usage rollups (CONTRACT §6, §11): per developer, UTC hour, service and key, what the usage summary counts,
 * kept by the writes that change it, in their own transactions (lib/domain/usage-rollups.ts). A job counts in
 * the hour it was created (jobs, and completed or failed once final, with its duration); credits in the hour
 * of their ledger entry (charged, refunded).
 */
export const usageRollups = pgTable(
  "usage_rollups",
  {
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id),
    hour: ts("hour").notNull(),
    serviceId: text("service_id").notNull(),
    /** The key the jobs were submitted through; the nil UUID for those submitted without one. */
    apiKeyId: uuid("api_key_id").notNull(),
    ...usageCounts(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.hour, t.serviceId, t.apiKeyId] })],
);

/**
 * The usage rollups per UTC minute (the same counts as usage_rollups, written by the same statements): what a
 * usage summary reads for the partial hours of a period that cuts hours, a bounded number of rows whatever the
 * hour's work (lib/domain/usage.ts).
 */
export const usageMinuteRollups = pgTable(
  "usage_minute_rollups",
  {
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id),
    minute: ts("minute").notNull(),
    serviceId: text("service_id").notNull(),
    apiKeyId: uuid("api_key_id").notNull(),
    ...usageCounts(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.minute, t.serviceId, t.apiKeyId] })],
);

/**
 * The usage rollups per UTC day (the same counts as usage_rollups, written by the same statements): what a usage
 * summary reads for a period's whole days, so a 30-day window reads about 30 rows per service and key, not 720
 * hours (lib/domain/usage.ts).
 */
export const usageDayRollups = pgTable(
  "usage_day_rollups",
  {
    accountId: uuid("account_id")
      .notNull()
      .references(() => accounts.id),
    day: ts("day").notNull(),
    serviceId: text("service_id").notNull(),
    apiKeyId: uuid("api_key_id").notNull(),
    ...usageCounts(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.day, t.serviceId, t.apiKeyId] })],
);

/**
 * What the usage rollups are still to count: the things a statement counted (jobs created, completed or failed,
 * refunds), a row per minute, service, key and duration (usageRollupCtes), appended by the statement that does it,
 * in its transaction, and never updated, so a charge or a completion locks no rollup row and rewrites no histogram.
 * The sweeper folds them into the three tables of rollups (lib/domain/usage-rollups.ts, foldUsageDeltas); a usage
 * summary reads the rollups and the deltas not yet folded (lib/domain/usage.ts), so it counts everything written,
 * folded or not. Columns as a rollup's delta: `at` is the minute it counts in, duration_ms the duration of each
 * final job it counts (completed + failed of them; null when the row counts none: deltaDurationCountSql).
 */
export const usageDeltas = pgTable(
  "usage_deltas",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    accountId: uuid("account_id").notNull(),
    at: ts("at").notNull(),
    serviceId: text("service_id").notNull(),
    /** The nil UUID for jobs submitted without a key, as in the rollups. */
    apiKeyId: uuid("api_key_id").notNull(),
    jobs: integer("jobs").notNull(),
    completed: integer("completed").notNull(),
    failed: integer("failed").notNull(),
    charged: bigint("charged", { mode: "number" }).notNull(),
    refunded: bigint("refunded", { mode: "number" }).notNull(),
    durationMs: bigint("duration_ms", { mode: "number" }),
  },
  (t) => [index("usage_deltas_account_at_idx").on(t.accountId, t.at)],
);

/**
 * The addresses that sign execution receipts (CONTRACT §13), one current (retired_at null) and those it
 * replaced. A generated key is kept sealed under the server secret; one from RECEIPT_SIGNING_KEY is not kept.
 */
export const receiptSigners = pgTable(
  "receipt_signers",
  {
    address: text("address").primaryKey(),
    sealedKey: text("sealed_key"),
    createdAt: createdAt(),
    retiredAt: ts("retired_at"),
  },
  () => [
    uniqueIndex("receipt_signers_current_idx")
      .on(sql`(true)`)
      .where(sql`retired_at is null`),
  ],
);

/** A completed job's receipt, issued once (on first need) and never changed: the exact JSON every read answers. */
export const jobReceipts = pgTable("job_receipts", {
  jobId: uuid("job_id")
    .primaryKey()
    .references(() => jobs.id),
  body: text("body").notNull(),
  signer: text("signer").notNull(),
  createdAt: createdAt(),
});

/**
 * How far retention (JOB_RETENTION_DAYS) has pruned: the events and log lines of every final job up to
 * (completed_at, id) are gone. One row; the instance that locks it prunes the next batch.
 */
export const jobRetention = pgTable("job_retention", {
  id: integer("id").primaryKey().default(1),
  prunedThrough: ts("pruned_through")
    .notNull()
    .default(sql`'epoch'`),
  lastJobId: uuid("last_job_id")
    .notNull()
    .default(sql`'00000000-0000-0000-0000-000000000000'`),
});

/** The lists with kept totals: jobs and credit entries per developer, top-ups per developer, deliveries per endpoint. */
const countedLists = ["jobs", "credit_entries", "top_ups", "deliveries"] as const;

/**
 * Kept totals of the unfiltered lists (lib/domain/list-counts.ts): one row per (scope, list), the scope being
 * the developer. Each is moved by the statement that inserts or deletes the rows it counts, so a list's
 * total never scans its history.
 */
export const listCounts = pgTable(
  "list_counts",
  {
    scopeId: uuid("scope_id").notNull(),
    list: text("list", { enum: countedLists }).notNull(),
    count: bigint("count", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.scopeId, t.list] })],
);

/**
 * Changes to the kept totals of lists whose rows are written by many paths (top-ups, webhook deliveries): one
 * row per statement that wrote some, inserted by a trigger on the counted table (drizzle/0022), never updated,
 * so a writer takes no lock a reader or another writer waits on; folded into list_counts by the sweeper
 * (lib/domain/list-counts.ts).
 */
export const listCountDeltas = pgTable(
  "list_count_deltas",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    scopeId: uuid("scope_id").notNull(),
    list: text("list", { enum: countedLists }).notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
  },
  (t) => [index("list_count_deltas_scope_idx").on(t.scopeId, t.list)],
);
