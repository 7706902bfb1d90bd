// A completed job's receipt (CONTRACT §13): issued on first need — its route, its job.completed webhook, the job
// page — never on the completion's own path, and stored before it is answered (insert-if-absent), so every later
// read, on every instance, answers the same bytes. Signing is deterministic (RFC 6979), but the key may rotate
// between two first reads: the stored one wins.
import { eq, inArray, sql } from "drizzle-orm";
import { getAddress } from "viem";
import { accounts, jobReceipts, jobs, nodes } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { DomainError, notFound } from "@/lib/domain/errors";
import { isUuid } from "@/lib/domain/ids";
import { receiptSigningAccount } from "@/lib/domain/receipt-signers";
import { appOrigins } from "@/lib/env";
import { receiptDigest, type Receipt, type ReceiptMessage } from "@/lib/contract/receipts";
import { log } from "@/lib/log";
import { toExecutionJob } from "./execution-job";
import { signReceipt } from "./receipt-signing";
import type { JobRow } from "./job-change";

interface ReceiptSource {
  job: JobRow;
  wallet: string;
  nodeOwner: string | null;
  receipt: string | null;
}

/** Jobs with what their receipts state beyond them (the developer's wallet, the node's owner) and their receipts, if issued. */
async function receiptSources(jobIds: string[], accountId?: string): Promise<ReceiptSource[]> {
  const owned = accountId === undefined ? sql`true` : eq(jobs.accountId, accountId);
  return (await db())
    .select({ job: jobs, wallet: accounts.walletAddress, nodeOwner: nodes.ownerAccountId, receipt: jobReceipts.body })
    .from(jobs)
    .innerJoin(accounts, eq(accounts.id, jobs.accountId))
    .leftJoin(nodes, eq(nodes.id, jobs.assignedNodeId))
    .leftJoin(jobReceipts, eq(jobReceipts.jobId, jobs.id))
    .where(sql`${inArray(jobs.id, jobIds)} and ${owned}`);
}

/** What the receipt of a completed job states: its fields as GET /api/developers/jobs/:jobId shows them. */
function messageOf({ job, wallet, nodeOwner }: ReceiptSource): ReceiptMessage {
  const shown = toExecutionJob(job, null);
  if (!job.assignedNodeId || !job.startedAt || !job.completedAt)
    throw new Error(`Completed job ${job.id} lacks its node or times.`);
  return {
    issuer: appOrigins()[0],
    jobId: shown.jobId,
    serviceId: shown.serviceId,
    developer: getAddress(wallet),
    inputDigest: receiptDigest(shown.input),
    resultDigest: receiptDigest(shown.result),
    nodeId: job.assignedNodeId,
    ownNode: nodeOwner !== null && nodeOwner === job.accountId,
    attempt: shown.attempt,
    creditCost: shown.creditCost,
    startedAt: job.startedAt.getTime(),
    completedAt: job.completedAt.getTime(),
  };
}

/**
 * The stored receipts (their exact JSON) of completed jobs, by job id: those not issued yet are signed and
 * stored by one insert that leaves any stored meanwhile (maybe by another instance) as it is, and those are
 * read back, so the stored one is always the answer. A job whose receipt cannot be stated is left out (logged).
 */
async function issue(sources: ReceiptSource[]): Promise<Map<string, string>> {
  const stored = new Map<string, string>();
  const unsigned: ReceiptSource[] = [];
  for (const source of sources)
    if (source.receipt !== null) stored.set(source.job.id, source.receipt);
    else unsigned.push(source);
  if (unsigned.length === 0) return stored;
  const signer = await receiptSigningAccount();
  const rows: { jobId: string; body: string; signer: string }[] = [];
  for (const source of unsigned) {
    try {
      const body = JSON.stringify(await signReceipt(signer, messageOf(source)));
      rows.push({ jobId: source.job.id, body, signer: signer.address });
    } catch (err) {
      log.error("receipt not issued", { jobId: source.job.id, err });
    }
  }
  if (rows.length === 0) return stored;
  // In one order, so two instances inserting overlapping sets wait for each other instead of deadlocking.
  rows.sort((a, b) => (a.jobId < b.jobId ? -1 : 1));
  const d = await db();
  const inserted = await d
    .insert(jobReceipts)
    .values(rows)
    .onConflictDoNothing()
    .returning({ jobId: jobReceipts.jobId, body: jobReceipts.body });
  for (const row of inserted) stored.set(row.jobId, row.body);
  // Another first read stored its own a moment ago: that one is the receipt.
  const raced = rows.filter((row) => !stored.has(row.jobId)).map((row) => row.jobId);
  if (raced.length > 0) {
    const theirs = await d
      .select({ jobId: jobReceipts.jobId, body: jobReceipts.body })
      .from(jobReceipts)
      .where(inArray(jobReceipts.jobId, raced));
    for (const row of theirs) stored.set(row.jobId, row.body);
  }
  return stored;
}

/** The developer's completed job's receipt: another developer's job is not found, an unfinished one has none yet. */
export async function getJobReceipt(accountId: string, jobId: string): Promise<Receipt> {
  const [source] = isUuid(jobId) ? await receiptSources([jobId], accountId) : [];
  if (!source) throw notFound("JOB_NOT_FOUND", "The job");
  if (source.job.status !== "completed")
    throw new DomainError("JOB_NOT_COMPLETED", "The job has not completed: only a completed job has a receipt.", {
      status: source.job.status,
    });
  const receipt = (await issue([source])).get(jobId);
  if (receipt === undefined) throw new Error(`The receipt of job ${jobId} could not be issued.`);
  return JSON.parse(receipt) as Receipt;
}

/**
 * The receipts of jobs known to be completed (their job.completed webhooks, one dispatcher claim's together), as
 * stored JSON by job id; a job that is not a completed one, or whose receipt could not be issued, has none.
 */
export async function completedJobReceipts(jobIds: string[]): Promise<Map<string, string>> {
  if (jobIds.length === 0) return new Map();
  const sources = await receiptSources([...new Set(jobIds)]);
  return issue(sources.filter((source) => source.job.status === "completed"));
}
