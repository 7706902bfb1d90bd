// What nodes report about the jobs they hold (start, progress, result, failure, release) and the lease
// their heartbeats renew. Each report is one job change, refused with LEASE_LOST when the node does not hold
// the attempt it names. A node's results leave for the database through its lane
// (write-lanes.ts): those its slots report while a write of theirs is in flight go together, as one
// statement, instead of a statement and a commit each.
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { jobs } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { DomainError } from "@/lib/domain/errors";
import { isUuid } from "@/lib/domain/ids";
import { env } from "@/lib/env";
import type { ExecutionFailure, ProgressReport } from "@/lib/contract/node-protocol";
import { processSingleton } from "@/lib/singleton";
import { jsonWeight, lanes } from "./write-lanes";
import { applyEachJobChange, applyJobChange, applyJobChangeAtOnce, type ChangeOfOneJob } from "./apply-change";
import { attemptDeadlineSql, leaseFromNowUntilDeadline, leaseMs, started, type NodeRow } from "./attempts";
import { Computed, type JobChange, type JobRow } from "./job-change";
import { heldStatuses, nextProgress, stopOutcome } from "./job-machine";
import { lockRefundRows, ownNodeDiscount, refundOwnNodeDiscount } from "./own-node-refund";
import { applyStopOutcome } from "./stop-outcomes";

/**
 * A heartbeat's lease renewal: the jobs of `jobIds` the node still holds get a fresh lease (no event, no
 * signal: nothing a reader sees changes). Returns the ids it holds. A developer's node runs code the deployment
 * does not control: its attempts end at their deadline whatever it says (the lease stops there, and past it the
 * node is told to stop), so an attempt cannot hold a job, and its reports, beyond its timeout.
 */
export async function renewLeases(node: NodeRow, jobIds: string[]): Promise<Set<string>> {
  const uuids = jobIds.filter(isUuid);
  if (uuids.length === 0) return new Set();
  const renewed = sql`now() + make_interval(secs => ${leaseMs() / 1000})`;
  const held = and(inArray(jobs.id, uuids), eq(jobs.assignedNodeId, node.id), inArray(jobs.status, [...heldStatuses]));
  const developers = node.ownerAccountId !== null;
  const kept = await (
    await db()
  )
    .update(jobs)
    .set({ leaseExpiresAt: developers ? sql`least(${renewed}, ${attemptDeadlineSql()})` : renewed })
    .where(developers ? and(held, sql`${attemptDeadlineSql()} > now()`) : held)
    .returning({ id: jobs.id });
  return new Set(kept.map((k) => k.id));
}

/**
 * The one answer to a report on a job the node does not hold, whatever the reason: it ended, moved on to another
 * attempt or node, belongs to another developer, or does not exist. Saying which would tell a node about jobs
 * that are none of its business; for the holder it is the truth, and all it needs: stop working on it.
 */
const notHeld = () => new DomainError("LEASE_LOST", "This node does not hold this job's attempt; stop working on it.");

async function reportOrRefuse(jobId: string, write: (tx: Tx) => Promise<JobRow | null>): Promise<void> {
  if (!isUuid(jobId)) throw notHeld();
  const row = await (await db()).transaction(write);
  if (!row) throw notHeld();
}

/** A report that is one job change: written at once (one statement on the hot path), or refused. */
async function changeOrRefuse(jobId: string, change: JobChange): Promise<void> {
  if (!isUuid(jobId)) throw notHeld();
  const row = await applyJobChangeAtOnce(jobId, change);
  if (!row) throw notHeld();
}

export function startExecution(node: NodeRow, jobId: string, attempt: number) {
  // A developer's node's lease stops at the attempt's deadline, as its renewals do: a start just before the
  // deadline gets no lease past it.
  const lease = node.ownerAccountId !== null ? { leaseExpiresAt: leaseFromNowUntilDeadline() } : {};
  return changeOrRefuse(jobId, {
    to: "running",
    attempt,
    nodeId: node.id,
    set: { ...started.set(), ...lease },
    events: started.events(node, attempt),
    logs: started.logs(node, attempt),
  });
}

const reportedEvents = (node: NodeRow, report: ProgressReport) =>
  (report.providerRequests ?? []).map((data) => ({
    type: "PROVIDER_REQUEST" as const,
    nodeId: node.id,
    data,
    reported: true,
  }));
const reportedLogs = (node: NodeRow, report: ProgressReport) =>
  (report.logs ?? []).map((l) => ({
    level: l.level,
    source: "provider" as const,
    message: l.message,
    nodeId: node.id,
    reported: true,
  }));

export function reportProgress(node: NodeRow, jobId: string, attempt: number, report: ProgressReport) {
  const events = reportedEvents(node, report);
  const logs = reportedLogs(node, report);
  return changeOrRefuse(jobId, {
    from: ["running"],
    attempt,
    nodeId: node.id,
    // The same rule as nextProgress, applied to the stored value so concurrent reports cannot lower it.
    set: report.progress === undefined ? {} : { progress: Computed.atLeast(nextProgress(0, report.progress)) },
    events,
    logs,
    // Written alone, so its shape may follow its data: a report of progress alone keeps the plain statement.
    capped: events.length + logs.length > 0,
  });
}

/** Each node's completions: one statement for those that wait together, up to about 1 MB of results. */
const completionLanes = processSingleton("completion-lanes", async () =>
  lanes<ChangeOfOneJob, JobRow | null>({
    write: async (completions) => applyEachJobChange(await db(), completions),
    together: () => true,
    maxItems: 64,
    weight: ({ change }) => jsonWeight(change.set?.result),
    maxWeight: 1024 * 1024,
  }),
);

/** The result, with whatever the node had not reported yet (provider requests, log lines). */
export async function completeExecution(
  node: NodeRow,
  jobId: string,
  attempt: number,
  result: { summary: string; output: Record<string, unknown> },
  report: ProgressReport = {},
) {
  const change: JobChange = {
    to: "completed",
    attempt,
    nodeId: node.id,
    set: { result, progress: 100, completedAt: Computed.now, leaseExpiresAt: null },
    events: [
      ...reportedEvents(node, report),
      { type: "RESULT_STORED", nodeId: node.id, data: { summary: result.summary } },
      { type: "EXECUTION_COMPLETED", nodeId: node.id, data: { attempt } },
    ],
    logs: [
      ...reportedLogs(node, report),
      { level: "info", source: "node", message: `Completed: ${result.summary}`, nodeId: node.id },
    ],
    capped: true,
  };
  // A developer's node runs only its owner's jobs: one that could run anywhere costs the own-node price.
  if (node.ownerAccountId !== null) {
    return reportOrRefuse(jobId, async (tx) => {
      const [job] = await tx.select().from(jobs).where(eq(jobs.id, jobId)).for("update");
      const discount = job && job.accountId === node.ownerAccountId ? ownNodeDiscount(job) : 0;
      if (!job || discount === 0) return applyJobChange(tx, jobId, change);
      await lockRefundRows(tx, job);
      const row = await applyJobChange(tx, jobId, {
        ...change,
        set: { ...change.set, creditCost: job.creditCost - discount },
      });
      if (row) await refundOwnNodeDiscount(tx, row, discount);
      return row;
    });
  }
  if (!isUuid(jobId)) throw notHeld();
  const row = await (await completionLanes.get()).write(node.id, { jobId, change });
  if (!row) throw notHeld();
}

/** Exponential backoff with full jitter: base · 2^(attempt-1), jittered into [50%, 100%]. */
export function retryDelayMs(attempt: number, baseMs = env().RETRY_BASE_DELAY_MS): number {
  const ceiling = Math.min(5 * 60_000, baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

export function failExecution(node: NodeRow, jobId: string, attempt: number, failure: ExecutionFailure) {
  return reportOrRefuse(jobId, async (tx) => {
    // Read inside the transaction that writes: the attempts left are those of the row being changed.
    const [job] = await tx.select().from(jobs).where(eq(jobs.id, jobId)).for("update");
    if (!job) return null;
    const cause = { kind: "attempt-failed", ...failure, retryDelayMs: retryDelayMs(attempt) } as const;
    return applyStopOutcome(tx, jobId, stopOutcome(job, cause), {
      from: heldStatuses,
      attempt,
      nodeId: node.id,
      events: [
        {
          type: "EXECUTION_FAILED",
          nodeId: node.id,
          data: { code: failure.code, message: failure.message, retryable: failure.retryable, attempt },
        },
      ],
      logs: [
        {
          level: "error",
          source: "node",
          message: `Attempt ${attempt} failed: ${failure.code}: ${failure.message}`,
          nodeId: node.id,
        },
      ],
    });
  });
}

/**
 * A node giving a job back (graceful shutdown before finishing it). The network's nodes are the deployment's: their
 * drain routes the job again as a new attempt and costs its developer nothing. A developer's node runs code the
 * deployment does not control, and could release and claim its own job for ever (each cycle new events and log
 * lines, and a fresh deadline): its release ends the attempt as a failure would, retried while attempts remain,
 * then failed (and refunded).
 */
export function releaseJob(node: NodeRow, jobId: string, attempt: number, reason = "node shutting down") {
  if (node.ownerAccountId !== null) {
    return failExecution(node, jobId, attempt, {
      code: "RELEASED",
      message: `The node gave the job back (${reason}).`,
      retryable: true,
    });
  }
  return changeOrRefuse(jobId, {
    to: "routing",
    from: heldStatuses,
    attempt,
    nodeId: node.id,
    set: { routingStartedAt: Computed.now, leaseExpiresAt: null },
    events: [{ type: "ROUTING_STARTED", data: { attempt: attempt + 1, releasedBy: node.id, reason } }],
    logs: [{ level: "warn", source: "node", message: `Released by the node (${reason}).`, nodeId: node.id }],
  });
}
