// An attempt as a node holds it: the node's row, its lease, and what starting an attempt writes (reported by
// the node, or part of its claim when it starts what it claims at once).
import type { nodes } from "@/lib/db/schema";
import { attemptDeadlineSql, leaseMs } from "./attempt-deadline";
import { Computed, type EventInput, type JobRow, type LogInput } from "./job-change";

export { attemptDeadlineSql, leaseMs };

export type NodeRow = typeof nodes.$inferSelect;

/** The end of a lease taken now, as a job change sets it. */
export const leaseFromNow = () => Computed.secondsFromNow(leaseMs() / 1000);
/** The same, for a developer's node: never past the attempt's deadline (attempt-deadline.ts). */
export const leaseFromNowUntilDeadline = () => Computed.secondsFromNowUntilDeadline(leaseMs() / 1000);

export const isPastDeadline = (job: Pick<JobRow, "assignedAt" | "timeoutMs" | "leaseExpiresAt">) =>
  job.assignedAt !== null &&
  job.leaseExpiresAt !== null &&
  job.leaseExpiresAt.getTime() >= job.assignedAt.getTime() + job.timeoutMs + leaseMs();

export const started = {
  // A function: the lease comes from the configuration, which is read on first use, not at import.
  set: () => ({ startedAt: Computed.nowIfUnset, leaseExpiresAt: leaseFromNow() }),
  /** Without `attempt`, the attempt the claim begins (known only to its statement). */
  events: (node: NodeRow, attempt?: number): EventInput[] => [
    attempt === undefined
      ? { type: "EXECUTION_STARTED", nodeId: node.id, data: {}, withAttempt: true }
      : { type: "EXECUTION_STARTED", nodeId: node.id, data: { attempt } },
  ],
  logs: (node: NodeRow, attempt?: number): LogInput[] => [
    {
      level: "info",
      source: "node",
      message: `Execution started (attempt ${attempt ?? "{attempt}"}).`,
      nodeId: node.id,
      withAttempt: attempt === undefined,
    },
  ],
};
