// Nodes developers own (CONTRACT §12): adding one (its token shown once, kept as a hash), listing and rotating
// (revoking gives jobs back: lib/engine/revoke-node.ts), and what the Nodes page shows of them and of the
// network's nodes. Every query is scoped to the
// owner; another developer's node is not found.
import { and, count, desc, eq, getTableColumns, isNull, sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { accounts, jobs, nodes } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { limits } from "@/lib/limits";
import type { NetworkNode, Node, NodesOverview, NodeWithToken, OwnNodeActivity } from "@/lib/contract/schemas";
import type { NodeState } from "@/lib/contract/vocabulary";
import { requireProfile } from "./accounts";
import { isServiceId } from "./catalog";
import { db } from "./database";
import { DomainError, notFound } from "./errors";
import { isUuid } from "./ids";
import { hashNodeToken, newNodeToken } from "./node-identity";

type NodeRow = typeof nodes.$inferSelect;
type NodeWithCounts = NodeRow & { state: NodeState; runningJobs: number };

const nodeNotFound = () => notFound("NODE_NOT_FOUND", "The node");

/** The state the page and the API show, derived in SQL from the database's clock (one lease = NODE_LEASE_MS). */
const stateSql = (): SQL<NodeState> => sql<NodeState>`case
    when ${nodes.revokedAt} is not null then 'revoked'
    when ${nodes.stoppedAt} is not null then 'offline'
    when ${nodes.lastHeartbeatAt} is null then 'pending'
    when ${nodes.lastHeartbeatAt} < now() - make_interval(secs => ${env().NODE_LEASE_MS / 1000}) then 'lost'
    when ${nodes.drainingAt} is not null then 'draining'
    else 'live' end`;
// The statuses in which a node holds a job (lib/engine/job-machine.ts's heldStatuses).
const runningJobsSql = sql<number>`(select count(*)::int from ${jobs} held
    where held.assigned_node_id = ${nodes.id} and held.status in ('assigned', 'running'))`;
const withCounts = () => ({ ...getTableColumns(nodes), state: stateSql(), runningJobs: runningJobsSql });

function toNode(row: NodeWithCounts): Node {
  return {
    nodeId: row.id,
    name: row.name,
    region: row.region,
    serviceIds: row.declaredServiceIds ?? row.serviceIds,
    concurrency: row.declaredConcurrency ?? row.concurrency,
    state: row.state,
    lastHeartbeatAt: row.lastHeartbeatAt?.toISOString() ?? null,
    runningJobs: Number(row.runningJobs),
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

const owned = (accountId: string, nodeId: string) => and(eq(nodes.id, nodeId), eq(nodes.ownerAccountId, accountId));

async function findOwnNode(tx: Tx, accountId: string, nodeId: string): Promise<NodeWithCounts> {
  if (!isUuid(nodeId)) throw nodeNotFound();
  const [row] = await tx.select(withCounts()).from(nodes).where(owned(accountId, nodeId));
  if (!row) throw nodeNotFound();
  return row;
}

export interface NewNode {
  name: string;
  region?: string;
  serviceIds: string[];
  concurrency?: number;
}

export async function createDeveloperNode(accountId: string, input: NewNode): Promise<NodeWithToken> {
  await requireProfile(accountId);
  const unknown = input.serviceIds.filter((id) => !isServiceId(id));
  if (unknown.length > 0) {
    throw new DomainError("INVALID_REQUEST", `Unknown service: ${unknown.join(", ")}.`, {
      issues: [{ path: "serviceIds", message: `not in the catalog: ${unknown.join(", ")}` }],
    });
  }
  const token = newNodeToken();
  const concurrency = input.concurrency ?? limits.developerNodeDefaultConcurrency;
  const d = await db();
  const nodeId = await d.transaction(async (tx) => {
    // The account row serialises concurrent additions, so the limit holds under races.
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
    const [{ n }] = await tx
      .select({ n: count() })
      .from(nodes)
      .where(and(eq(nodes.ownerAccountId, accountId), isNull(nodes.revokedAt)));
    if (n >= limits.nodesPerDeveloper) {
      throw new DomainError("LIMIT_REACHED", `A developer may have at most ${limits.nodesPerDeveloper} nodes.`, {
        limit: limits.nodesPerDeveloper,
      });
    }
    const [row] = await tx
      .insert(nodes)
      .values({
        ownerAccountId: accountId,
        name: input.name,
        region: input.region ?? "local",
        tokenHash: hashNodeToken(token),
        declaredServiceIds: input.serviceIds,
        declaredConcurrency: concurrency,
        // What claims use until the node registers and says what it really offers (narrowed to these).
        serviceIds: input.serviceIds,
        concurrency,
      })
      .returning({ id: nodes.id });
    return row.id;
  });
  return { ...toNode(await findOwnNode(d, accountId, nodeId)), token };
}

export async function listDeveloperNodes(accountId: string): Promise<{ data: Node[] }> {
  const rows = await (
    await db()
  )
    .select(withCounts())
    .from(nodes)
    .where(eq(nodes.ownerAccountId, accountId))
    .orderBy(desc(nodes.createdAt), desc(nodes.id));
  return { data: rows.map(toNode) };
}

export async function getDeveloperNode(accountId: string, nodeId: string): Promise<Node> {
  return toNode(await findOwnNode(await db(), accountId, nodeId));
}

/** A new token; the old one fails at once (every node request looks its token's hash up). */
export async function rotateDeveloperNodeToken(accountId: string, nodeId: string): Promise<NodeWithToken> {
  const current = await findOwnNode(await db(), accountId, nodeId);
  if (current.revokedAt) throw new DomainError("NODE_REVOKED", "A revoked node's token cannot be rotated.");
  const token = newNodeToken();
  const d = await db();
  const [rotated] = await d
    .update(nodes)
    .set({ tokenHash: hashNodeToken(token) })
    .where(and(owned(accountId, nodeId), isNull(nodes.revokedAt)))
    .returning({ id: nodes.id });
  if (!rotated) throw new DomainError("NODE_REVOKED", "A revoked node's token cannot be rotated.");
  return { ...toNode(await findOwnNode(d, accountId, nodeId)), token };
}

// ── The Nodes page ─────────────────────────────────────────────────────────────────────────────────

/** Network nodes seen within this long are listed (lost ones a while, so a crash is visible). */
const networkNodesSeenWithinSeconds = 3600;

/** The developer's own nodes with their last 24 hours, then the network's recently seen nodes. */
export async function nodesOverview(accountId: string): Promise<NodesOverview> {
  const d = await db();
  const own = (await listDeveloperNodes(accountId)).data;
  const activity = own.length === 0 ? [] : await lastDayOf(d, accountId);
  const network = await d
    .select(withCounts())
    .from(nodes)
    .where(
      and(
        isNull(nodes.ownerAccountId),
        isNull(nodes.revokedAt),
        sql`${nodes.lastHeartbeatAt} > now() - make_interval(secs => ${networkNodesSeenWithinSeconds})`,
      ),
    )
    .orderBy(nodes.name);
  return {
    own: own.map((node): OwnNodeActivity => {
      const mine = activity.filter((a) => a.nodeId === node.nodeId);
      return {
        ...node,
        completedLast24h: mine.reduce((sum, a) => sum + a.completed, 0),
        failedLast24h: mine.reduce((sum, a) => sum + a.failed, 0),
        medianRunMsByService: mine
          .filter((a) => a.medianRunMs !== null)
          .map((a) => ({ serviceId: a.serviceId, jobs: a.completed, medianRunMs: Math.round(Number(a.medianRunMs)) })),
      };
    }),
    network: network.map((row): NetworkNode => {
      const { createdAt: _created, revokedAt: _revoked, ...rest } = toNode(row);
      return rest;
    }),
  };
}

/** Per own node and service, the jobs that ended on it in the last 24 hours and the median run of those completed. */
async function lastDayOf(d: Tx, accountId: string) {
  type Row = {
    node_id: string;
    service_id: string;
    completed: number;
    failed: number;
    median_run_ms: number | string | null;
  };
  const result = await d.execute(sql`
    select j.assigned_node_id as node_id, j.service_id,
      (count(*) filter (where j.status = 'completed'))::int as completed,
      (count(*) filter (where j.status = 'failed'))::int as failed,
      percentile_cont(0.5) within group (order by extract(epoch from (j.completed_at - j.started_at)) * 1000)
        filter (where j.status = 'completed' and j.started_at is not null) as median_run_ms
    from ${jobs} j join ${nodes} n on n.id = j.assigned_node_id and n.owner_account_id = ${accountId}
    where j.account_id = ${accountId} and j.status in ('completed', 'failed')
      and j.completed_at > now() - interval '24 hours'
    group by j.assigned_node_id, j.service_id`);
  return (result as unknown as { rows: Row[] }).rows.map((r) => ({
    nodeId: r.node_id,
    serviceId: r.service_id,
    completed: Number(r.completed),
    failed: Number(r.failed),
    medianRunMs: r.median_run_ms === null ? null : Number(r.median_run_ms),
  }));
}
