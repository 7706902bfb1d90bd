// Jobs whose node is gone (its lease ran out, or it restarted): NODE_LOST, then routed again as a new
// attempt, or failed (and refunded) when the attempts are spent.
import { and, eq, inArray } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { jobs } from "@/lib/db/schema";
import type { JobRow } from "./job-change";
import { heldStatuses, stopOutcome } from "./job-machine";
import { applyStopOutcome } from "./stop-outcomes";

/** `rows` are locked by the caller's transaction (FOR UPDATE). Returns how many were changed. */
export async function loseJobs(tx: Tx, rows: JobRow[], reason: string): Promise<number> {
  let changed = 0;
  for (const job of rows) {
    const row = await applyStopOutcome(tx, job.id, stopOutcome(job, { kind: "node-lost", reason }), {
      from: heldStatuses,
      attempt: job.attempt,
      events: [
        { type: "NODE_LOST", nodeId: job.assignedNodeId, data: { nodeId: job.assignedNodeId, status: job.status } },
      ],
      logs: [
        {
          level: "warn",
          source: "platform",
          message: `Node lost (${reason}) during attempt ${job.attempt}.`,
          nodeId: job.assignedNodeId,
        },
      ],
    });
    if (row) changed++;
  }
  return changed;
}

/** Everything `nodeId` holds, lost (a node that restarted lost what it ran), in the caller's transaction. */
export async function loseHeldJobs(tx: Tx, nodeId: string, reason: string): Promise<number> {
  const held = await tx
    .select()
    .from(jobs)
    .where(and(eq(jobs.assignedNodeId, nodeId), inArray(jobs.status, [...heldStatuses])))
    .for("update", { skipLocked: true });
  return loseJobs(tx, held, reason);
}
