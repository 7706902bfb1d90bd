// The job state machine, written once: which status may follow which, and the progress rule.
import { DomainError } from "./errors";
import { isFinal, type JobStatus } from "./job-states";

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
