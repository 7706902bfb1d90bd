// A job that could run anywhere (placement "any") and completed on its developer's own node costs what a job
// placed on their own nodes costs (CONTRACT §12): the difference goes back when it completes, with the
// completion, to the balance and to the key's spend it was charged through.
import { eq } from "drizzle-orm";
import type { Tx } from "@/lib/db/client";
import { jobs } from "@/lib/db/schema";
import { applyLedgerEntry } from "./credits";
import type { JobRow } from "./job-log";
import { ownNodeCreditCost } from "./own-node-price";
import { giveBackKeySpend } from "./spend-controls";

/** In the completion's transaction, for a job completed by a node its developer owns. */
export async function refundOwnNodeDifference(tx: Tx, job: JobRow): Promise<JobRow> {
  if (job.placement !== "any") return job;
  const price = ownNodeCreditCost(job.creditCost);
  const difference = job.creditCost - price;
  if (difference <= 0) return job;
  await tx.update(jobs).set({ creditCost: price }).where(eq(jobs.id, job.id));
  // The key's spend first: keys are locked before accounts on every path (lib/domain/spend-controls.ts).
  await giveBackKeySpend(tx, { ...job, creditCost: difference });
  await applyLedgerEntry(tx, {
    accountId: job.accountId,
    type: "refund",
    amount: difference,
    jobId: job.id,
    description: `Refund: ${job.serviceId} job ran on your own node`,
  });
  return { ...job, creditCost: price };
}
