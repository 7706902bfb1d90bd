// A job's credits going back to its developer (a failure's whole charge, an own-node discount): the key's
// spend, the balance with its ledger entry, at the spend clock's time, which the usage rollups count it in.
import type { Tx } from "@/lib/db/database";
import { applyLedgerEntry } from "@/lib/domain/credits";
import { giveBackKeySpend } from "@/lib/domain/spend-controls";
import { refundTimeSql } from "@/lib/domain/usage-rollups";
import type { JobRow } from "./job-change";

export async function refundJobCredits(tx: Tx, job: JobRow, amount: number, description: string): Promise<void> {
  if (amount <= 0) return;
  // The key's spend first: keys are locked before accounts on every path (lib/domain/spend-controls.ts).
  await giveBackKeySpend(tx, { ...job, creditCost: amount });
  await applyLedgerEntry(tx, {
    accountId: job.accountId,
    type: "refund",
    amount,
    jobId: job.id,
    description,
    createdAt: refundTimeSql(),
  });
}
