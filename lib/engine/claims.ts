// Claims: a node takes the oldest routing jobs it can run, up to its free slots, under FOR UPDATE SKIP
// LOCKED (so no job is ever assigned twice, whatever the number of server instances and nodes), in one
// statement; and the long poll that waits for work to arrive.
import { sql } from "drizzle-orm";
import { sqlLiterals } from "@/lib/db/prepared-statements";
import { jobs, nodes } from "@/lib/db/schema";
import type { Tx } from "@/lib/db/database";
import { db } from "@/lib/domain/database";
import type { ClaimedJob } from "@/lib/contract/node-protocol";
import { jobAttributes, SpanKind, startSpan, traceparentOf, tracingOn } from "@/lib/tracing";
import { applyJobChanges } from "./apply-change";
import { leaseFromNow, started, type NodeRow } from "./attempts";
import { Computed, type Candidates, type JobChange, type JobRow } from "./job-change";
import { heldStatuses } from "./job-machine";
import { claimedFull, waitForWork, workWaiters } from "./work-signals";

// Literal, not parameters: the claim is a prepared statement, and only a literal list lets its generic plan
// count the node's jobs through the partial index of held jobs (jobs_held_idx, whose predicate is this list).
const heldStatusList = sqlLiterals(heldStatuses);

// The jobs one claim takes: the oldest routing jobs the node can run, up to its free slots (counted in the
// same statement), under FOR UPDATE SKIP LOCKED. One text for every claim; the node and its wish are bound.
// The node counts only with the token the request authenticated with, still current at the claim: a long poll
// opened before its token was rotated or revoked takes nothing more (the credential is read once per request).
const claimNode = sql.placeholder("claimNodeId");
const claimSelf = sql`${nodes.id} = ${claimNode} and ${nodes.tokenHash} = ${sql.placeholder("claimTokenHash")}
    and ${nodes.drainingAt} is null and ${nodes.revokedAt} is null`;
const claimBusy = sql`(select count(*) from ${jobs} held where held.assigned_node_id = ${claimNode} and held.status in (${heldStatusList}))`;
const claimFree = sql`greatest(0, least(${sql.placeholder("claimMax")}::int, coalesce((select ${nodes.concurrency} from ${nodes} where ${claimSelf}), 0) - ${claimBusy}))`;
// Who may run what (CONTRACT §12): a developer's node only its owner's jobs, whatever their placement, and
// never one asking for the network; the network's nodes everything but jobs asking for their owner's nodes.
// The claiming node's owner is an uncorrelated subquery (an InitPlan, a primary-key read once per claim), not a
// correlated exists for every candidate row.
const claimOwner = sql`(select claimer.owner_account_id from ${nodes} claimer where claimer.id = ${claimNode})`;
const claimPlacement = sql`case when ${claimOwner} is null then eligible.placement <> 'own'
      else eligible.account_id = ${claimOwner} and eligible.placement <> 'network' end`;
const claimCandidates = sql`array(
    select eligible.id from ${jobs} eligible
    where eligible.status = 'routing'
      and eligible.service_id = any(coalesce((select ${nodes.serviceIds} from ${nodes} where ${claimSelf}), '{}'::text[]))
      and ${claimPlacement}
    order by eligible.created_at
    limit ${claimFree}
    for update skip locked)`;

/**
 * One claim: the claimed jobs assigned (and started, with `start`), with their events and log lines, in one
 * statement, on `on` (a creation's connection that hands this claim its jobs) or the pool.
 */
async function claimOnce(node: NodeRow, max: number, start: boolean, on?: Tx): Promise<ClaimedJob[]> {
  const claimedAt = tracingOn ? Date.now() : 0;
  const d = on ?? (await db());
  const candidates: Candidates = {
    shape: "claim",
    sql: claimCandidates,
    values: { claimNodeId: node.id, claimTokenHash: node.tokenHash, claimMax: max },
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
  // One statement, no transaction (with the webhook events of developers who subscribe to them).
  const { rows } = await applyJobChanges(d, candidates, assign);
  // Oldest first, as they were chosen (a statement's RETURNING has no order).
  rows.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return rows.map((row) => {
    const job: ClaimedJob = {
      jobId: row.id,
      attempt: row.attempt,
      serviceId: row.serviceId,
      input: row.input,
      timeoutMs: row.timeoutMs,
    };
    const traceparent = tracingOn && row.traceContext ? claimSpan(row, node, claimedAt) : undefined;
    return traceparent ? { ...job, traceparent } : job;
  });
}

/** The claim's span in the job's trace (one statement claimed them all: each gets its time); the node continues it. */
function claimSpan(row: JobRow, node: NodeRow, startTime: number): string | undefined {
  const span = startSpan("claim job", {
    kind: SpanKind.CONSUMER,
    parent: row.traceContext,
    startTime,
    attributes: jobAttributes({ jobId: row.id, serviceId: row.serviceId, nodeId: node.id, attempt: row.attempt }),
  });
  span?.end();
  return span && traceparentOf(span.spanContext());
}

// A work signal wakes ONE waiting claim that can run the service (waking them all would make every idle node
// run a claim transaction per job); a signal nobody was waiting for is remembered so the next node to wait
// claims at once instead (work-signals.ts). A claim that came back full wakes one more: a creation may have
// handed it jobs it had no room for. A claim that came back with fewer jobs than it asked for saw
// nothing more of its services waiting: until a signal says otherwise (or the periodic re-check), the next
// claim for them waits first, instead of a claim statement that finds nothing each time a slot frees.

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
  const claim = (on?: Tx) => claimOnce(node, max, options.start ?? false, on);
  const waitFirst = node.serviceIds.length > 0 && node.serviceIds.every((id) => waiters.drained.has(id));
  let claimed = waitFirst ? undefined : await claim();
  for (;;) {
    if (claimed) {
      for (const id of node.serviceIds) {
        if (claimed.length < max) waiters.drained.add(id);
        else waiters.drained.delete(id);
      }
      if (claimed.length > 0 && claimed.length === max) claimedFull(waiters, node.serviceIds);
      if (claimed.length > 0 || Date.now() >= deadline || signal?.aborted) return claimed;
    }
    const missed = node.serviceIds.filter((id) => waiters.unclaimed.has(id));
    if (missed.length > 0) {
      missed.forEach((id) => waiters.unclaimed.delete(id));
      claimed = await claim();
      continue;
    }
    // Woken, the claim runs now; handed a creation's jobs, the creation has run it.
    claimed =
      (await waitForWork(node.serviceIds, Math.min(1000, Math.max(0, deadline - Date.now())), signal, {
        takesNetworkJobs: node.ownerAccountId === null,
        claim,
      })) ?? (await claim());
  }
}
