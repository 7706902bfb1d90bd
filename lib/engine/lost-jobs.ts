// Jobs whose node is gone (its lease ran out, or it restarted): NODE_LOST, then routed again as a new
// attempt, or failed (and refunded) when the attempts are spent.
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { jobs, nodes } from "@/lib/db/schema";
import { isPastDeadline, leaseMs } from "./attempts";
import type { JobRow } from "./job-change";
import { heldStatuses, stopOutcome } from "./job-machine";
import { retryDelayMs } from "./node-reports";
import { applyStopOutcome } from "./stop-outcomes";

/**
 * Jobs whose lease ran out (`rows`, locked by the caller's transaction): those of a developer's node whose lease
 * ended at their attempt's deadline timed out (its lease stops there, attempts.ts); the others' node was lost. The
 * deadline is a developer's node's only: a network node may renew past it, and one that dies after is lost, not
 * timed out, and its job routed again.
 */
export async function expireLeases(tx: Tx, rows: JobRow[]): Promise<number> {
  const nodeIds = [...new Set(rows.map((job) => job.assignedNodeId).filter((id) => id !== null))];
  const owned =
    nodeIds.length === 0
      ? new Set<string>()
      : new Set(
          (
            await tx
              .select({ id: nodes.id })
              .from(nodes)
              .where(and(inArray(nodes.id, nodeIds), isNotNull(nodes.ownerAccountId)))
          ).map((n) => n.id),
        );
  const timesOut = (job: JobRow) => job.assignedNodeId !== null && owned.has(job.assignedNodeId) && isPastDeadline(job);
  const timedOut = rows.filter(timesOut);
  const lost = rows.filter((job) => !timesOut(job));
  return (await timeOutJobs(tx, timedOut)) + (await loseJobs(tx, lost, "lease expired"));
}

/** Attempts past their deadline: failed as TIMEOUT (retried while attempts remain), as a node reports its own. */
async function timeOutJobs(tx: Tx, rows: JobRow[]): Promise<number> {
  let changed = 0;
  for (const job of rows) {
    const message = `The attempt exceeded its ${job.timeoutMs} ms timeout; the node did not report it within ${leaseMs()} ms more.`;
    const failure = { code: "TIMEOUT", message, retryable: true };
    const cause = { kind: "attempt-failed", ...failure, retryDelayMs: retryDelayMs(job.attempt) } as const;
    const row = await applyStopOutcome(tx, job.id, stopOutcome(job, cause), {
      from: heldStatuses,
      attempt: job.attempt,
      events: [
        {
          type: "EXECUTION_FAILED",
          nodeId: job.assignedNodeId,
          data: { ...failure, attempt: job.attempt },
        },
      ],
      logs: [
        {
          level: "error",
          source: "platform",
          message: `Attempt ${job.attempt} failed: TIMEOUT: ${message}`,
          nodeId: job.assignedNodeId,
        },
      ],
    });
    if (row) changed++;
  }
  return changed;
}

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
