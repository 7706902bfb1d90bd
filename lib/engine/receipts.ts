// A completed job's receipt (CONTRACT §13): issued on first need — its route, its job.completed webhook, the job
// page — never on the completion's own path, and stored before it is answered (insert-if-absent), so every later
// read, on every instance, answers the same bytes. Signing is deterministic (RFC 6979), but the key may rotate
// between two first reads: the stored one wins. A webhook delivery's stored body never holds the receipt: it is
// added to the body from this table whenever the body is sent or shown (withReceipt), so the same bytes each time.
import { createHash } from "node:crypto";
import { eq, inArray, sql } from "drizzle-orm";
import { getAddress, type Address, type Hex } from "viem";
import { accounts, jobReceipts, jobs, nodes } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { DomainError, notFound } from "@/lib/domain/errors";
import { isUuid } from "@/lib/domain/ids";
import type { ReceiptSource } from "@/lib/domain/webhook-outbox";
import { receiptSigningAccount } from "@/lib/domain/receipt-signers";
import { appOrigins } from "@/lib/env";
import { receiptDigest, receiptJson, storedReceipt, type Receipt, type ReceiptMessage } from "@/lib/contract/receipts";
import { log } from "@/lib/log";
import { toExecutionJob } from "./execution-job";
import { signReceipt } from "./receipt-signing";

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

/** SHA-256 by OpenSSL, for the receipt's digests (viem's is JavaScript: the same digest). */
const opensslSha256 = (bytes: Uint8Array): Hex => `0x${createHash("sha256").update(bytes).digest("hex")}`;

/** Checksummed wallets (EIP-55, a keccak256 each), kept: a developer's receipts all state one. Bounded. */
const checksummed = new Map<string, Address>();
function checksumOf(wallet: string): Address {
  let address = checksummed.get(wallet);
  if (address === undefined) {
    address = getAddress(wallet);
    if (checksummed.size >= 10_000) checksummed.clear();
    checksummed.set(wallet, address);
  }
  return address;
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
    developer: checksumOf(wallet),
    inputDigest: receiptDigest(shown.input, opensslSha256),
    resultDigest: receiptDigest(shown.result, opensslSha256),
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
 * read back, so the stored one is always the answer: a dispatcher claim's receipts cost one insert (their jobs
 * come with the claim). A job whose receipt cannot be stated is left out (logged).
 */
async function issue(sources: ReceiptSource[]): Promise<Map<string, string>> {
  const stored = new Map<string, string>();
  const unsigned: ReceiptSource[] = [];
  for (const source of sources)
    if (source.receipt !== null) stored.set(source.job.id, receiptJson(source.receipt));
    else unsigned.push(source);
  if (unsigned.length === 0) return stored;
  const d = await db();
  const signer = await receiptSigningAccount();
  const ours = new Map<string, Receipt>();
  for (const source of unsigned) {
    try {
      ours.set(source.job.id, await signReceipt(signer, messageOf(source)));
    } catch (err) {
      log.error("receipt not issued", { jobId: source.job.id, err });
    }
  }
  if (ours.size === 0) return stored;
  const rows = [...ours].map(([jobId, receipt]) => ({ jobId, body: storedReceipt(receipt), signer: signer.address }));
  // Inserted in job id order, so two instances inserting overlapping sets wait for each other instead of
  // deadlocking. Stored in its short form (storedReceipt), answered whole (receiptJson: the same bytes).
  const result = await d.execute(sql`
    insert into ${jobReceipts} (job_id, body, signer)
    select r."jobId", r.body, r.signer
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r("jobId" uuid, body text, signer text)
    order by r."jobId"
    on conflict do nothing
    returning job_id`);
  for (const row of (result as unknown as { rows: { job_id: string }[] }).rows)
    stored.set(row.job_id, JSON.stringify(ours.get(row.job_id)));
  // Another first read stored its own a moment ago: that one is the receipt.
  const raced = rows.filter((row) => !stored.has(row.jobId)).map((row) => row.jobId);
  if (raced.length > 0) {
    const theirs = new Map(
      (
        await d
          .select({ jobId: jobReceipts.jobId, body: jobReceipts.body })
          .from(jobReceipts)
          .where(inArray(jobReceipts.jobId, raced))
      ).map((row) => [row.jobId, row.body]),
    );
    for (const [jobId, body] of theirs) stored.set(jobId, receiptJson(body));
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
 * The receipts of completed jobs (a webhook dispatcher claim's job.completed events, whose jobs the claim read),
 * issued together where not yet: as stored JSON by job id. A job that is not a completed one, or whose receipt
 * could not be issued, has none.
 */
export function receiptsOf(sources: ReceiptSource[]): Promise<Map<string, string>> {
  const completed = new Map<string, ReceiptSource>();
  for (const source of sources) if (source.job.status === "completed") completed.set(source.job.id, source);
  return completed.size === 0 ? Promise.resolve(new Map()) : issue([...completed.values()]);
}

/** The receipts of completed jobs by id, as receiptsOf issues them (their jobs read here). */
export async function completedJobReceipts(jobIds: string[]): Promise<Map<string, string>> {
  if (jobIds.length === 0) return new Map();
  return receiptsOf(await receiptSources([...new Set(jobIds)]));
}
