// A node gone (its lease ran out, it restarted, or its owner revoked it) loses the jobs it held: each is
// routed again as a new attempt, not charged again, or failed (and refunded) once its attempts are spent.
import type { Tx } from "@/lib/db/client";
import { heldStatuses, stopOutcome } from "./job-machine";
import { recordStopOutcome, type JobRow } from "./job-log";

const lost = (job: JobRow) => ({
  type: "NODE_LOST" as const,
  nodeId: job.assignedNodeId,
  data: { nodeId: job.assignedNodeId, status: job.status },
});

/** Marks jobs whose node is gone as lost: routed again as a new attempt, or failed when attempts are spent. */
export async function loseJobs(tx: Tx, rows: JobRow[], reason: string): Promise<number> {
  let changed = 0;
  for (const job of rows) {
    const row = await recordStopOutcome(tx, job.id, stopOutcome(job, { kind: "node-lost", reason }), {
      from: heldStatuses,
      attempt: job.attempt,
      events: [lost(job)],
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

