// The job state machine, written once: which status may follow which, and the progress rule.
import { DomainError } from "@/lib/domain/errors";
import { activeStatuses, finalStatuses, type FailureCategory, type JobStatus } from "@/lib/contract/vocabulary";

export { activeStatuses, finalStatuses };
/** Statuses in which a node holds the job (its lease counts; losing the node loses the attempt). */
export const heldStatuses = ["assigned", "running"] as const satisfies readonly JobStatus[];
export const isFinal = (status: JobStatus) => finalStatuses.includes(status);

const allowed: Record<JobStatus, readonly JobStatus[]> = {
  queued: ["routing", "failed"],
  routing: ["assigned", "failed"],
  // assigned/running → routing: the node was lost or released the job; a new attempt follows.
  assigned: ["running", "routing", "retrying", "failed"],
  running: ["completed", "retrying", "routing", "failed"],
  retrying: ["routing", "failed"],
  completed: [],
  failed: [],
};

export const canTransition = (from: JobStatus, to: JobStatus) => allowed[from].includes(to);

/** The statuses a job may be in for `to` to follow. */
export const statusesBefore = (to: JobStatus): JobStatus[] =>
  (Object.keys(allowed) as JobStatus[]).filter((from) => allowed[from].includes(to));

export function assertTransition(from: JobStatus, to: JobStatus): void {
  if (isFinal(from)) throw new DomainError("JOB_FINAL", `The job is already ${from}; nothing about it changes.`);
  if (!canTransition(from, to)) throw new DomainError("INVALID_REQUEST", `A ${from} job cannot become ${to}.`);
}

/** Progress never decreases within an attempt, stays in 0–100, and is 100 once completed. */
export function nextProgress(current: number, reported: number): number {
  return Math.max(current, Math.min(100, Math.max(0, Math.round(reported))));
}

// ── What ends an attempt ──────────────────────────────────────────────────────────────────────────────

/** Why an attempt (or the whole job) stops short of a result. */
export type StopCause =
  | { kind: "node-lost"; reason: string }
  | { kind: "attempt-failed"; code: string; message: string; retryable: boolean; retryDelayMs: number }
  | { kind: "unroutable"; waitedMs: number }
  | { kind: "cancelled" };

export interface JobError {
  category: FailureCategory;
  code: string;
  message: string;
}

/** What happens next: a new attempt now, a new attempt after a delay, or the job ends failed. */
export type StopOutcome =
  | { kind: "reroute"; nextAttempt: number }
  | { kind: "retry"; nextAttempt: number; delayMs: number }
  | { kind: "fail"; error: JobError }
  | { kind: "cancel"; error: JobError };

export const unroutableMessage = (waitedMs: number) => `No eligible execution node took the job within ${waitedMs} ms.`;

/** The one rule for failures, lost nodes, routing timeouts and cancellation. */
export function stopOutcome(job: { attempt: number; maxAttempts: number }, cause: StopCause): StopOutcome {
  const attemptsLeft = job.attempt < job.maxAttempts;
  switch (cause.kind) {
    case "node-lost":
      return attemptsLeft
        ? { kind: "reroute", nextAttempt: job.attempt + 1 }
        : {
            kind: "fail",
            error: {
              category: "runtime",
              code: "NODE_LOST",
              message: `The node stopped answering (${cause.reason}) and no attempts remain.`,
            },
          };
    case "attempt-failed":
      return cause.retryable && attemptsLeft
        ? { kind: "retry", nextAttempt: job.attempt + 1, delayMs: cause.retryDelayMs }
        : { kind: "fail", error: { category: "runtime", code: cause.code, message: cause.message } };
    case "unroutable":
      return {
        kind: "fail",
        error: { category: "routing", code: "NO_ELIGIBLE_NODE", message: unroutableMessage(cause.waitedMs) },
      };
    case "cancelled":
      return {
        kind: "cancel",
        error: { category: "runtime", code: "CANCELLED", message: "The job was cancelled by its owner." },
      };
  }
}
