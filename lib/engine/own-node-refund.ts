// A job that could run anywhere (placement "any") and completed on its developer's own node costs what a job
// placed on their own nodes costs (CONTRACT §12): the difference goes back with the completion, in its
// transaction, to the balance and to the spend of the key it was charged through.
import type { Tx } from "@/lib/db/database";
import { applyLedgerEntry } from "@/lib/domain/credits";
import { ownNodeCreditCost } from "@/lib/domain/own-node-price";
import { giveBackKeySpend } from "@/lib/domain/spend-controls";
import type { JobRow } from "./job-change";

/** What a job completed on its developer's own node is refunded: nothing unless it was placed "any". */
export function ownNodeDiscount(job: Pick<JobRow, "placement" | "creditCost">): number {
  return job.placement === "any" ? Math.max(0, job.creditCost - ownNodeCreditCost(job.creditCost)) : 0;
}

/** `job` as completed, its creditCost already lowered by `discount` in the same change. */
export async function refundOwnNodeDiscount(tx: Tx, job: JobRow, discount: number): Promise<void> {
  // The key's spend first: keys are locked before accounts on every path (lib/domain/spend-controls.ts).
  await giveBackKeySpend(tx, { ...job, creditCost: discount });
  await applyLedgerEntry(tx, {
    accountId: job.accountId,
    type: "refund",
    amount: discount,
    jobId: job.id,
    description: `Refund: ${job.serviceId} job ran on your own node`,
  });
}
