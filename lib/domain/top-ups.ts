// Credit top-ups (CONTRACT §10): a developer pays the token to the treasury from the wallet they signed in
// with, and the payment becomes credits exactly once. The server believes only its own RPC: the browser
// names a transaction, never an amount, a sender or a confirmation. One row per (chain, transaction, paying
// address) is what makes a payment count once, whoever finds it (a transaction can pay for several senders);
// the credit, its ledger entry and the status change are one transaction.
import { and, asc, count, eq, inArray, isNotNull, isNull, or, sql, type SQL } from "drizzle-orm";
import { getAddress, type Address, type Hash } from "viem";
import type { Tx } from "@/lib/db/database";
import { accounts, topUps, x402Payments } from "@/lib/db/schema";
import type * as wire from "@/lib/contract/schemas";
import { creditsForTokenAmount, formatTokenAmount } from "@/lib/contract/top-up-arithmetic";
import type { PaymentRefusalReason } from "@/lib/contract/vocabulary";
import { paymentsConfig, type PaymentsConfig } from "@/lib/env";
import { log } from "@/lib/log";
import {
  type AuthorizationUsed,
  observeTransaction,
  PaymentsRpcError,
  readTokenMetadata,
  sameAddress,
  type TransactionObservation,
  type TreasuryTransfer,
} from "@/lib/payments/chain";
import { applyLedgerEntry } from "./credits";
import { db } from "./database";
import { DomainError, notFound } from "./errors";
import { isUuid } from "./ids";
import { keptCount } from "./list-counts";
import { descendingKeyset, exactTotal, keysetPage, listReads, timeParam, type CursorPageRequest } from "./pagination";

type TopUpRow = typeof topUps.$inferSelect;

/**
 * The most credits a top-up, and a balance, may hold: balances and credits travel as JSON numbers, exact up
 * to 2^53 − 1. A payment worth more is refused (AMOUNT_OUT_OF_RANGE), never rounded.
 */
export const maxCredits = BigInt(Number.MAX_SAFE_INTEGER);
/** What token_amount (numeric(78)) holds; a uint256 always fits, a sum of several might not. */
const maxStoredTokenAmount = 10n ** 78n - 1n;

/**
 * How long a DROPPED top-up is still re-checked after it was recorded: an RPC behind a load balancer can
 * answer null for a mined transaction (a node that has not seen its block), and a payment is never lost to
 * that. Re-checks of DROPPED top-ups come every `droppedRecheckPolls` polls of the watcher.
 */
export const droppedRecheckMs = 24 * 60 * 60 * 1000;
const droppedRecheckPolls = 10;
/** The share of a watcher tick's re-checks that DROPPED top-ups may take at most. */
const droppedRecheckShare = 0.2;

/** At most this many unmined top-ups per developer (CONTRACT §10): a hash that never mines costs a row for an hour. */
export const maxSubmittedTopUps = 20;

export function requirePayments(): PaymentsConfig {
  const config = paymentsConfig();
  if (!config) throw new DomainError("PAYMENTS_DISABLED", "Credit top-ups are not enabled on this deployment.");
  return config;
}

const rpcUnavailable = () =>
  new DomainError(
    "UNAVAILABLE",
    "The payments network does not answer right now; nothing was recorded. Try again in a moment.",
    undefined,
    5,
  );

/** Runs a chain read, turning an RPC failure into the contract's 503. */
async function fromChain<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof PaymentsRpcError) throw rpcUnavailable();
    throw error;
  }
}

/** Blocks on top of the including block. */
export const confirmationsOf = (head: bigint, blockNumber: bigint) =>
  Number(head >= blockNumber ? head - blockNumber : 0n);

/** One sender's payment in one transaction: the sum of its transfers of the token to the treasury there. */
export interface Payment {
  /** Lower-case 0x hash. */
  txHash: string;
  payer: Address;
  amount: bigint;
  blockNumber: bigint;
  blockHash: Hash;
  /**
   * The nonces (lower-case) of the payer's EIP-3009 authorizations used in the transaction: a transfer that is a
   * pay-per-call payment's (CONTRACT §15) is credited by that payment, in whichever transaction it credited it.
   */
  authorizationNonces: string[];
}

/**
 * Whose payment is whose, for the submission, its re-checks and the watcher alike: every sender's transfers
 * to the treasury in a transaction are that sender's payment. The sender is the Transfer log's `from` (a
 * smart-contract wallet's own address, not the transaction's sender), so a batch contract that pays from its
 * own balance and then moves its caller's approved tokens holds two payments: its own and its caller's.
 * In chain order of each payment's first transfer.
 */
export function paymentsIn(transfers: TreasuryTransfer[], used: AuthorizationUsed[] = []): Payment[] {
  const payments = new Map<string, Payment>();
  for (const transfer of transfers) {
    const txHash = transfer.txHash.toLowerCase();
    const key = `${txHash} ${transfer.from.toLowerCase()}`;
    const known = payments.get(key);
    if (known) known.amount += transfer.value;
    else
      payments.set(key, {
        txHash,
        payer: transfer.from,
        amount: transfer.value,
        blockNumber: transfer.blockNumber,
        blockHash: transfer.blockHash,
        authorizationNonces: [],
      });
  }
  for (const use of used) {
    const payment = payments.get(`${use.txHash.toLowerCase()} ${use.authorizer.toLowerCase()}`);
    if (payment && !payment.authorizationNonces.includes(use.nonce)) payment.authorizationNonces.push(use.nonce);
  }
  return [...payments.values()];
}

/**
 * A pay-per-call payment of the configured token: its address as stored, checksummed like the configuration's
 * (lib/env.ts) since 7a0e006 and as configured (most often in lower case) before. Both spellings, not lower(), so
 * the authorization's unique index (chain, token, payer, nonce) serves every read.
 */
export const isPaymentOfToken = (config: { tokenAddress: string }) =>
  inArray(x402Payments.tokenAddress, [config.tokenAddress, config.tokenAddress.toLowerCase()]);

/**
 * The senders of `transfers` whose EIP-3009 authorizations' use could change what they are credited (see Payment's
 * authorizationNonces): those who moved something in a transaction (a 0-value transfer holds nothing to take out)
 * and who presented an authorization for pay per call here (CONTRACT §15). One query, whatever the number of
 * senders.
 */
export async function payersWhoMayHavePaidPerCall(
  config: PaymentsConfig,
  transfers: TreasuryTransfer[],
): Promise<Address[]> {
  const moved = [...new Set(paymentsIn(transfers).flatMap((p) => (p.amount > 0n ? [p.payer] : [])))];
  if (moved.length === 0) return [];
  const rows = await (
    await db()
  )
    .selectDistinct({ payer: x402Payments.fromAddress })
    .from(x402Payments)
    .where(
      and(eq(x402Payments.chainId, config.chainId), isPaymentOfToken(config), inArray(x402Payments.fromAddress, moved)),
    );
  return rows.map((row) => getAddress(row.payer));
}

export type PaymentAssessment =
  { kind: "refused"; reason: PaymentRefusalReason } | { kind: "payment"; payment: Payment; payments: Payment[] };

/** What a mined transaction paid `payer`, beside every sender's payment in it. */
export function assessPayment(
  observed: Extract<TransactionObservation, { state: "mined" }>,
  payer: string,
): PaymentAssessment {
  if (observed.reverted) return { kind: "refused", reason: "TX_FAILED" };
  const payments = paymentsIn(observed.transfers, observed.authorizationsUsed);
  if (payments.length === 0) return { kind: "refused", reason: "NO_PAYMENT" };
  const payment = payments.find((p) => sameAddress(p.payer, payer));
  if (!payment) return { kind: "refused", reason: "WRONG_SENDER" };
  // Transfers of 0 (anyone can emit them, also from someone else's address) pay nothing.
  return payment.amount > 0n ? { kind: "payment", payment, payments } : { kind: "refused", reason: "NO_PAYMENT" };
}

export function toTopUp(row: TopUpRow): wire.TopUp {
  return {
    topUpId: row.id,
    chainId: row.chainId,
    txHash: row.txHash,
    from: row.fromAddress,
    tokenAmount: row.tokenAmount,
    credits: Number(row.credits),
    status: row.status,
    confirmations: row.confirmations,
    requiredConfirmations: row.requiredConfirmations,
    blockNumber: row.blockNumber,
    failureReason: row.failureReason,
    createdAt: row.createdAt.toISOString(),
    creditedAt: row.creditedAt?.toISOString() ?? null,
  };
}

export async function topUpConfig(): Promise<wire.TopUpConfig> {
  const config = paymentsConfig();
  if (!config) return { enabled: false };
  const token = await fromChain(() => readTokenMetadata(config));
  return {
    enabled: true,
    chainId: config.chainId,
    tokenAddress: config.tokenAddress,
    tokenSymbol: token.symbol,
    tokenDecimals: token.decimals,
    treasuryAddress: config.treasuryAddress,
    creditsPerToken: Number(config.creditsPerToken),
    confirmations: config.confirmations,
    explorerUrl: config.explorerUrl ?? null,
  };
}

// Payments the watcher finds in one scan share their created_at: the chain orders those (unmined first, as
// the largest block number would be).
const unminedLast = sql`9223372036854775807`;
const topUpsKeyset = descendingKeyset<"topUps", TopUpRow>(
  "topUps",
  sql`${topUps.createdAt}, coalesce(${topUps.blockNumber}, ${unminedLast}), ${topUps.id}`,
  (row) => [row.createdAt, row.blockNumber, row.id],
  (key) => sql`${timeParam(key.createdAt)}, coalesce(${key.blockNumber}::bigint, ${unminedLast}), ${key.id}::uuid`,
);

/**
 * Newest first, by cursor or page; the total is kept (their account is set by four paths, insert, claim,
 * reconciliation and sign-in, so a trigger keeps it: list-counts.ts).
 */
export async function listTopUps(accountId: string, request: CursorPageRequest<"topUps">): Promise<wire.TopUpPage> {
  const d = await db();
  // Unmined top-ups (no block number) first, as the keyset's coalesce puts them.
  const { read, keyAt } = listReads<"topUps", TopUpRow>(
    d,
    topUps,
    eq(topUps.accountId, accountId),
    { key: { createdAt: topUps.createdAt, blockNumber: topUps.blockNumber, id: topUps.id }, descending: true },
    topUpsKeyset,
  );
  return keysetPage(topUpsKeyset, request, read, keyAt, toTopUp, keptCount(d, accountId, "top_ups").then(exactTotal));
}

export async function getTopUp(accountId: string, topUpId: string): Promise<wire.TopUp> {
  if (!isUuid(topUpId)) throw notFound("NOT_FOUND", "The top-up");
  const [row] = await (
    await db()
  )
    .select()
    .from(topUps)
    .where(and(eq(topUps.id, topUpId), eq(topUps.accountId, accountId)));
  if (!row) throw notFound("NOT_FOUND", "The top-up");
  return toTopUp(row);
}

const paymentOf = (chainId: number, txHash: string, payer: string) =>
  and(eq(topUps.chainId, chainId), eq(topUps.txHash, txHash), eq(topUps.fromAddress, payer));

/**
 * The row of `payer`'s payment in a transaction (one per sender: a transaction can pay for several): the plain
 * one, or, when pay-per-call payments took all the sender moved in it, the first of theirs, and only then the plain
 * row they left credited with nothing (paidPerCallOnly: named before they took it, or after, under another
 * transaction).
 */
const findPayment = async (config: PaymentsConfig, txHash: string, payer: string) =>
  (
    await (
      await db()
    )
      .select()
      .from(topUps)
      .where(paymentOf(config.chainId, txHash, payer))
      .orderBy(
        sql`case when ${topUps.x402PaymentId} is not null then 1
          when ${topUps.status} = 'credited' and ${topUps.tokenAmount} = 0 then 2 else 0 end`,
        asc(topUps.createdAt),
      )
      .limit(1)
  )[0];

/**
 * One sender's payment in one transaction is written by one writer at a time until it commits: the plain row (by
 * the watcher, a submission or a re-check) and each pay-per-call payment's own row (CONTRACT §15), so the plain
 * row always holds what the sender moved in it less what the pay-per-call payments credited took.
 */
export async function lockPaymentInTransaction(tx: Tx, chainId: number, txHash: string, payer: string): Promise<void> {
  const key = `top-up:${chainId}:${txHash.toLowerCase()}:${payer.toLowerCase()}`;
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`);
}

/**
 * What the sender's pay-per-call payments credited took of its transfers in the transaction: those credited in it,
 * and those whose authorization it used (`payment.authorizationNonces`) credited in another (its settlement was
 * reorganised away and the same authorization submitted again, or the payment was finished with another
 * transaction): a payment's transfer is credited once, by the payment, in whichever transaction.
 */
async function paidPerCall(
  tx: Tx,
  config: PaymentsConfig,
  payment: Pick<Payment, "txHash" | "payer" | "authorizationNonces">,
): Promise<bigint> {
  const usedHere =
    payment.authorizationNonces.length === 0
      ? sql`false`
      : sql`${topUps.x402PaymentId} in (select ${x402Payments.id} from ${x402Payments} where ${and(
          eq(x402Payments.chainId, config.chainId),
          isPaymentOfToken(config),
          eq(x402Payments.fromAddress, payment.payer),
          inArray(x402Payments.nonce, payment.authorizationNonces),
        )})`;
  const [row] = await tx
    .select({ sum: sql<string>`coalesce(sum(${topUps.tokenAmount}), 0)::text` })
    .from(topUps)
    .where(
      and(
        eq(topUps.chainId, config.chainId),
        eq(topUps.fromAddress, payment.payer),
        isNotNull(topUps.x402PaymentId),
        or(eq(topUps.txHash, payment.txHash), usedHere),
      ),
    );
  return BigInt(row?.sum ?? "0");
}

const refused = (reason: PaymentRefusalReason, message: string) =>
  new DomainError("INVALID_PAYMENT", message, { reason });

const claimed = () =>
  new DomainError("PAYMENT_CLAIMED", "This transaction's payment is already recorded for another account.");

/** Whether someone's payment in this transaction is recorded for an account (the claimant paid nothing in it). */
async function isClaimedByAnotherAccount(config: PaymentsConfig, txHash: string): Promise<boolean> {
  const [row] = await (
    await db()
  )
    .select({ id: topUps.id })
    .from(topUps)
    .where(and(eq(topUps.chainId, config.chainId), eq(topUps.txHash, txHash), isNotNull(topUps.accountId)))
    .limit(1);
  return row !== undefined;
}

const refusalMessages: Record<PaymentRefusalReason, string> = {
  WRONG_CHAIN: "Top-ups are paid on another chain.",
  TX_FAILED: "The transaction failed on-chain (it was reverted): nothing was paid.",
  NO_PAYMENT: "The transaction transfers none of the token to the treasury.",
  WRONG_SENDER: "The payment in this transaction was not sent from your wallet's address.",
  AMOUNT_OUT_OF_RANGE: `The payment is worth more credits than a balance can hold (at most ${maxCredits}); nothing was credited. Ask the operator to refund it.`,
};

export interface SubmittedTopUp {
  topUp: wire.TopUp;
  /** Whether this submission recorded the payment (201) or found it recorded for this developer (200). */
  created: boolean;
}

/**
 * The dashboard names the transaction it just sent (POST /api/credits/top-ups). A mined payment is checked
 * and recorded (and credited at once when deep enough); one not yet mined is recorded as `submitted` and
 * the watcher follows it.
 */
export async function submitTopUp(
  accountId: string,
  address: string,
  request: { chainId: number; txHash: string },
): Promise<SubmittedTopUp> {
  const submitted = await recordSubmission(accountId, address, request);
  // Recorded (by this submission or the watcher) as failed, and told so however often it is named.
  if (submitted.topUp.failureReason === "AMOUNT_OUT_OF_RANGE")
    throw refused("AMOUNT_OUT_OF_RANGE", refusalMessages.AMOUNT_OUT_OF_RANGE);
  return submitted;
}

async function recordSubmission(
  accountId: string,
  address: string,
  request: { chainId: number; txHash: string },
): Promise<SubmittedTopUp> {
  const config = requirePayments();
  const walletAddress = getAddress(address);
  if (request.chainId !== config.chainId)
    throw refused("WRONG_CHAIN", `${refusalMessages.WRONG_CHAIN} Pay on chain ${config.chainId}.`);
  const known = await findPayment(config, request.txHash, walletAddress);
  if (known) return { topUp: toTopUp(await claimRecorded(config, known, accountId)), created: false };
  // A developer at the cap asks nothing of the RPC: a flood of made-up hashes costs one count each.
  await refuseOverSubmittedLimit(await db(), accountId);

  const observed = await fromChain(() => observeTransaction(config, request.txHash as Hash));
  if (observed.state === "mined") {
    const assessed = assessPayment(observed, walletAddress);
    if (assessed.kind === "refused") {
      if (assessed.reason === "WRONG_SENDER" && (await isClaimedByAnotherAccount(config, request.txHash)))
        throw claimed();
      throw refused(assessed.reason, refusalMessages[assessed.reason]);
    }
    const { decimals } = await fromChain(() => readTokenMetadata(config));
    // Every sender's payment in it is recorded, as the watcher would: the others are credited by its re-checks. The
    // submitter's is kept even when their pay-per-call payments took all of it (credited under another transaction
    // whose authorization this one used again): the answer names a top-up, credited with nothing.
    const created = await recordPayments(await db(), config, assessed.payments, observed.head, decimals, walletAddress);
    const row = await findPayment(config, request.txHash, walletAddress);
    if (!row) throw new Error("a recorded payment is missing");
    if (!created.includes(row.id))
      return { topUp: toTopUp(await claimRecorded(config, row, accountId)), created: false };
    return { topUp: toTopUp(await settleMined(config, row, observed)), created: true };
  }
  const inserted = await insertSubmitted(accountId, {
    accountId,
    chainId: config.chainId,
    txHash: request.txHash,
    fromAddress: walletAddress,
    status: "submitted",
    requiredConfirmations: config.confirmations,
  });
  if (inserted) return { topUp: toTopUp(inserted), created: true };
  // Another submission or the watcher recorded it between our read and our insert.
  const recorded = await findPayment(config, request.txHash, walletAddress);
  if (!recorded) throw new Error("top-up vanished after a conflicting insert");
  return { topUp: toTopUp(await claimRecorded(config, recorded, accountId)), created: false };
}

const insertTopUp = async (tx: Tx, values: typeof topUps.$inferInsert) =>
  (await tx.insert(topUps).values(values).onConflictDoNothing().returning())[0];

/**
 * Records an unmined top-up within the cap. The count and the insert are one decision: the developer's
 * account row is locked for it, so parallel submissions (several connections on PostgreSQL) take turns.
 */
async function insertSubmitted(accountId: string, values: typeof topUps.$inferInsert) {
  return (await db()).transaction(async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
    await refuseOverSubmittedLimit(tx, accountId);
    return insertTopUp(tx, values);
  });
}

async function refuseOverSubmittedLimit(tx: Tx, accountId: string): Promise<void> {
  const [{ pending }] = await tx
    .select({ pending: count() })
    .from(topUps)
    .where(and(eq(topUps.accountId, accountId), eq(topUps.status, "submitted")));
  if (pending >= maxSubmittedTopUps) {
    throw new DomainError(
      "LIMIT_REACHED",
      `You have ${pending} top-ups waiting to be mined; submit more once they are.`,
      { limit: maxSubmittedTopUps },
    );
  }
}

/**
 * The developer's payment in a transaction, already recorded, named again: theirs (200), or recorded before
 * their address had an account (now theirs), or someone else's (409).
 */
async function claimRecorded(config: PaymentsConfig, row: TopUpRow, accountId: string): Promise<TopUpRow> {
  let mine = row;
  if (row.accountId === null) {
    const [attributed] = await (
      await db()
    )
      .update(topUps)
      .set({ accountId })
      .where(and(eq(topUps.id, row.id), isNull(topUps.accountId)))
      .returning();
    mine = attributed ?? (await findPayment(config, row.txHash, row.fromAddress)) ?? row;
  }
  if (mine.accountId !== accountId) throw claimed();
  const isOpen = mine.status === "submitted" || mine.status === "confirming" || mine.failureReason === "DROPPED";
  if (!isOpen) return mine;
  // Naming it again is a good moment to look (a DROPPED one too: the RPC may have lagged): the page sees the freshest state. A silent RPC changes nothing.
  return reconcileTopUp(config, mine).catch((error: unknown) => {
    if (error instanceof PaymentsRpcError) return mine;
    throw error;
  });
}

/** The columns a mined payment fixes: payer, amount, credits, block and depth. */
function paymentValues(config: PaymentsConfig, payment: Payment, head: bigint, decimals: number) {
  const credits = creditsForTokenAmount(payment.amount, config.creditsPerToken, decimals);
  const isInRange = credits <= maxCredits;
  return {
    chainId: config.chainId,
    txHash: payment.txHash,
    fromAddress: payment.payer,
    tokenAmount: (payment.amount <= maxStoredTokenAmount ? payment.amount : maxStoredTokenAmount).toString(),
    credits: isInRange ? credits : 0n,
    ...(isInRange
      ? { status: "confirming" as const, failureReason: null }
      : { status: "failed" as const, failureReason: "AMOUNT_OUT_OF_RANGE" as const }),
    confirmations: confirmationsOf(head, payment.blockNumber),
    requiredConfirmations: config.confirmations,
    blockNumber: Number(payment.blockNumber),
    blockHash: payment.blockHash,
  };
}

/**
 * A plain row whose whole sum the sender's pay-per-call payments took (CONTRACT §15): credited with nothing, never
 * removed (a submission answered its id), never re-checked. A payment credited in the transaction later finds it
 * holding none of its value (creditSettledPayment).
 */
export function paidPerCallOnly(
  config: PaymentsConfig,
  payment: Pick<Payment, "txHash" | "payer" | "blockNumber" | "blockHash">,
  head: bigint,
  decimals: number,
) {
  return {
    ...paymentValues(config, { ...payment, amount: 0n, authorizationNonces: [] }, head, decimals),
    status: "credited" as const,
    creditedAt: sql`now()`,
    checkedAt: sql`now()`,
  };
}

/**
 * Records mined payments, each sender's once, whoever finds them first (the watcher, a submission, a
 * re-check): a no-op for one already recorded, except that a DROPPED one is looked at again. A payment is
 * the account's of the address that paid, or nobody's until that address first signs in. Returns the ids
 * of the rows it created. `submitter`: the address whose submission this is; its payment is recorded even when
 * the pay-per-call payments took all of it, credited with nothing (paidPerCallOnly), as the answer names its row.
 */
async function recordPayments(
  tx: Tx,
  config: PaymentsConfig,
  payments: Payment[],
  head: bigint,
  decimals: number,
  submitter?: Address,
): Promise<string[]> {
  const created: string[] = [];
  for (const payment of payments) {
    const inserted = await tx.transaction(async (own) => {
      await lockPaymentInTransaction(own, config.chainId, payment.txHash, payment.payer);
      // Only what the pay-per-call payments credited in it did not take: nothing left, nothing to record, unless the
      // payer named it (a transfer of 0 is no payment: refused before, NO_PAYMENT).
      const rest = payment.amount - (await paidPerCall(own, config, payment));
      const isNamedByPayer = submitter !== undefined && sameAddress(payment.payer, submitter) && payment.amount > 0n;
      if (rest <= 0n && !isNamedByPayer) return undefined;
      const [account] = await own
        .select({ id: accounts.id })
        .from(accounts)
        .where(eq(accounts.walletAddress, payment.payer));
      if (rest <= 0n)
        return (
          await own
            .insert(topUps)
            .values({ ...paidPerCallOnly(config, payment, head, decimals), accountId: account?.id ?? null })
            .onConflictDoNothing()
            .returning({ id: topUps.id })
        )[0];
      const [row] = await own
        .insert(topUps)
        // The stalest are re-checked first: a found payment is looked at in the watcher's same tick.
        .values({
          ...paymentValues(config, { ...payment, amount: rest }, head, decimals),
          accountId: account?.id ?? null,
          checkedAt: new Date(0),
        })
        .onConflictDoNothing()
        .returning({ id: topUps.id });
      if (row) return row;
      // A DROPPED row comes back with what was found, less what pay-per-call payments credited took: a row dropped
      // before it was mined holds no amount, and a payment credited next would take its value out of that.
      await own
        .update(topUps)
        .set({ ...paymentValues(config, { ...payment, amount: rest }, head, decimals), checkedAt: new Date(0) })
        .where(
          and(
            paymentOf(config.chainId, payment.txHash, payment.payer),
            isNull(topUps.x402PaymentId),
            eq(topUps.failureReason, "DROPPED"),
          ),
        );
      return undefined;
    });
    if (inserted) created.push(inserted.id);
  }
  return created;
}

/** A mined, recorded payment: credited when deep enough on the canonical chain and someone's to credit. */
async function settleMined(
  config: PaymentsConfig,
  row: TopUpRow,
  observed: Extract<TransactionObservation, { state: "mined" }>,
): Promise<TopUpRow> {
  const isDeepEnough = confirmationsOf(observed.head, observed.blockNumber) >= row.requiredConfirmations;
  if (!isDeepEnough || !observed.canonical || row.accountId === null) return row;
  // Nothing credited here means someone else (the watcher, a concurrent submission) just did: read what they wrote.
  return (
    (await creditTopUp(config, row.id)) ??
    (await (await db()).select().from(topUps).where(eq(topUps.id, row.id)))[0] ??
    row
  );
}

/** The credit: status, ledger entry and balance in one transaction, at most once per top-up. */
async function creditTopUp(config: PaymentsConfig, topUpId: string): Promise<TopUpRow | undefined> {
  const { symbol, decimals } = await readTokenMetadata(config);
  return (await db()).transaction(async (tx: Tx) => {
    const [credited] = await tx
      .update(topUps)
      .set({ status: "credited", creditedAt: sql`now()`, checkedAt: sql`now()` })
      .where(
        and(eq(topUps.id, topUpId), inArray(topUps.status, ["submitted", "confirming"]), isNotNull(topUps.accountId)),
      )
      .returning();
    if (!credited?.accountId) return undefined;
    // The balance must stay exact too: a credit that would take it past 2^53 − 1 is refused, not rounded.
    const [account] = await tx
      .select({ balance: sql<string>`${accounts.creditBalance}::text` })
      .from(accounts)
      .where(eq(accounts.id, credited.accountId))
      .for("update");
    if (!account || BigInt(account.balance) + credited.credits > maxCredits) {
      log.warn("top-up refused: the balance would exceed what credits can hold", { topUpId: credited.id });
      const [refusedRow] = await tx
        .update(topUps)
        .set({ status: "failed", failureReason: "AMOUNT_OUT_OF_RANGE", creditedAt: null })
        .where(eq(topUps.id, credited.id))
        .returning();
      return refusedRow;
    }
    if (credited.credits > 0n) {
      await applyLedgerEntry(tx, {
        accountId: credited.accountId,
        type: "topup",
        // Exact: at most maxCredits, checked above in bigint.
        amount: Number(credited.credits),
        topUpId: credited.id,
        description: `Top-up: ${formatTokenAmount(BigInt(credited.tokenAmount), decimals)} ${symbol} in ${credited.txHash}`,
      });
    }
    log.info("top-up credited", { topUpId: credited.id, credits: Number(credited.credits), txHash: credited.txHash });
    return credited;
  });
}

/**
 * Asks the chain about a recorded, uncredited top-up and moves it on: mined → confirming (attributed to the
 * account of the address that paid) → credited once deep enough on the canonical chain; reverted or without
 * a payment → failed; mined and then reorganised away → submitted again, or failed DROPPED when the
 * transaction is gone; never mined within PAYMENTS_DROP_AFTER_MS → failed DROPPED.
 */
export async function reconcileTopUp(config: PaymentsConfig, row: TopUpRow): Promise<TopUpRow> {
  const observed = await observeTransaction(config, row.txHash as Hash);
  const d = await db();
  const update = async (set: Partial<typeof topUps.$inferInsert>) =>
    (
      await d
        .update(topUps)
        .set({ ...set, checkedAt: sql`now()` })
        .where(
          and(
            eq(topUps.id, row.id),
            inArray(topUps.status, ["submitted", "confirming", "failed"]),
            isNull(topUps.creditedAt),
          ),
        )
        .returning()
    )[0] ?? row;

  if (observed.state !== "mined") {
    // A DROPPED top-up comes back only when its transaction is found mined.
    if (row.status === "failed") return update({});
    const wasMined = row.blockNumber !== null;
    const isGone = observed.state === "unknown";
    const isOverdue = Date.now() - row.createdAt.getTime() > config.dropAfterMs;
    if ((wasMined && isGone) || isOverdue)
      return update({
        status: "failed",
        failureReason: "DROPPED",
        blockNumber: null,
        blockHash: null,
        confirmations: 0,
      });
    if (wasMined) log.warn("top-up reorganised away before its confirmations", { topUpId: row.id, txHash: row.txHash });
    return update({ status: "submitted", blockNumber: null, blockHash: null, confirmations: 0 });
  }
  const assessed = assessPayment(observed, row.fromAddress);
  const { decimals } = await readTokenMetadata(config);
  // The transaction's other senders' payments are theirs: recorded here as the watcher would.
  const others = paymentsIn(observed.reverted ? [] : observed.transfers, observed.authorizationsUsed).filter(
    (p) => !sameAddress(p.payer, row.fromAddress),
  );
  if (others.length > 0) await recordPayments(d, config, others, observed.head, decimals);
  // A submitter who named a transaction that paid nothing of theirs is refused (WRONG_SENDER).
  if (assessed.kind === "refused") return update({ status: "failed", failureReason: assessed.reason });
  const accountId = row.accountId ?? (await accountOfAddress(row.fromAddress));
  const payment = assessed.payment;
  const updated = await d.transaction(async (tx) => {
    await lockPaymentInTransaction(tx, config.chainId, payment.txHash, payment.payer);
    // The plain row holds only what the sender's pay-per-call payments credited in it did not take.
    const rest = payment.amount - (await paidPerCall(tx, config, payment));
    const uncredited = and(eq(topUps.id, row.id), isNull(topUps.creditedAt), isNull(topUps.x402PaymentId));
    if (rest <= 0n) {
      // They took all of it (named before they were credited). The row stays (its id was answered, and must keep
      // answering): credited with nothing, as the plain part of a transaction whose payments credited it all.
      const [kept] = await tx
        .update(topUps)
        .set({ ...paidPerCallOnly(config, payment, observed.head, decimals), accountId })
        .where(uncredited)
        .returning();
      return kept ?? row;
    }
    const [moved] = await tx
      .update(topUps)
      .set({
        ...paymentValues(config, { ...payment, amount: rest }, observed.head, decimals),
        accountId,
        checkedAt: sql`now()`,
      })
      .where(and(uncredited, inArray(topUps.status, ["submitted", "confirming", "failed"])))
      .returning();
    return moved ?? row;
  });
  return settleMined(config, updated, observed);
}

async function accountOfAddress(address: string): Promise<string | null> {
  const [account] = await (
    await db()
  )
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(accounts.walletAddress, address));
  return account?.id ?? null;
}

/** What a scan's recording came to: the top-ups it created, and the first block holding a payment to try again. */
export interface FoundTransfersRecorded {
  recorded: number;
  retryFromBlock?: bigint;
}

/**
 * How many scans in a row may fail to record one payment, for a reason not its own, before it is recorded as
 * failed UNRECORDABLE and the scan moves past it: a passing fault (a serialization failure, a row it refers to
 * changing) clears in a try or two, and a lasting one (a trigger, a bug) must not hold the cursor forever.
 */
export const maxHeldTries = 10;

/**
 * The watcher found these transfers on-chain: records every sender's payment (see recordPayments), each in
 * its own savepoint, so a payment the database refuses neither undoes nor stops the others (on PostgreSQL a
 * failed statement would abort the whole transaction). A refusal of the payment's own values (see
 * isRefusalOfValues) would come every time: the payment is recorded as failed UNRECORDABLE for the operator
 * and the scan moves past it. Any other error may pass: the payment is left to the next scan, whose cursor
 * must not pass `retryFromBlock`, up to `maxHeldTries` scans in a row (counted in `heldTries`, which the
 * caller keeps between scans), then it is recorded as UNRECORDABLE too. `used`: the EIP-3009 authorizations the
 * senders used in those blocks (see Payment's authorizationNonces).
 */
export async function recordFoundTransfers(
  tx: Tx,
  config: PaymentsConfig,
  transfers: TreasuryTransfer[],
  head: bigint,
  decimals: number,
  heldTries: Map<string, number> = new Map(),
  used: AuthorizationUsed[] = [],
): Promise<FoundTransfersRecorded> {
  let recorded = 0;
  let retryFromBlock: bigint | undefined;
  for (const payment of paymentsIn(transfers, used)) {
    const key = `${payment.txHash}:${payment.payer}`;
    try {
      recorded += (await tx.transaction((own) => recordPayments(own, config, [payment], head, decimals))).length;
      heldTries.delete(key);
    } catch (error) {
      const about = {
        txHash: payment.txHash,
        payer: payment.payer,
        tokenAmount: payment.amount.toString(),
        blockNumber: payment.blockNumber.toString(),
        err: error,
      };
      if (!isRefusalOfValues(error)) {
        const tries = (heldTries.get(key) ?? 0) + 1;
        if (tries < maxHeldTries) {
          heldTries.set(key, tries);
          log.warn("a payment found on-chain could not be recorded now; the next scan tries again", {
            ...about,
            tries,
          });
          if (retryFromBlock === undefined || payment.blockNumber < retryFromBlock)
            retryFromBlock = payment.blockNumber;
          continue;
        }
        heldTries.delete(key);
      }
      try {
        // Logged once, when first recorded: a scan sees its block again until the block is final.
        if (await tx.transaction((own) => recordUnrecordable(own, config, payment)))
          log.error("the database refuses a payment found on-chain: recorded as failed UNRECORDABLE", about);
      } catch (err) {
        // Nothing of it can be stored: this log and `npm run payments -- reconcile` still show it.
        log.error("the database refuses a payment found on-chain, even recorded as failed", { ...about, err });
      }
    }
  }
  return { recorded, retryFromBlock };
}

/**
 * The payment's own values break a rule of the table, wherever in the cause chain: a data exception (class 22),
 * a NOT NULL (23502) or CHECK (23514) violation. These come every time. Other integrity errors may pass: a
 * foreign key (23503) refers to a row that may be changing, and a unique clash (23505) cannot come from the
 * payment's own insert, which does nothing on a conflict.
 */
function isRefusalOfValues(error: unknown): boolean {
  for (
    let e = error, depth = 0;
    e && typeof e === "object" && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^(22[0-9A-Z]{3}|23502|23514)$/.test(code)) return true;
  }
  return false;
}

/**
 * The least a refused payment's row holds: whose, which transaction, and why nothing was credited (the
 * operator credits it by hand). Whether this recorded it.
 */
async function recordUnrecordable(tx: Tx, config: PaymentsConfig, payment: Payment): Promise<boolean> {
  const [account] = await tx
    .select({ id: accounts.id })
    .from(accounts)
    .where(eq(accounts.walletAddress, payment.payer));
  const inserted = await tx
    .insert(topUps)
    .values({
      chainId: config.chainId,
      txHash: payment.txHash,
      fromAddress: payment.payer,
      accountId: account?.id ?? null,
      status: "failed",
      failureReason: "UNRECORDABLE",
      requiredConfirmations: config.confirmations,
    })
    .onConflictDoNothing()
    .returning({ id: topUps.id });
  return inserted.length > 0;
}

/**
 * The uncredited top-ups that someone can be credited for, stalest check first. That includes a payment
 * recorded without an account whose payer has one now: a scan that ran while the payer first signed in
 * recorded it after the sign-in's attribution looked (neither saw the other's uncommitted row); and, less
 * often, DROPPED top-ups recorded within `droppedRecheckMs`, in case the RPC lagged rather than the
 * transaction vanished (after the submitted and confirming ones, in at most `droppedRecheckShare` of `limit`).
 */
export async function topUpsToReconcile(config: PaymentsConfig, limit: number): Promise<TopUpRow[]> {
  const d = await db();
  const payerHasAccount = sql`exists (select 1 from ${accounts} where ${accounts.walletAddress} = ${topUps.fromAddress})`;
  const isDroppedRecently = and(
    eq(topUps.failureReason, "DROPPED"),
    sql`${topUps.createdAt} > now() - make_interval(secs => ${droppedRecheckMs / 1000})`,
    sql`${topUps.checkedAt} < now() - make_interval(secs => ${(config.pollMs * droppedRecheckPolls) / 1000})`,
  );
  const toReconcile = (which: SQL | undefined, count: number) =>
    d
      .select()
      .from(topUps)
      .where(and(eq(topUps.chainId, config.chainId), which, or(isNotNull(topUps.accountId), payerHasAccount)))
      .orderBy(asc(topUps.checkedAt))
      .limit(count);
  const open = await toReconcile(inArray(topUps.status, ["submitted", "confirming"]), limit);
  // DROPPED ones get what is left of the tick, at most a small share: made-up hashes (each DROPPED after
  // PAYMENTS_DROP_AFTER_MS and re-checked for a day) must never crowd out real confirmations.
  const droppedShare = Math.min(limit - open.length, Math.ceil(limit * droppedRecheckShare));
  return droppedShare > 0 ? [...open, ...(await toReconcile(isDroppedRecently, droppedShare))] : open;
}

/** A top-up whose re-check failed goes to the back of the queue (the stalest are looked at first). */
export async function deferTopUp(topUpId: string): Promise<void> {
  await (
    await db()
  )
    .update(topUps)
    .set({ checkedAt: sql`now()` })
    .where(eq(topUps.id, topUpId));
}

/**
 * An address signs in: the payments it made before it had an account (found by the watcher) become its
 * own, and are credited at the watcher's next look.
 */
export async function attributeTopUps(accountId: string, walletAddress: string): Promise<number> {
  const config = paymentsConfig();
  if (!config) return 0;
  const attributed = await (
    await db()
  )
    .update(topUps)
    .set({ accountId, checkedAt: new Date(0) })
    .where(
      and(
        isNull(topUps.accountId),
        eq(topUps.fromAddress, walletAddress),
        or(eq(topUps.status, "confirming"), eq(topUps.status, "submitted")),
      ),
    )
    .returning({ id: topUps.id });
  if (attributed.length > 0) log.info("top-ups attributed at sign-in", { accountId, count: attributed.length });
  return attributed.length;
}
