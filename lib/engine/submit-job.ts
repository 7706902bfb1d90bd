// Submission (CONTRACT §4): the checks (idempotency → service → input), then the job's creation with its
// charge (create-job.ts), together or not at all, in the developer's lane (write-lanes.ts). A request that
// fails any check writes nothing.
import { randomUUID } from "node:crypto";
import type { Db } from "@/lib/db/database";
import { env } from "@/lib/env";
import { processSingleton } from "@/lib/singleton";
import { activeTraceparent, annotateRequestSpan, jobAttributes } from "@/lib/tracing";
import { isServiceId, serviceInputs } from "@/lib/domain/catalog";
import { db } from "@/lib/domain/database";
import { DomainError, issuesOf } from "@/lib/domain/errors";
import { findReplay, isUniqueViolation, requestFingerprint, type StoredResponse } from "@/lib/domain/idempotency";
import { findService, type ServiceRow } from "@/lib/domain/services";
import { ownNodeCreditCost } from "@/lib/domain/own-node-price";
import { formatCredits } from "@/lib/contract/credit-words";
import type { ExecutionJob } from "@/lib/contract/schemas";
import type { Placement } from "@/lib/contract/vocabulary";
import { jsonWeight, lanes } from "./write-lanes";
import { createdTogether, createJobs, type NewJob } from "./create-job";
import type { EventInput, LogInput } from "./job-change";

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

/**
 * The catalog row of a service, read at most every few seconds per process: rows change only when an
 * instance starts and publishes the catalog (lib/domain/database.ts), so a status change shows within seconds.
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
export async function checkSubmission(d: Db, submission: Submission, fingerprint: string | undefined): Promise<NewJob> {
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
      {
        level: "info",
        source: "platform",
        message: `Job accepted for ${serviceId}; ${formatCredits(creditCost)} charged.`,
      },
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
      reportedItems: 0,
      reportedBytes: 0,
      startedAt: null,
      completedAt: null,
      chargedAt: null,
      // The active span (the submission's request) is the parent of the job's claims, executions and deliveries.
      traceContext: activeTraceparent(),
    },
    created,
    routed: { events: [{ type: "ROUTING_STARTED", data: { attempt: 1 } }] },
    idempotency: submission.idempotencyKey && fingerprint ? { key: submission.idempotencyKey, fingerprint } : undefined,
  };
}

/**
 * Each developer's jobs are created in their lane, those that arrive while one write is in flight together:
 * one set of lanes per process, which every route's bundle of this module shares.
 */
const submissionLanes = processSingleton("submission-lanes", async () =>
  lanes<NewJob, ExecutionJob>({
    write: async (batch) => createJobs(await db(), batch),
    together: createdTogether,
    maxItems: 50,
    weight: (job) => jsonWeight(job.row.input),
    maxWeight: 1024 * 1024,
  }),
);

/**
 * Execute (CONTRACT §4). Check order after the route's key/scope/shape checks: idempotency → service →
 * input → credits → create. A request that fails any check writes nothing and consumes no key.
 */
export async function submitJob(submission: Submission): Promise<SubmissionOutcome> {
  // The submission's span is its request's server span (tracing on), which carries the job's ids.
  annotateRequestSpan(() => jobAttributes({ serviceId: submission.serviceId }));
  const outcome = await submit(submission);
  annotateRequestSpan(() => jobAttributes({ jobId: outcome.response.body.jobId }));
  return outcome;
}

async function submit(submission: Submission): Promise<SubmissionOutcome> {
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
    const job = await checkSubmission(d, submission, fingerprint);
    body = await (await submissionLanes.get()).write(accountId, job);
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
