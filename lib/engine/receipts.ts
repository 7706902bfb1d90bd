// A completed job's receipt (CONTRACT §13): issued on first need — its route, its job.completed webhook, the job
// page — never on the completion's own path, and stored before it is answered (insert-if-absent), so every later
// read, on every instance, answers the same bytes. Signing is deterministic (RFC 6979), but the key may rotate
// between two first reads: the stored one wins.
import { eq, sql } from "drizzle-orm";
import { getAddress } from "viem";
import { accounts, jobReceipts, jobs, nodes } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { DomainError, notFound } from "@/lib/domain/errors";
import { isUuid } from "@/lib/domain/ids";
import { receiptSigningAccount } from "@/lib/domain/receipt-signers";
import { appOrigins } from "@/lib/env";
import {
  receiptDigest,
  receiptDomain,
  receiptPrimaryType,
  receiptTypes,
  typedReceiptMessage,
  type Receipt,
  type ReceiptMessage,
} from "@/lib/contract/receipts";
import { toExecutionJob } from "./execution-job";
import type { JobRow } from "./job-change";

interface ReceiptSource {
  job: JobRow;
  wallet: string;
  nodeOwner: string | null;
  receipt: string | null;
}

/** The job with what its receipt states beyond it (its developer's wallet, its node's owner) and the receipt, if issued. */
async function receiptSource(jobId: string, accountId?: string): Promise<ReceiptSource | undefined> {
  const owned = accountId === undefined ? sql`true` : eq(jobs.accountId, accountId);
  const [row] = await (
    await db()
  )
    .select({ job: jobs, wallet: accounts.walletAddress, nodeOwner: nodes.ownerAccountId, receipt: jobReceipts.body })
    .from(jobs)
    .innerJoin(accounts, eq(accounts.id, jobs.accountId))
    .leftJoin(nodes, eq(nodes.id, jobs.assignedNodeId))
    .leftJoin(jobReceipts, eq(jobReceipts.jobId, jobs.id))
    .where(sql`${eq(jobs.id, jobId)} and ${owned}`);
  return row;
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

/** Signs and stores the receipt unless one is stored already; returns the stored one (its exact JSON). */
async function issue(source: ReceiptSource): Promise<string> {
  if (source.receipt !== null) return source.receipt;
  const message = messageOf(source);
  const signer = await receiptSigningAccount();
  const typed = { domain: receiptDomain, types: receiptTypes, primaryType: receiptPrimaryType } as const;
  const signature = await signer.signTypedData({ ...typed, message: typedReceiptMessage(message) });
  const receipt: Receipt = { ...typed, message, signature, signer: signer.address };
  const body = JSON.stringify(receipt);
  const d = await db();
  const [inserted] = await d
    .insert(jobReceipts)
    .values({ jobId: source.job.id, body, signer: signer.address })
    .onConflictDoNothing()
    .returning({ body: jobReceipts.body });
  if (inserted) return inserted.body;
  // Another first read (maybe on another instance) stored its own a moment ago: that one is the receipt.
  const [stored] = await d
    .select({ body: jobReceipts.body })
    .from(jobReceipts)
    .where(eq(jobReceipts.jobId, source.job.id));
  return stored.body;
}

/** The developer's completed job's receipt: another developer's job is not found, an unfinished one has none yet. */
export async function getJobReceipt(accountId: string, jobId: string): Promise<Receipt> {
  const source = isUuid(jobId) ? await receiptSource(jobId, accountId) : undefined;
  if (!source) throw notFound("JOB_NOT_FOUND", "The job");
  if (source.job.status !== "completed")
    throw new DomainError("JOB_NOT_COMPLETED", "The job has not completed: only a completed job has a receipt.", {
      status: source.job.status,
    });
  return JSON.parse(await issue(source)) as Receipt;
}

/** The receipt of a job known to be completed (its job.completed webhook), as stored JSON. */
export async function completedJobReceipt(jobId: string): Promise<string> {
  const source = await receiptSource(jobId);
  if (source?.job.status !== "completed") throw new Error(`Job ${jobId} is not a completed job.`);
  return issue(source);
}
