// A developer revoking their node (CONTRACT §12): its token fails at once, and the jobs it held are given back
// in the same transaction, as when a node is lost (a new attempt, routed again, not charged again).
import { and, eq, inArray, sql } from "drizzle-orm";
import { jobs, nodes } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { getDeveloperNode } from "@/lib/domain/developer-nodes";
import type { Node } from "@/lib/contract/schemas";
import { heldStatuses } from "./job-machine";
import { loseJobs } from "./lost-jobs";

/** Idempotent; another developer's node is not found (NODE_NOT_FOUND), and nothing changes. */
export async function revokeDeveloperNode(accountId: string, nodeId: string): Promise<Node> {
  await getDeveloperNode(accountId, nodeId);
  const d = await db();
  await d.transaction(async (tx) => {
    await tx
      .update(nodes)
      .set({ revokedAt: sql`coalesce(${nodes.revokedAt}, now())` })
      .where(and(eq(nodes.id, nodeId), eq(nodes.ownerAccountId, accountId)));
    // Waits for a report in flight on one of them (no SKIP LOCKED): none stays with the revoked node.
    const held = await tx
      .select()
      .from(jobs)
      .where(and(eq(jobs.assignedNodeId, nodeId), inArray(jobs.status, [...heldStatuses])))
      .for("update");
    await loseJobs(tx, held, "node revoked by its owner");
  });
  return getDeveloperNode(accountId, nodeId);
}
