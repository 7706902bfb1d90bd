// What pay per call (CONTRACT §15) keeps: the authorization's reservation (one row per (chain, token, payer,
// nonce), written before any work, so one authorization is settled at most once whatever the concurrency and
// on every instance), the settler's nonce sequence, the payment credited as a top-up, and the access token.
import { createHash, randomBytes } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { accounts, jobAccessTokens, jobs, topUps, x402Payments, x402Settlers } from "@/lib/db/schema";
import { creditsForTokenAmount, formatTokenAmount } from "@/lib/contract/top-up-arithmetic";
import type { X402ErrorReason } from "@/lib/contract/vocabulary";
import type { X402Config } from "@/lib/env";
import { applyLedgerEntry } from "@/lib/domain/credits";
import { db } from "@/lib/domain/database";
import type { Authorization, SignedSettlement } from "./chain";

export type PaymentRow = typeof x402Payments.$inferSelect;

export interface Reservation {
  chainId: number;
  tokenAddress: string;
  authorization: Authorization;
  serviceId: string;
  fingerprint: string;
  idempotencyKey: string | undefined;
}

const authorizationIs = (r: Pick<Reservation, "chainId" | "tokenAddress" | "authorization">) =>
  and(
    eq(x402Payments.chainId, r.chainId),
    eq(x402Payments.tokenAddress, r.tokenAddress),
    eq(x402Payments.fromAddress, r.authorization.from),
    eq(x402Payments.nonce, r.authorization.nonce),
  );

/**
 * Reserves the authorization for this request: a new row, or a failed one taken over (nothing moved for it:
 * a refused or reverted payment may be tried again). Undefined when another request holds it or it was settled.
 */
export async function reserveAuthorization(r: Reservation): Promise<PaymentRow | undefined> {
  const values = {
    status: "reserved" as const,
    serviceId: r.serviceId,
    fingerprint: r.fingerprint,
    idempotencyKey: r.idempotencyKey ?? null,
    value: r.authorization.value.toString(),
    settlementTxHash: null,
    settlerNonce: null,
    failureReason: null,
  };
  const [row] = await (
    await db()
  )
    .insert(x402Payments)
    .values({
      chainId: r.chainId,
      tokenAddress: r.tokenAddress,
      fromAddress: r.authorization.from,
      nonce: r.authorization.nonce,
      ...values,
    })
    .onConflictDoUpdate({
      target: [x402Payments.chainId, x402Payments.tokenAddress, x402Payments.fromAddress, x402Payments.nonce],
      set: { ...values, updatedAt: sql`now()` },
      setWhere: sql`${x402Payments.status} = 'failed'`,
    })
    .returning();
  return row;
}

export async function findAuthorization(
  r: Pick<Reservation, "chainId" | "tokenAddress" | "authorization">,
): Promise<PaymentRow | undefined> {
  const [row] = await (await db()).select().from(x402Payments).where(authorizationIs(r));
  return row;
}

/** The reservation ends without moving money: refused (`reason`), or given up (the RPC did not answer: none). */
export async function releaseAuthorization(id: string, reason: X402ErrorReason | null): Promise<void> {
  await (
    await db()
  )
    .update(x402Payments)
    .set({ status: "failed", failureReason: reason, updatedAt: sql`now()` })
    .where(and(eq(x402Payments.id, id), inArray(x402Payments.status, ["reserved", "settling"])));
}

/**
 * Takes the settler's next nonce and sends one settlement with it, in turn with every other settlement of
 * every instance: the settler's row is locked for the whole of it (on PostgreSQL, other instances wait on the
 * lock). The nonce is the larger of the one kept here and the chain's count, so a transaction the settler sent
 * otherwise is never replaced. The settlement is recorded on the payment with the nonce advanced, or neither
 * (a failed send leaves the nonce to the next one).
 */
export async function sendInTurn(
  config: X402Config,
  settler: string,
  paymentId: string,
  chainNonce: () => Promise<number>,
  sign: (nonce: number) => Promise<SignedSettlement>,
  send: (signed: SignedSettlement) => Promise<void>,
): Promise<SignedSettlement> {
  const d = await db();
  return d.transaction(async (tx) => {
    await tx
      .insert(x402Settlers)
      .values({ chainId: config.chainId, address: settler, nextNonce: 0 })
      .onConflictDoNothing();
    const [row] = await tx
      .select({ nextNonce: x402Settlers.nextNonce })
      .from(x402Settlers)
      .where(and(eq(x402Settlers.chainId, config.chainId), eq(x402Settlers.address, settler)))
      .for("update");
    const nonce = Math.max(row?.nextNonce ?? 0, await chainNonce());
    const signed = await sign(nonce);
    await tx
      .update(x402Payments)
      .set({ status: "settling", settlementTxHash: signed.hash, settlerNonce: nonce, updatedAt: sql`now()` })
      .where(eq(x402Payments.id, paymentId));
    await tx
      .update(x402Settlers)
      .set({ nextNonce: nonce + 1, updatedAt: sql`now()` })
      .where(and(eq(x402Settlers.chainId, config.chainId), eq(x402Settlers.address, settler)));
    await send(signed);
    return signed;
  });
}

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** A new access token for one job: `jt_` and 43 base64url characters (256 bits); only its hash is kept. */
export async function issueAccessToken(tx: Tx, jobId: string): Promise<string> {
  const token = `jt_${randomBytes(32).toString("base64url")}`;
  await tx.insert(jobAccessTokens).values({ tokenHash: hashToken(token), jobId });
  return token;
}

/** The job an access token reads, with the job's account, or undefined for a token that is not one. */
export async function jobOfAccessToken(token: string): Promise<{ jobId: string; accountId: string } | undefined> {
  if (!/^jt_[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const [row] = await (
    await db()
  )
    .select({ jobId: jobAccessTokens.jobId, accountId: jobs.accountId })
    .from(jobAccessTokens)
    .innerJoin(jobs, eq(jobs.id, jobAccessTokens.jobId))
    .where(eq(jobAccessTokens.tokenHash, hashToken(token)));
  return row;
}

/** The account of a wallet address, created without starter credits when it has none (a paying caller). */
export async function accountForPayer(tx: Tx, walletAddress: string): Promise<string> {
  const [inserted] = await tx
    .insert(accounts)
    .values({ walletAddress })
    .onConflictDoNothing()
    .returning({ id: accounts.id });
  if (inserted) return inserted.id;
  const [existing] = await tx
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(accounts.walletAddress, walletAddress));
  if (!existing) throw new Error("the payer's account vanished");
  return existing.id;
}

export interface IncludedSettlement {
  txHash: string;
  blockNumber: bigint;
  blockHash: string;
}

/**
 * The settled payment credited to the payer's account as a top-up of the whole `value` (its txHash the
 * settlement), once: whoever records the transaction first, this or the payment watcher (which finds the
 * same Transfer to the treasury), the credit is written by whichever moves the row to `credited`.
 */
export async function creditSettledPayment(
  tx: Tx,
  config: X402Config,
  token: { decimals: number; symbol: string },
  accountId: string,
  authorization: Authorization,
  settlement: IncludedSettlement,
): Promise<void> {
  const credits = creditsForTokenAmount(authorization.value, config.creditsPerToken, token.decimals);
  const txHash = settlement.txHash.toLowerCase();
  const settled = {
    accountId,
    tokenAmount: authorization.value.toString(),
    credits,
    status: "credited" as const,
    blockNumber: Number(settlement.blockNumber),
    blockHash: settlement.blockHash,
    failureReason: null,
    creditedAt: sql`now()`,
    checkedAt: sql`now()`,
  };
  const [inserted] = await tx
    .insert(topUps)
    .values({
      chainId: config.chainId,
      txHash,
      fromAddress: authorization.from,
      requiredConfirmations: config.confirmations,
      ...settled,
    })
    .onConflictDoNothing()
    .returning({ id: topUps.id });
  // The watcher recorded it first (found, not yet deep enough): this credits it instead.
  const [taken] = inserted
    ? [inserted]
    : await tx
        .update(topUps)
        .set(settled)
        .where(
          and(
            eq(topUps.chainId, config.chainId),
            eq(topUps.txHash, txHash),
            eq(topUps.fromAddress, authorization.from),
            inArray(topUps.status, ["submitted", "confirming"]),
          ),
        )
        .returning({ id: topUps.id });
  if (!taken || credits === 0n) return;
  await applyLedgerEntry(tx, {
    accountId,
    type: "topup",
    // Exact: the value was checked against what a balance holds before it was settled.
    amount: Number(credits),
    topUpId: taken.id,
    description: `Pay per call: ${formatTokenAmount(authorization.value, token.decimals)} ${token.symbol} in ${txHash}`,
  });
}

/** The payment is done: its job exists (or its settlement reverted: failed, nothing moved). */
export async function markSettled(tx: Tx, id: string, accountId: string, jobId: string): Promise<void> {
  await tx
    .update(x402Payments)
    .set({ status: "settled", accountId, jobId, updatedAt: sql`now()` })
    .where(eq(x402Payments.id, id));
}
