// The one write for a StopOutcome (job-machine.ts): what happens when an attempt or the whole job stops short
// of a result — a new attempt now, one after a delay, or the end (failed, refunded).
import type { Tx } from "@/lib/db/database";
import { applyJobChange } from "./apply-change";
import { Computed, type JobChange, type JobRow } from "./job-change";
import type { StopOutcome } from "./job-machine";

/** Status, columns and the closing events, after the events and log lines that say why (`change`). */
export function applyStopOutcome(
  tx: Tx,
  jobId: string,
  outcome: StopOutcome,
  change: Omit<JobChange, "to" | "set">,
): Promise<JobRow | null> {
  const why = change.events ?? [];
  switch (outcome.kind) {
    case "reroute":
      return applyJobChange(tx, jobId, {
        ...change,
        to: "routing",
        set: { routingStartedAt: Computed.now, leaseExpiresAt: null, nextAttemptAt: null },
        events: [...why, { type: "ROUTING_STARTED", data: { attempt: outcome.nextAttempt } }],
      });
    case "retry":
      return applyJobChange(tx, jobId, {
        ...change,
        to: "retrying",
        set: { nextAttemptAt: Computed.secondsFromNow(outcome.delayMs / 1000), leaseExpiresAt: null },
        events: [
          ...why,
          { type: "RETRY_SCHEDULED", data: { delayMs: outcome.delayMs, nextAttempt: outcome.nextAttempt } },
        ],
      });
    case "fail":
    case "cancel":
      return applyJobChange(tx, jobId, {
        ...change,
        to: "failed",
        set: { error: outcome.error, completedAt: Computed.now, leaseExpiresAt: null },
        // A cancellation is its own closing event (JOB_CANCELLED, given by the caller).
        events:
          outcome.kind === "fail"
            ? [...why, { type: "JOB_FAILED", data: { category: outcome.error.category, code: outcome.error.code } }]
            : why,
      });
  }
}
