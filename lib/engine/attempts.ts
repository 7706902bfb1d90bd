// An attempt as a node holds it: the node's row, its lease, and what starting an attempt writes (reported by
// the node, or part of its claim when it starts what it claims at once).
import type { nodes } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { Computed, type EventInput, type LogInput } from "./job-change";

export type NodeRow = typeof nodes.$inferSelect;

export const leaseMs = () => env().NODE_LEASE_MS;
/** The end of a lease taken now, as a job change sets it. */
export const leaseFromNow = () => Computed.secondsFromNow(leaseMs() / 1000);

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
