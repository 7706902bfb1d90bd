// The coordinator side of the execution network: node identity and liveness, routing (nodes claim the
// oldest eligible jobs under FOR UPDATE SKIP LOCKED, so no job is ever assigned twice, whatever the number
// of server instances and nodes), and the reports nodes make about the jobs they run.
import { and, count, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { preparedPerDatabase, sqlLiterals, type Tx } from "@/lib/db/client";
import { jobs, nodes } from "@/lib/db/schema";
import { DomainError } from "@/lib/domain/errors";
import { heldStatuses, nextProgress, stopOutcome } from "@/lib/domain/job-machine";
import {
  Computed,
  recordJobChange,
  recordJobChangeAtOnce,
  recordJobChanges,
  recordStopOutcome,
  type Candidates,
  type EventInput,
  type JobChange,
  type JobRow,
  type LogInput,
} from "@/lib/domain/job-log";
import { isUuid } from "@/lib/domain/ids";
import { loseJobs } from "@/lib/domain/lost-jobs";
import { refundOwnNodeDifference } from "@/lib/domain/own-node-refund";
import { hashNodeToken, newNodeToken, offerOf } from "@/lib/domain/node-identity";
import { db, readyDatabase } from "@/lib/domain/database";
import { workChannel } from "@/lib/domain/signals";
import { env } from "@/lib/env";
import type { ClaimedJob, ExecutionFailure, NodeRegistration, ProgressReport } from "@/lib/contract/node-protocol";

export type NodeRow = typeof nodes.$inferSelect;

const hashToken = hashNodeToken;
export const leaseMs = () => env().NODE_LEASE_MS;
const leaseEnd = () => sql`now() + make_interval(secs => ${leaseMs() / 1000})`;
/** The end of a lease taken now, as a job change sets it. */
const leaseFromNow = () => Computed.secondsFromNow(leaseMs() / 1000);
const liveSince = () => sql`now() - make_interval(secs => ${leaseMs() / 1000})`;

// ── Identity ───────────────────────────────────────────────────────────────────────────────────────

/** Issues a node credential (operator command). The token is shown once; only its hash is kept. */
export async function issueNodeToken(name: string, options: { region?: string; embedded?: boolean } = {}) {
  const token = newNodeToken();
  const [row] = await (
    await db()
  )
    .insert(nodes)
    .values({
      name,
      region: options.region ?? "local",
      tokenHash: hashToken(token),
      embedded: options.embedded ?? false,
    })
    .returning();
  return { nodeId: row.id, token };
}

/** Gives an embedded node a stable identity per server instance and slot, with a fresh token each boot. */
export async function ensureEmbeddedNode(name: string) {
  const token = newNodeToken();
  const d = await db();
  const [existing] = await d
    .select()
    .from(nodes)
    .where(and(eq(nodes.name, name), eq(nodes.embedded, true)));
  if (existing) {
    await d
      .update(nodes)
      .set({ tokenHash: hashToken(token), revokedAt: null })
      .where(eq(nodes.id, existing.id));
    return { nodeId: existing.id, token };
  }
  return issueNodeToken(name, { embedded: true });
}

/** Every request of a node looks its token up. */
const nodeByTokenHash = preparedPerDatabase((d) =>
  d
    .select()
    .from(nodes)
    .where(and(eq(nodes.tokenHash, sql.placeholder("tokenHash")), isNull(nodes.revokedAt)))
    .prepare("node_by_token_hash"),
);

export async function authenticateNode(token: string | null): Promise<NodeRow> {
  const [row] = token ? await nodeByTokenHash(await db()).execute({ tokenHash: hashToken(token) }) : [];
  if (!row) throw new DomainError("INVALID_NODE_TOKEN", "The node token is missing, unknown or revoked.");
  return row;
}

// Shared with a developer revoking their node (lib/domain/developer-nodes.ts) and the sweeper.
export { loseJobs };

/** A node (re)starting: update what it offers; anything it held before the restart is lost now. */
export async function registerNode(node: NodeRow, registration: NodeRegistration) {
  const d = await db();
  await d.transaction(async (tx) => {
    await tx
      .update(nodes)
      .set({ ...offerOf(node, registration), lastHeartbeatAt: sql`now()`, drainingAt: null })
      .where(eq(nodes.id, node.id));
    const held = await tx
      .select()
      .from(jobs)
      .where(and(eq(jobs.assignedNodeId, node.id), inArray(jobs.status, [...heldStatuses])))
      .for("update", { skipLocked: true });
    await loseJobs(tx, held, "node restarted");
  });
  return { nodeId: node.id, leaseMs: leaseMs(), heartbeatIntervalMs: Math.max(50, Math.floor(leaseMs() / 3)) };
}

/** Keeps the node live and its jobs' leases fresh; tells it which of its jobs to stop. */
export async function heartbeat(node: NodeRow, activeJobIds: string[]) {
  const d = await db();
  await d
    .update(nodes)
    .set({ lastHeartbeatAt: sql`now()` })
    .where(eq(nodes.id, node.id));
  const uuids = activeJobIds.filter(isUuid);
  if (uuids.length === 0) return { cancelJobIds: activeJobIds };
  const kept = await d
    .update(jobs)
    .set({ leaseExpiresAt: leaseEnd() })
    .where(and(inArray(jobs.id, uuids), eq(jobs.assignedNodeId, node.id), inArray(jobs.status, [...heldStatuses])))
    .returning({ id: jobs.id });
  const keep = new Set(kept.map((k) => k.id));
  return { cancelJobIds: activeJobIds.filter((id) => !keep.has(id)) };
}

/** A node shutting down gracefully: it claims nothing more. */
export async function drainNode(node: NodeRow) {
  await (
    await db()
  )
    .update(nodes)
    .set({ drainingAt: sql`now()` })
    .where(eq(nodes.id, node.id));
}

export async function liveNodeCount(): Promise<number> {
  const [{ live }] = await (
    await db()
  )
    .select({ live: count() })
    .from(nodes)
    .where(and(gt(nodes.lastHeartbeatAt, liveSince()), isNull(nodes.drainingAt), isNull(nodes.revokedAt)));
  return live;
}

// ── Routing ────────────────────────────────────────────────────────────────────────────────────────

// Literal, not parameters: the claim is a prepared statement, and only a literal list lets its generic plan
// count the node's jobs through the partial index of held jobs (jobs_held_idx, whose predicate is this list).
const heldStatusList = sqlLiterals(heldStatuses);

// The jobs one claim takes: the oldest routing jobs the node can run, up to its free slots (counted in the
// same statement), under FOR UPDATE SKIP LOCKED. One text for every claim; the node and its wish are bound.
const claimNode = sql.placeholder("claimNodeId");
const claimSelf = sql`${nodes.id} = ${claimNode} and ${nodes.drainingAt} is null and ${nodes.revokedAt} is null`;
const claimBusy = sql`(select count(*) from ${jobs} held where held.assigned_node_id = ${claimNode} and held.status in (${heldStatusList}))`;
const claimFree = sql`greatest(0, least(${sql.placeholder("claimMax")}::int, coalesce((select ${nodes.concurrency} from ${nodes} where ${claimSelf}), 0) - ${claimBusy}))`;
// Who may run what (CONTRACT §12): a developer's node only its owner's jobs, whatever their placement, and
// never one asking for the network; the network's nodes everything but jobs asking for their owner's nodes.
const claimPlacement = sql`exists (
      select 1 from ${nodes} claimer where claimer.id = ${claimNode}
        and case when claimer.owner_account_id is null then eligible.placement <> 'own'
                 else claimer.owner_account_id = eligible.account_id and eligible.placement <> 'network' end)`;
const claimCandidates = sql`array(
    select eligible.id from ${jobs} eligible
    where eligible.status = 'routing'
      and eligible.service_id = any(coalesce((select ${nodes.serviceIds} from ${nodes} where ${claimSelf}), '{}'::text[]))
      and ${claimPlacement}
    order by eligible.created_at
    limit ${claimFree}
    for update skip locked)`;

/** One claim: the claimed jobs assigned (and started, with `start`), with their events and log lines, in one statement. */
async function claimOnce(node: NodeRow, max: number, start: boolean): Promise<ClaimedJob[]> {
  const d = await db();
  const candidates: Candidates = {
    shape: "claim",
    sql: claimCandidates,
    values: { claimNodeId: node.id, claimMax: max },
  };
  const assigned = {
    events: [
      { type: "NODE_ASSIGNED", nodeId: node.id, data: { nodeId: node.id, name: node.name, region: node.region } },
    ],
    logs: [
      {
        level: "info",
        source: "platform",
        message: `Assigned to node ${node.name} (${node.region}).`,
        nodeId: node.id,
      },
    ],
  } satisfies Pick<JobChange, "events" | "logs">;
  const set = {
    attempt: Computed.increment,
    assignedNodeId: node.id,
    assignedAt: Computed.now,
    leaseExpiresAt: leaseFromNow(),
    progress: 0,
  };
  const assign: JobChange = start
    ? {
        to: "running",
        through: { status: "assigned", eventCount: assigned.events.length },
        from: ["routing"],
        set: { ...set, ...started.set() },
        events: [...assigned.events, ...started.events(node)],
        logs: [...assigned.logs, ...started.logs(node)],
      }
    : { to: "assigned", from: ["routing"], set, ...assigned };
  // One statement, no transaction, unless a chosen job needs webhook events: then those are claimed again in
  // a transaction (the free slots are counted afresh, so the two never claim more than the node can run).
  const atOnce = await recordJobChanges(d, candidates, assign, { inTransaction: false });
  const rows = atOnce.rows;
  if (atOnce.left > 0)
    rows.push(
      ...(await d.transaction(
        async (tx) => (await recordJobChanges(tx, candidates, assign, { inTransaction: true })).rows,
      )),
    );
  // Oldest first, as they were chosen (a statement's RETURNING has no order).
  rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return rows.map((row) => ({
    jobId: row.id,
    attempt: row.attempt,
    serviceId: row.serviceId,
    input: row.input,
    timeoutMs: row.timeoutMs,
  }));
}

// Nodes of this process waiting for work, oldest first. A work signal wakes ONE waiter that can run the
// service (waking them all would make every idle node run a claim transaction per job); a signal nobody
// was waiting for is remembered so the next node to wait claims at once instead. A claim that came back
// with fewer jobs than it asked for saw nothing more of its services waiting: until a signal says otherwise
// (or the periodic re-check), the next claim for them waits first, instead of a claim statement that
// finds nothing each time a slot frees.
interface Waiter {
  serviceIds: string[];
  wake: () => void;
}
interface WorkWaiters {
  waiting: Waiter[];
  unclaimed: Set<string>;
  drained: Set<string>;
}
const waitersByDatabase = new WeakMap<object, Promise<WorkWaiters>>();

async function workWaiters(): Promise<WorkWaiters> {
  const database = await readyDatabase();
  let found = waitersByDatabase.get(database);
  if (!found) {
    const state: WorkWaiters = { waiting: [], unclaimed: new Set(), drained: new Set() };
    found = database
      .listen(workChannel, (serviceId) => {
        const i = state.waiting.findIndex((w) => w.serviceIds.includes(serviceId));
        if (i >= 0) state.waiting.splice(i, 1)[0].wake();
        else state.unclaimed.add(serviceId);
      })
      .then(() => state);
    waitersByDatabase.set(database, found);
  }
  return found;
}

/**
 * Claims up to `max` jobs, waiting up to `waitMs` for work to arrive (long poll). Arrival is signalled
 * (NOTIFY / in-process); a periodic re-check is the safety net for signals lost between instances.
 */
export async function claimJobs(
  node: NodeRow,
  max: number,
  waitMs: number,
  signal?: AbortSignal,
  options: { start?: boolean } = {},
): Promise<ClaimedJob[]> {
  const deadline = Date.now() + waitMs;
  const waiters = await workWaiters();
  let waitFirst = node.serviceIds.length > 0 && node.serviceIds.every((id) => waiters.drained.has(id));
  for (;;) {
    if (!waitFirst) {
      const claimed = await claimOnce(node, max, options.start ?? false);
      for (const id of node.serviceIds) {
        if (claimed.length < max) waiters.drained.add(id);
        else waiters.drained.delete(id);
      }
      if (claimed.length > 0 || Date.now() >= deadline || signal?.aborted) return claimed;
    }
    waitFirst = false;
    const missed = node.serviceIds.filter((id) => waiters.unclaimed.has(id));
    if (missed.length > 0) {
      missed.forEach((id) => waiters.unclaimed.delete(id));
      continue;
    }
    await new Promise<void>((resolve) => {
      const waiter: Waiter = { serviceIds: node.serviceIds, wake: done };
      const timer = setTimeout(done, Math.min(1000, Math.max(0, deadline - Date.now())));
      function done() {
        clearTimeout(timer);
        const i = waiters.waiting.indexOf(waiter);
        if (i >= 0) waiters.waiting.splice(i, 1);
        signal?.removeEventListener("abort", done);
        resolve();
      }
      waiters.waiting.push(waiter);
      signal?.addEventListener("abort", done);
    });
  }
}

// ── Reports from nodes about their jobs ────────────────────────────────────────────────────────────

/** Why a node's report was refused: the job ended (e.g. cancelled) or moved on to another attempt. */
async function refusal(jobId: string): Promise<DomainError> {
  const [row] = await (await db()).select({ status: jobs.status }).from(jobs).where(eq(jobs.id, jobId));
  if (row && (row.status === "completed" || row.status === "failed")) {
    return new DomainError("JOB_FINAL", `The job is ${row.status}; stop working on it.`);
  }
  return new DomainError("LEASE_LOST", "This node no longer holds the job (lease lost or a new attempt began).");
}

async function reportOrRefuse(jobId: string, write: (tx: Tx) => Promise<JobRow | null>): Promise<void> {
  if (!isUuid(jobId)) throw new DomainError("JOB_NOT_FOUND", "The job was not found.");
  const row = await (await db()).transaction(write);
  if (!row) throw await refusal(jobId);
}

/** A report that is one job change: written at once (one statement on the hot path), or refused. */
async function changeOrRefuse(jobId: string, change: JobChange): Promise<void> {
  if (!isUuid(jobId)) throw new DomainError("JOB_NOT_FOUND", "The job was not found.");
  const row = await recordJobChangeAtOnce(jobId, change);
  if (!row) throw await refusal(jobId);
}

/** A node starting an attempt: reported by the node, or part of its claim when it starts what it claims at once. */
const started = {
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

export function startExecution(node: NodeRow, jobId: string, attempt: number) {
  return changeOrRefuse(jobId, {
    to: "running",
    attempt,
    nodeId: node.id,
    set: started.set(),
    events: started.events(node, attempt),
    logs: started.logs(node, attempt),
  });
}

const reportedEvents = (node: NodeRow, report: ProgressReport) =>
  (report.providerRequests ?? []).map((data) => ({ type: "PROVIDER_REQUEST" as const, nodeId: node.id, data }));
const reportedLogs = (node: NodeRow, report: ProgressReport) =>
  (report.logs ?? []).map((l) => ({
    level: l.level,
    source: "provider" as const,
    message: l.message,
    nodeId: node.id,
  }));

export function reportProgress(node: NodeRow, jobId: string, attempt: number, report: ProgressReport) {
  return changeOrRefuse(jobId, {
    from: ["running"],
    attempt,
    nodeId: node.id,
    // The same rule as nextProgress, applied to the stored value so concurrent reports cannot lower it.
    set: report.progress === undefined ? {} : { progress: Computed.atLeast(nextProgress(0, report.progress)) },
    events: reportedEvents(node, report),
    logs: reportedLogs(node, report),
  });
}

/** The result, with whatever the node had not reported yet (provider requests, log lines). */
export function completeExecution(
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
  };
  // A developer's node runs only its owner's jobs: one that could run anywhere is refunded down to the own-node price.
  if (node.ownerAccountId !== null) {
    return reportOrRefuse(jobId, async (tx) => {
      const row = await recordJobChange(tx, jobId, change);
      return row && refundOwnNodeDifference(tx, row);
    });
  }
  return changeOrRefuse(jobId, change);
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
    if (!job) throw new DomainError("JOB_NOT_FOUND", "The job was not found.");
    const cause = { kind: "attempt-failed", ...failure, retryDelayMs: retryDelayMs(attempt) } as const;
    return recordStopOutcome(tx, jobId, stopOutcome(job, cause), {
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

/** A node giving a job back (graceful shutdown before finishing it): routed again as a new attempt. */
export function releaseJob(node: NodeRow, jobId: string, attempt: number, reason = "node shutting down") {
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
