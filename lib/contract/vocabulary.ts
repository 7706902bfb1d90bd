// The contract's vocabularies (CONTRACT §5): job statuses, telemetry event types, failure categories, log levels and
// sources, ledger entry types and API-key scopes. The database enums, the wire schemas and the domain all read them.
export const jobStatuses = ["queued", "routing", "assigned", "running", "retrying", "completed", "failed"] as const;
export type JobStatus = (typeof jobStatuses)[number];
/** A job in one of these has ended; nothing about it changes again (lib/engine/job-machine.ts). */
export const finalStatuses: readonly JobStatus[] = ["completed", "failed"];
export const activeStatuses: readonly JobStatus[] = ["queued", "routing", "assigned", "running", "retrying"];

export const eventTypes = [
  "JOB_CREATED",
  "WORKFLOW_INITIALIZED",
  "ROUTING_STARTED",
  "NODE_ASSIGNED",
  "EXECUTION_STARTED",
  "PROVIDER_REQUEST",
  "RESULT_STORED",
  "EXECUTION_COMPLETED",
  "EXECUTION_FAILED",
  "RETRY_SCHEDULED",
  "NODE_LOST",
  "ROUTING_FAILED",
  "JOB_FAILED",
  "JOB_CANCELLED",
] as const;
export type EventType = (typeof eventTypes)[number];

export const failureCategories = ["validation", "routing", "runtime"] as const;
export type FailureCategory = (typeof failureCategories)[number];

export const logLevels = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof logLevels)[number];
export const logSources = ["platform", "node", "provider"] as const;
export type LogSource = (typeof logSources)[number];

export const serviceStatuses = ["active", "disabled"] as const;
export type ServiceStatus = (typeof serviceStatuses)[number];

export const ledgerEntryTypes = ["grant", "charge", "refund", "topup", "adjustment"] as const;
export type LedgerEntryType = (typeof ledgerEntryTypes)[number];

/** Credit top-ups paid on-chain (CONTRACT §10): their states and why one failed or was refused. */
export const topUpStatuses = ["submitted", "confirming", "credited", "failed"] as const;
export type TopUpStatus = (typeof topUpStatuses)[number];
export const paymentRefusalReasons = [
  "WRONG_CHAIN",
  "TX_FAILED",
  "NO_PAYMENT",
  "WRONG_SENDER",
  // Worth more credits than a balance holds exactly (2^53 − 1): refused and recorded as failed, never rounded.
  "AMOUNT_OUT_OF_RANGE",
] as const;
export type PaymentRefusalReason = (typeof paymentRefusalReasons)[number];
/**
 * A recorded top-up's failure: a refusal found once it was mined, DROPPED (never mined within the hour), or
 * UNRECORDABLE (the database refused the payment's values: the operator credits it by hand).
 */
export const topUpFailureReasons = [...paymentRefusalReasons, "DROPPED", "UNRECORDABLE"] as const;
export type TopUpFailureReason = (typeof topUpFailureReasons)[number];

/**
 * Pay per call (CONTRACT §15): an x402 payment's states, from its authorization's nonce reserved to its
 * settlement included (then its job exists) or refused.
 */
export const x402PaymentStatuses = ["reserved", "settling", "settled", "failed"] as const;
export type X402PaymentStatus = (typeof x402PaymentStatuses)[number];
/** Why a payment was refused (PAYMENT-RESPONSE's errorReason), as CONTRACT §15 names them. */
export const x402ErrorReasons = [
  "invalid_signature",
  "insufficient_funds",
  "invalid_amount",
  "expired",
  "nonce_used",
  "wrong_network",
  "settlement_failed",
] as const;
export type X402ErrorReason = (typeof x402ErrorReasons)[number];
export const scopes = [
  "services:read",
  "services:execute",
  "jobs:read",
  "telemetry:read",
  "credits:read",
  "webhooks:manage",
  "nodes:manage",
] as const;
export type Scope = (typeof scopes)[number];

/** Webhook event types (CONTRACT §8; `credits.low` is §11's low-balance alert). */
export const webhookEventTypes = [
  "job.status_changed",
  "job.completed",
  "job.failed",
  "webhook.test",
  "credits.low",
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];
/**
 * A delivery's `lastError` when the policy refused its destination at send time (a host that now resolves to a
 * private or otherwise special address, or http: to a host not allowed): it fails at once, never retried.
 */
export const webhookDestinationForbidden = "DESTINATION_FORBIDDEN";

/** When a key's credit limit starts afresh (CONTRACT §11): at 00:00 UTC; weeks start on Monday. */
export const creditLimitResets = ["daily", "weekly", "monthly"] as const;
export type CreditLimitReset = (typeof creditLimitResets)[number];

/** Where a job may run (CONTRACT §12): the developer's own nodes, the network's (nodes no developer owns), or either. */
export const placements = ["any", "own", "network"] as const;
export type Placement = (typeof placements)[number];

/**
 * A node as its owner sees it (CONTRACT §12): derived from its heartbeat, drain, stop and revocation. `offline`:
 * it stopped cleanly (said so, holding nothing); `lost`: its heartbeats stopped without a word.
 */
export const nodeStates = ["pending", "live", "draining", "offline", "lost", "revoked"] as const;
export type NodeState = (typeof nodeStates)[number];

/**
 * An email address as HTML's `<input type="email">` accepts it (WHATWG; zod's `z.regexes.html5Email`): the rule
 * the API checks, the OpenAPI document states beside `format: email`, and the dashboard's profile form applies.
 */
export const emailAddressPattern =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
