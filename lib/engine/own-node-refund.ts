// A job that could run anywhere (placement "any") and completed on its developer's own node costs what a job
// placed on their own nodes costs (CONTRACT §12): the difference goes back with the completion, in its
// transaction, to the balance and to the spend of the key it was charged through.
import type { Tx } from "@/lib/db/database";
import { eq } from "drizzle-orm";
import { accounts, apiKeys } from "@/lib/db/schema";
import { ownNodeCreditCost } from "@/lib/domain/own-node-price";
import { countRefund } from "@/lib/domain/usage-rollups";
import type { JobRow } from "./job-change";
import { refundJobCredits } from "./refunds";

/** What a job completed on its developer's own node is refunded: nothing unless it was placed "any". */
export function ownNodeDiscount(job: Pick<JobRow, "placement" | "creditCost">): number {
  return job.placement === "any" ? Math.max(0, job.creditCost - ownNodeCreditCost(job.creditCost)) : 0;
}

/** `job` as completed, its creditCost already lowered by `discount` in the same change. */
export async function refundOwnNodeDiscount(tx: Tx, job: JobRow, discount: number): Promise<void> {
  await refundJobCredits(tx, job, discount, `Refund: ${job.serviceId} job ran on your own node`);
  await countRefund(tx, job, discount);
}

/**
 * Locks the rows a refund of `job` writes, the key's then the account's, before its completion's statement: the
 * order every charge takes them in (create-job.ts), so the two never wait on each other in a cycle.
 */
export async function lockRefundRows(tx: Tx, job: Pick<JobRow, "accountId" | "apiKeyId">): Promise<void> {
  if (job.apiKeyId)
    await tx.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.id, job.apiKeyId)).for("no key update");
  await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, job.accountId)).for("no key update");
}
