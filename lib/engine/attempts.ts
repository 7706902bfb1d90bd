// An attempt as a node holds it: the node's row, its lease, and what starting an attempt writes (reported by
// the node, or part of its claim when it starts what it claims at once).
import { sql } from "drizzle-orm";
import { jobs, type nodes } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { Computed, type EventInput, type JobRow, type LogInput } from "./job-change";

export type NodeRow = typeof nodes.$inferSelect;

export const leaseMs = () => env().NODE_LEASE_MS;
/** The end of a lease taken now, as a job change sets it. */
export const leaseFromNow = () => Computed.secondsFromNow(leaseMs() / 1000);

// An attempt's deadline: its timeout from its assignment, plus one lease of grace for the node to say it timed
// out itself. A developer's node's leases are never renewed past it (node-reports.ts, renewLeases), so its lease
// runs out there, and an attempt whose lease ran out at or past its deadline timed out (lost-jobs.ts).
const graceSeconds = () => leaseMs() / 1000;
export const attemptDeadlineSql = () =>
  sql`${jobs.assignedAt} + make_interval(secs => ${jobs.timeoutMs} / 1000.0 + ${graceSeconds()})`;
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
