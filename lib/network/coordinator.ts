// The coordinator side of the execution network: node identity and liveness. What nodes do with jobs
// (claims, reports, leases) is the engine's (lib/engine/claims.ts, node-reports.ts); so is every job write.
import { and, count, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { preparedPerDatabase } from "@/lib/db/prepared-statements";
import { jobs, nodes } from "@/lib/db/schema";
import { DomainError } from "@/lib/domain/errors";
import { db } from "@/lib/domain/database";
import { hashNodeToken, newNodeToken, offerOf } from "@/lib/domain/node-identity";
import { leaseMs, type NodeRow } from "@/lib/engine/attempts";
import { loseHeldJobs } from "@/lib/engine/lost-jobs";
import { renewLeases } from "@/lib/engine/node-reports";
import type { DeploymentGauges } from "@/lib/metrics";
import type { NodeRegistration } from "@/lib/contract/node-protocol";
import { activeStatuses } from "@/lib/contract/vocabulary";

export type { NodeRow };

const hashToken = hashNodeToken;
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

/** A node (re)starting: update what it offers; anything it held before the restart is lost now. */
export async function registerNode(node: NodeRow, registration: NodeRegistration) {
  const d = await db();
  await d.transaction(async (tx) => {
    await tx
      .update(nodes)
      .set({ ...offerOf(node, registration), lastHeartbeatAt: sql`now()`, drainingAt: null, stoppedAt: null })
      .where(eq(nodes.id, node.id));
    await loseHeldJobs(tx, node.id, "node restarted");
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
  const keep = await renewLeases(node, activeJobIds);
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

/**
 * A node that stopped cleanly: it finished or gave back its jobs and sends nothing more until it registers
 * again, so it shows offline rather than lost. Anything it still holds is routed again, as on a restart.
 */
export async function stopNode(node: NodeRow) {
  await (
    await db()
  ).transaction(async (tx) => {
    await tx
      .update(nodes)
      .set({ drainingAt: sql`coalesce(${nodes.drainingAt}, now())`, stoppedAt: sql`now()` })
      .where(eq(nodes.id, node.id));
    await loseHeldJobs(tx, node.id, "node stopped");
  });
}

/**
 * What the metrics' deployment-wide gauges show, in one query per scrape: the jobs in each non-final status
 * (on the partial index of active jobs) and the live nodes, counted as liveNodeCount counts them.
 */
export async function deploymentGauges(): Promise<DeploymentGauges> {
  const result = await (
    await db()
  ).execute(sql`select
    (select coalesce(json_object_agg(status, n), '{}'::json) from (
      select ${jobs.status} as status, count(*)::int as n from ${jobs}
      where ${inArray(jobs.status, [...activeStatuses])} group by ${jobs.status}) active) as active_jobs,
    (select count(*)::int from ${nodes}
      where ${and(gt(nodes.lastHeartbeatAt, liveSince()), isNull(nodes.drainingAt), isNull(nodes.revokedAt))}) as live_nodes`);
  const [row] = (result as unknown as { rows: { active_jobs: unknown; live_nodes: number }[] }).rows;
  const activeJobs = typeof row.active_jobs === "string" ? JSON.parse(row.active_jobs) : row.active_jobs;
  return { activeJobs: activeJobs as DeploymentGauges["activeJobs"], liveNodes: Number(row.live_nodes) };
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
