// What pay per call (CONTRACT §15) keeps: the authorization's reservation (one row per (chain, token, payer,
// nonce), written before any work, so one authorization is settled at most once whatever the concurrency and
// on every instance), the settler's nonce sequence, the payment credited as a top-up, and the access token.
import { createHash, randomBytes } from "node:crypto";
import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { accounts, jobAccessTokens, jobs, topUps, x402Payments, x402Settlers } from "@/lib/db/schema";
import { creditsForTokenAmount, formatTokenAmount } from "@/lib/contract/top-up-arithmetic";
import type { X402ErrorReason } from "@/lib/contract/vocabulary";
import type { X402Config } from "@/lib/env";
import { applyLedgerEntry } from "@/lib/domain/credits";
import { lockPaymentInTransaction, maxCredits } from "@/lib/domain/top-ups";
import { DomainError } from "@/lib/domain/errors";
import { db, readyDatabase } from "@/lib/domain/database";
import { processState } from "@/lib/singleton";
import { isUniqueViolation } from "@/lib/domain/idempotency";
import type { Authorization, SignedSettlement } from "./chain";

export type PaymentRow = typeof x402Payments.$inferSelect;

// A payment row's life, and the one place each move is written:
//   reserved → failed     refused, or given up (any error) before anything was sent (release), or left by a
//                         request that died, once older than the sweep's bound (failStaleReservations)
//   reserved → settling   the settlement signed and recorded, before it is broadcast (recordSettlement)
//   settling → settling   replaced at its settler nonce with a higher fee, or by a filler (recordReplacement)
//   settling → settled    included with status 1: top-up, job and charge written with it (markSettled)
//   settling → failed     included and reverted, or its nonce filled by a filler: nothing moved (failSettlement)
//   failed → reserved     a refused authorization tried again, under a new id (reserveAuthorization)
// Only these. A settling row is never released while its transaction might still be mined.

export interface Reservation {
  chainId: number;
  tokenAddress: string;
  authorization: Authorization;
  serviceId: string;
  input: Record<string, unknown>;
  placement: string;
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
 * Reserves the authorization for this request, and claims its Idempotency-Key for the payer while it is in
 * flight: a new row, or a failed one taken over (nothing moved for it: a refused or reverted payment may be tried
 * again). Undefined when another request holds the authorization or it was settled; "key held" when another
 * payment of the same payer holds the key (reserved or settling).
 */
export async function reserveAuthorization(r: Reservation): Promise<PaymentRow | "key held" | undefined> {
  const values = {
    status: "reserved" as const,
    serviceId: r.serviceId,
    input: r.input,
    placement: r.placement,
    fingerprint: r.fingerprint,
    idempotencyKey: r.idempotencyKey ?? null,
    value: r.authorization.value.toString(),
    settlementTxHash: null,
    settlementRawTx: null,
    replacedTxHashes: [],
    settlerNonce: null,
    failureReason: null,
    paidTxHash: null,
    useSearchFloor: null,
  };
  try {
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
        // A new id for the new owner: a request that held the failed reservation (one swept as too old while it
        // still waited for the settler's turn) refers to it by id, and must find nothing left to settle or
        // release, never the new owner's authorization. Nothing else refers to a failed payment's id.
        set: { ...values, id: sql`gen_random_uuid()`, updatedAt: sql`now()` },
        setWhere: sql`${x402Payments.status} = 'failed'`,
      })
      .returning();
    return row;
  } catch (error) {
    // Only the in-flight key index can conflict otherwise (the authorization's is the insert's own target).
    if (isUniqueViolation(error) && r.idempotencyKey !== undefined) return "key held";
    throw error;
  }
}

export async function findAuthorization(
  r: Pick<Reservation, "chainId" | "tokenAddress" | "authorization">,
): Promise<PaymentRow | undefined> {
  const [row] = await (await db()).select().from(x402Payments).where(authorizationIs(r));
  return row;
}

/** The payer's payment in flight (reserved or settling) that holds `idempotencyKey`, if any. */
export async function findKeyHolder(from: string, idempotencyKey: string): Promise<PaymentRow | undefined> {
  const [row] = await (
    await db()
  )
    .select()
    .from(x402Payments)
    .where(
      and(
        eq(x402Payments.fromAddress, from),
        eq(x402Payments.idempotencyKey, idempotencyKey),
        inArray(x402Payments.status, ["reserved", "settling"]),
      ),
    );
  return row;
}

export async function findPayment(id: string): Promise<PaymentRow | undefined> {
  const [row] = await (await db()).select().from(x402Payments).where(eq(x402Payments.id, id));
  return row;
}

/**
 * The reservation ends before anything was sent: refused (`reason`), or given up (the RPC did not answer:
 * none). A settling row is not released here: its transaction may be mined (failSettlement, once it cannot).
 */
export async function releaseAuthorization(id: string, reason: X402ErrorReason | null): Promise<void> {
  await (
    await db()
  )
    .update(x402Payments)
    .set({ status: "failed", failureReason: reason, updatedAt: sql`now()` })
    .where(and(eq(x402Payments.id, id), eq(x402Payments.status, "reserved")));
}

/**
 * Reservations older than `olderThanMs` that never became settlements: their request died between the
 * reservation and the settlement's record (a crash, a lost connection). Nothing was sent for them, so they fail,
 * freeing the authorization and the payer's Idempotency-Key. A request still alive behind one finds it failed
 * when it records its settlement, and sends nothing (recordSettlement moves reserved rows only).
 */
export async function failStaleReservations(olderThanMs: number): Promise<number> {
  const failed = await (
    await db()
  )
    .update(x402Payments)
    .set({ status: "failed", failureReason: null, updatedAt: sql`now()` })
    .where(
      and(
        eq(x402Payments.status, "reserved"),
        lt(x402Payments.updatedAt, sql`now() - make_interval(secs => ${olderThanMs / 1000})`),
      ),
    )
    .returning({ id: x402Payments.id });
  return failed.length;
}

/** A settling payment that moved nothing and never will: its settlement reverted, or its nonce was filled. */
export async function failSettlement(id: string, txHash: string, reason: X402ErrorReason): Promise<boolean> {
  const failed = await (
    await db()
  )
    .update(x402Payments)
    .set({ status: "failed", failureReason: reason, updatedAt: sql`now()` })
    .where(and(eq(x402Payments.id, id), eq(x402Payments.status, "settling"), eq(x402Payments.settlementTxHash, txHash)))
    .returning({ id: x402Payments.id });
  return failed.length > 0;
}

/** The settling payment's transaction replaced (same nonce, higher fee): recorded before it is broadcast. */
export async function recordReplacement(row: PaymentRow, replacement: SignedSettlement): Promise<boolean> {
  const replaced = await (
    await db()
  )
    .update(x402Payments)
    .set({
      settlementTxHash: replacement.hash,
      settlementRawTx: replacement.raw,
      replacedTxHashes: sql`${x402Payments.replacedTxHashes} || ${JSON.stringify([row.settlementTxHash])}::jsonb`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        eq(x402Payments.id, row.id),
        eq(x402Payments.status, "settling"),
        eq(x402Payments.settlementTxHash, row.settlementTxHash ?? ""),
      ),
    )
    .returning({ id: x402Payments.id });
  return replaced.length > 0;
}

/**
 * The sweep looked at a settling payment and left it as it was: its next look is a settlement timeout from now
 * (staleSettlements skips it until then), so rows that stay (reported, waiting behind a stuck nonce, failing to
 * resolve) never fill the sweep's batch and starve newer ones. Only its updatedAt moves, and only if nothing else did.
 */
export async function markLookedAt(row: PaymentRow): Promise<void> {
  await (
    await db()
  )
    .update(x402Payments)
    .set({ updatedAt: sql`now()` })
    .where(
      and(
        eq(x402Payments.id, row.id),
        eq(x402Payments.status, "settling"),
        eq(x402Payments.settlementTxHash, row.settlementTxHash ?? ""),
      ),
    );
}

/** Where the search for the payment's use starts (see searchFloor): found once, kept for every later look. */
export async function recordSearchFloor(id: string, floor: bigint): Promise<void> {
  await (await db()).update(x402Payments).set({ useSearchFloor: floor }).where(eq(x402Payments.id, id));
}

/**
 * The settling payments the sweep looks at: those whose request has stopped waiting, the longest unlooked-at first
 * (then the lowest nonce). By the last look, not by nonce alone: a batch that takes longer than `olderThanMs` (a
 * loaded RPC) finds the rows it left as they were stale again, and ordered by nonce they would fill every batch
 * ahead of a newer one behind them.
 */
export async function staleSettlements(olderThanMs: number, limit: number): Promise<PaymentRow[]> {
  return (await db())
    .select()
    .from(x402Payments)
    .where(
      and(
        eq(x402Payments.status, "settling"),
        lt(x402Payments.updatedAt, sql`now() - make_interval(secs => ${olderThanMs / 1000})`),
      ),
    )
    .orderBy(asc(x402Payments.updatedAt), asc(x402Payments.settlerNonce))
    .limit(limit);
}

/**
 * The settling payment at the settler's nonce `settlerNonce` whose request has stopped waiting (as staleSettlements'),
 * the longest unlooked-at if several: the one every later settlement waits behind.
 */
export async function staleSettlementAt(olderThanMs: number, settlerNonce: number): Promise<PaymentRow | undefined> {
  const [row] = await (
    await db()
  )
    .select()
    .from(x402Payments)
    .where(
      and(
        eq(x402Payments.status, "settling"),
        eq(x402Payments.settlerNonce, settlerNonce),
        lt(x402Payments.updatedAt, sql`now() - make_interval(secs => ${olderThanMs / 1000})`),
      ),
    )
    .orderBy(asc(x402Payments.updatedAt))
    .limit(1);
  return row;
}

/**
 * How many settlements have waited longer than `olderThanMs` since they became settling, or been replaced twice
 * already (each replacement comes a settlement timeout after the last): health's "the settler is stuck".
 */
export async function countStuckSettlements(olderThanMs: number): Promise<number> {
  const [row] = await (
    await db()
  )
    .select({ n: sql<number>`count(*)::int` })
    .from(x402Payments)
    .where(
      and(
        eq(x402Payments.status, "settling"),
        or(
          // Since it became settling, not since its last update: the sweep's looks move updatedAt (markLookedAt),
          // also on a row an instance from before settling_since wrote (a rolling upgrade): its createdAt, then.
          lt(
            sql`coalesce(${x402Payments.settlingSince}, ${x402Payments.createdAt})`,
            sql`now() - make_interval(secs => ${olderThanMs / 1000})`,
          ),
          sql`jsonb_array_length(${x402Payments.replacedTxHashes}) >= 2`,
        ),
      ),
    );
  return Number(row?.n ?? 0);
}

/**
 * The settler's nonce sequence, the one place a settlement takes a nonce: in turn with every other settlement
 * of every instance (the settler's row is locked; on PostgreSQL other instances wait on the lock). The nonce is
 * the larger of the one kept here and the chain's count, so a transaction the settler sent otherwise is never
 * replaced. The signed settlement is recorded on the payment (settling, with its bytes) with the nonce
 * advanced, and committed before it is broadcast: whatever happens to the broadcast, the sweep finds it.
 */
export async function recordSettlement(
  config: X402Config,
  settler: string,
  paymentId: string,
  chainNonce: () => Promise<number>,
  sign: (nonce: number) => Promise<SignedSettlement>,
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
    const [moved] = await tx
      .update(x402Payments)
      .set({
        status: "settling",
        settlementTxHash: signed.hash,
        settlementRawTx: signed.raw,
        settlerNonce: nonce,
        settlingSince: sql`now()`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(x402Payments.id, paymentId), eq(x402Payments.status, "reserved")))
      .returning({ id: x402Payments.id });
    // Failed meanwhile as a reservation too old (failStaleReservations): nothing is sent, the caller tries again.
    if (!moved)
      throw new DomainError(
        "UNAVAILABLE",
        "The payment's reservation expired before it was settled; nothing was charged. Try again.",
        undefined,
        5,
      );
    await tx
      .update(x402Settlers)
      .set({ nextNonce: nonce + 1, updatedAt: sql`now()` })
      .where(and(eq(x402Settlers.chainId, config.chainId), eq(x402Settlers.address, settler)));
    return signed;
  });
}

const turns = processState("x402-settler-turns", () => ({ last: Promise.resolve() as Promise<unknown> }));

/**
 * Runs `work` (a settlement recorded, then broadcast) in the settler's turn, so settlements reach the node in
 * nonce order: one at a time in this process, and on PostgreSQL one at a time across instances (a transaction
 * holding an advisory lock for the turn; `work` writes through other connections, so its rows commit before
 * the broadcast, while the turn is still held).
 */
export async function inSettlerTurn<T>(config: X402Config, settler: string, work: () => Promise<T>): Promise<T> {
  const database = await readyDatabase();
  const run = () =>
    database.driver === "postgres"
      ? database.db.transaction(async (tx) => {
          await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`x402-settler:${config.chainId}:${settler}`}))`);
          return work();
        })
      : work();
  const turn = turns.last.then(run, run);
  turns.last = turn.catch(() => undefined);
  return turn;
}

/** Locks a settling payment for its finish (the request's or the sweep's, whichever comes first). */
export async function lockPayment(tx: Tx, id: string): Promise<PaymentRow | undefined> {
  const [row] = await tx.select().from(x402Payments).where(eq(x402Payments.id, id)).for("update");
  return row;
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
 * transaction that used the authorization), once, in a top-up row of its own: a transaction may use several of
 * the payer's authorizations, and hold plain transfers of theirs to the treasury beside them. The payment watcher
 * records what the payer moved in the transaction as one plain row; that row holds only what the pay-per-call
 * payments credited did not take (see lockPaymentInTransaction). Whoever comes first:
 * - the watcher found the sender's transfers, not yet credited: exactly this payment's value, and the row becomes
 *   this payment's credit; more, and this payment's value is taken out of it, the rest left to the watcher;
 * - the watcher credited them already: its credit holds this payment (it took out only the payments credited
 *   before it), so nothing more is credited; unless it was credited with nothing (the payments credited before it
 *   took all it held), which holds none of this one.
 */
export async function creditSettledPayment(
  tx: Tx,
  config: X402Config,
  token: { decimals: number; symbol: string },
  accountId: string,
  payment: Pick<Authorization, "from" | "value"> & { id: string },
  settlement: IncludedSettlement,
): Promise<void> {
  const credits = creditsForTokenAmount(payment.value, config.creditsPerToken, token.decimals);
  const txHash = settlement.txHash.toLowerCase();
  await lockPaymentInTransaction(tx, config.chainId, txHash, payment.from);
  const [plain] = await tx
    .select()
    .from(topUps)
    .where(
      and(
        eq(topUps.chainId, config.chainId),
        eq(topUps.txHash, txHash),
        eq(topUps.fromAddress, payment.from),
        isNull(topUps.x402PaymentId),
      ),
    )
    .for("update");
  // Credited with nothing (paidPerCallOnly), a plain row holds none of this payment: credited below, in its own row.
  if (plain?.status === "credited" && BigInt(plain.tokenAmount) > 0n) return;
  const settled = {
    accountId,
    tokenAmount: payment.value.toString(),
    credits,
    status: "credited" as const,
    blockNumber: Number(settlement.blockNumber),
    blockHash: settlement.blockHash,
    failureReason: null,
    creditedAt: sql`now()`,
    checkedAt: sql`now()`,
    x402PaymentId: payment.id,
  };
  const isFound = plain?.status === "confirming";
  // A plain row refused as out of range holds the sum too (the operator refunds what it holds): the payment is not.
  const isOutOfRange = plain?.status === "failed" && plain.failureReason === "AMOUNT_OUT_OF_RANGE";
  const [taken] =
    isFound && BigInt(plain.tokenAmount) === payment.value
      ? await tx.update(topUps).set(settled).where(eq(topUps.id, plain.id)).returning({ id: topUps.id })
      : await tx
          .insert(topUps)
          .values({
            chainId: config.chainId,
            txHash,
            fromAddress: payment.from,
            requiredConfirmations: config.confirmations,
            ...settled,
          })
          .onConflictDoNothing()
          .returning({ id: topUps.id });
  if (!taken) return;
  if ((isFound || isOutOfRange) && taken.id !== plain.id) {
    // The rest of what the payer moved in it stays a plain payment, for the watcher to credit (one out of range
    // only while the rest still is: otherwise re-checked and credited as any other).
    const rest = BigInt(plain.tokenAmount) - payment.value;
    const restCredits = creditsForTokenAmount(rest, config.creditsPerToken, token.decimals);
    const isInRange = isOutOfRange && restCredits <= maxCredits;
    if (rest > 0n)
      await tx
        .update(topUps)
        .set({
          tokenAmount: rest.toString(),
          credits: restCredits <= maxCredits ? restCredits : 0n,
          ...(isInRange && { status: "confirming" as const, failureReason: null, checkedAt: new Date(0) }),
        })
        .where(eq(topUps.id, plain.id));
    else
      // The payments took all of it: the row stays (a submission may have answered its id), credited with nothing.
      await tx
        .update(topUps)
        .set({ tokenAmount: "0", credits: 0n, status: "credited", failureReason: null, creditedAt: sql`now()` })
        .where(eq(topUps.id, plain.id));
  }
  if (credits === 0n) return;
  await applyLedgerEntry(tx, {
    accountId,
    type: "topup",
    // Exact: the value was checked against what a balance holds before it was settled.
    amount: Number(credits),
    topUpId: taken.id,
    description: `Pay per call: ${formatTokenAmount(payment.value, token.decimals)} ${token.symbol} in ${txHash}`,
  });
}

/** Where the settled payment's money moved (its top-up's transaction and block), once it is credited. */
export async function creditOfPayment(
  paymentId: string,
): Promise<{ transactionHash: `0x${string}`; blockNumber: bigint; blockHash: `0x${string}` } | undefined> {
  const [row] = await (
    await db()
  )
    .select({ txHash: topUps.txHash, blockNumber: topUps.blockNumber, blockHash: topUps.blockHash })
    .from(topUps)
    .where(eq(topUps.x402PaymentId, paymentId));
  if (!row || row.blockNumber === null || row.blockHash === null) return undefined;
  return {
    transactionHash: row.txHash as `0x${string}`,
    blockNumber: BigInt(row.blockNumber),
    blockHash: row.blockHash as `0x${string}`,
  };
}

/**
 * The payment is done: credited, and its job created (none when the service could no longer take it), with the
 * transaction that moved its money (what PAYMENT-RESPONSE names, whoever credited that transaction first).
 */
export async function markSettled(
  tx: Tx,
  id: string,
  accountId: string,
  jobId: string | null,
  paidTxHash: string,
): Promise<void> {
  await tx
    .update(x402Payments)
    .set({ status: "settled", accountId, jobId, paidTxHash: paidTxHash.toLowerCase(), updatedAt: sql`now()` })
    .where(and(eq(x402Payments.id, id), eq(x402Payments.status, "settling")));
}
