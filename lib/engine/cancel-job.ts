// Cancellation by the owner (CONTRACT §4): a job not yet final becomes failed (CANCELLED) and is refunded;
// its node learns it on its next report or heartbeat.
import { DomainError } from "@/lib/domain/errors";
import { db } from "@/lib/domain/database";
import type { ExecutionJob } from "@/lib/contract/schemas";
import { getJob, ownedJobRow } from "./job-views";
import { stopOutcome } from "./job-machine";
import { applyStopOutcome } from "./stop-outcomes";

export async function cancelJob(accountId: string, jobId: string): Promise<ExecutionJob> {
  // Read outside the transaction, as it was read inside it, without a lock: the change's own guard (not final yet)
  // decides, so a job that finished meanwhile is refused with JOB_FINAL.
  const { job } = await ownedJobRow(accountId, jobId);
  const d = await db();
  await d.transaction(async (tx) => {
    const changed = await applyStopOutcome(tx, jobId, stopOutcome(job, { kind: "cancelled" }), {
      events: [{ type: "JOB_CANCELLED", data: { previousStatus: job.status }, nodeId: job.assignedNodeId }],
      logs: [
        { level: "warn", source: "platform", message: `Cancelled by the owner while ${job.status}; credits refunded.` },
      ],
    });
    if (!changed) throw new DomainError("JOB_FINAL", `The job is already ${job.status}; it cannot be cancelled.`);
  });
  return getJob(accountId, jobId);
}
