// The job's lifecycle read from its telemetry: which phase it entered at which event, how long each phase
// lasted, and queue and run time. Pure functions, shared by the stepper and the page's header.
import type { ExecutionJob, TelemetryEvent } from "@/components/data/types";

export type Phase = "queued" | "routing" | "assigned" | "running" | "retrying" | "completed" | "failed" | "cancelled";

/** The event that moves the job into each phase; other events happen within a phase. */
const phaseEnteredBy: Partial<Record<TelemetryEvent["type"], Phase>> = {
  JOB_CREATED: "queued",
  ROUTING_STARTED: "routing",
  NODE_ASSIGNED: "assigned",
  EXECUTION_STARTED: "running",
  RETRY_SCHEDULED: "retrying",
  EXECUTION_COMPLETED: "completed",
  JOB_FAILED: "failed",
  JOB_CANCELLED: "cancelled",
};

export const finalPhases: readonly Phase[] = ["completed", "failed", "cancelled"];
/** The phases of a run that goes well, in order: what the stepper shows ahead of a job still moving. */
export const happyPath: readonly Phase[] = ["queued", "routing", "assigned", "running", "completed"];

export interface PhaseSpan {
  phase: Phase;
  attempt: number;
  startedAt: number;
  /** When the next phase began; null for the phase the job is in (or a final one). */
  endedAt: number | null;
}

/** Phases in the order they happened; a repeated phase (a second attempt) appears again. */
export function phaseSpans(events: readonly TelemetryEvent[]): PhaseSpan[] {
  const spans: PhaseSpan[] = [];
  for (const event of events) {
    const phase = phaseEnteredBy[event.type];
    if (!phase) continue;
    const at = Date.parse(event.timestamp);
    const previous = spans.at(-1);
    if (previous?.phase === phase) continue;
    if (previous) previous.endedAt = at;
    spans.push({ phase, attempt: event.attempt, startedAt: at, endedAt: null });
  }
  return spans;
}

/** What the job's status means to a person: a cancelled job is `failed` with the code CANCELLED. */
export function phaseOf(job: Pick<ExecutionJob, "status" | "error">): Phase {
  if (job.status === "failed" && job.error?.code === "CANCELLED") return "cancelled";
  return job.status;
}

/**
 * What a job cost in the end: a failed job (a cancelled one too) is refunded in full (lib/engine/apply-change.ts);
 * `creditCost` already counts the own-node refund of one that completed.
 */
export const netCreditCost = (job: Pick<ExecutionJob, "status" | "creditCost">) =>
  job.status === "failed" ? 0 : job.creditCost;

export const isFinalPhase = (phase: Phase) => finalPhases.includes(phase);

/** Time waiting before the first execution started, and time from then to the end (or to `now`). */
export function queueAndRunTime(job: Pick<ExecutionJob, "createdAt" | "startedAt" | "completedAt">, now: number) {
  const created = Date.parse(job.createdAt);
  const started = job.startedAt ? Date.parse(job.startedAt) : null;
  const ended = job.completedAt ? Date.parse(job.completedAt) : null;
  return {
    queueMs: (started ?? ended ?? now) - created,
    runMs: started === null ? null : (ended ?? now) - started,
    totalMs: (ended ?? now) - created,
  };
}
