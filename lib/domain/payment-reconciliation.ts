// The operator's check of the treasury against the ledger over a block range (`npm run payments --
// reconcile`): every sender's transfers of the token to the treasury in a transaction the chain holds there, once,
// beside every top-up that credits them (the plain one, and each pay-per-call payment's own, wherever credited) and
// whose account it is; transfers nobody has an account for yet;
// and recorded top-ups in the range that the chain no longer holds. Whatever the range, the top-ups a pay-per-call
// payment credited that name no payment (what migration 0032 could not match).
import { and, between, eq, inArray, isNull, sql } from "drizzle-orm";
import { accounts, creditLedger, topUps, x402Payments } from "@/lib/db/schema";
import { formatTokenAmount } from "@/lib/contract/top-up-arithmetic";
import {
  type AuthorizationUsed,
  readAuthorizationsUsed,
  readHead,
  readTokenMetadata,
  readTreasuryTransfers,
  type TreasuryTransfer,
} from "@/lib/payments/chain";
import { db } from "./database";
import { DomainError } from "./errors";
import { isPaymentOfToken, paymentsIn, payersWhoMayHavePaidPerCall, requirePayments } from "./top-ups";

/** One top-up that credits (part of) a transfer: the plain row, or a pay-per-call payment's own (CONTRACT §15). */
export interface ReconciledTopUp {
  topUpId: string;
  /** The transaction the top-up names: another than the transfer's when its payment was credited there (a reorg). */
  txHash: string;
  /** credited · confirming · submitted · failed (with its reason) */
  status: string;
  /** In whole tokens. */
  tokenAmount: string;
  credits: number;
  /** The pay-per-call payment it credits, or null for the plain row. */
  x402PaymentId: string | null;
}

export interface ReconciliationRow {
  blockNumber: number;
  txHash: string;
  from: string;
  /** Token amount of this transaction's transfers to the treasury, in whole tokens. */
  amount: string;
  /**
   * The status its top-ups share (credited · confirming · submitted · failed with its reason), "mixed" when they
   * differ, or "unrecorded" when there is none.
   */
  topUp: string;
  /** What its top-ups credit together, or null when there is none. */
  credits: number | null;
  /** The wallet address of the account it is credited to, or null (no account yet). */
  account: string | null;
  /**
   * Every top-up of it (since migration 0031 a payment's own top-up is a row beside the plain one, which holds what
   * the sender moved beyond the payments), and the part of `amount` none of them holds (in whole tokens).
   */
  topUps: ReconciledTopUp[];
  unaccounted: string;
}

type RecordedTopUp = { topUp: typeof topUps.$inferSelect; account: string | null };

const statusOf = (row: typeof topUps.$inferSelect) =>
  row.failureReason ? `failed (${row.failureReason})` : row.status;

export async function reconcileTreasury(range: { fromBlock: number; toBlock?: number }) {
  const config = requirePayments();
  const head = await readHead(config);
  const toBlock = BigInt(range.toBlock ?? Number(head));
  const fromBlock = BigInt(range.fromBlock);
  if (fromBlock > toBlock)
    throw new DomainError("INVALID_REQUEST", `The range is empty: block ${fromBlock} is after block ${toBlock}.`);
  const { decimals, symbol } = await readTokenMetadata(config);

  const transfers: TreasuryTransfer[] = [];
  const used: AuthorizationUsed[] = [];
  for (let from = fromBlock; from <= toBlock; from += config.scanBlocks) {
    const to = from + config.scanBlocks - 1n < toBlock ? from + config.scanBlocks - 1n : toBlock;
    const found = await readTreasuryTransfers(config, from, to);
    transfers.push(...found);
    // As the watcher asks: only the senders whose use could change a credit (see payersWhoMayHavePaidPerCall).
    used.push(...(await readAuthorizationsUsed(config, await payersWhoMayHavePaidPerCall(config, found), from, to)));
  }
  const d = await db();
  const recorded: RecordedTopUp[] = await d
    .select({ topUp: topUps, account: accounts.walletAddress })
    .from(topUps)
    .leftJoin(accounts, eq(accounts.id, topUps.accountId))
    .where(and(eq(topUps.chainId, config.chainId), between(topUps.blockNumber, Number(fromBlock), Number(toBlock))));
  // One line per sender's payment in a transaction (a batch can pay for several), with every top-up of it.
  const keyOf = (txHash: string, payer: string) => `${txHash.toLowerCase()} ${payer.toLowerCase()}`;
  const byPayment = new Map<string, RecordedTopUp[]>();
  const add = (key: string, row: RecordedTopUp) => {
    const rows = byPayment.get(key) ?? [];
    if (!rows.some((r) => r.topUp.id === row.topUp.id)) rows.push(row);
    byPayment.set(key, rows);
  };
  for (const row of recorded) add(keyOf(row.topUp.txHash, row.topUp.fromAddress), row);
  // A pay-per-call payment whose authorization a transaction here used, credited under another transaction.
  for (const row of await creditsOfAuthorizations(config, used)) add(keyOf(row.usedIn, row.topUp.fromAddress), row);

  const payments = paymentsIn(transfers, used);
  const onChain = new Set(payments.map((p) => keyOf(p.txHash, p.payer)));
  const lines = payments.map(({ txHash, blockNumber, payer, amount }) => {
    const rows = byPayment.get(keyOf(txHash, payer)) ?? [];
    const statuses = [...new Set(rows.map((r) => statusOf(r.topUp)))];
    const held = rows.reduce((total, r) => total + BigInt(r.topUp.tokenAmount), 0n);
    const row: ReconciliationRow = {
      blockNumber: Number(blockNumber),
      txHash,
      from: payer,
      amount: formatTokenAmount(amount, decimals),
      topUp: rows.length === 0 ? "unrecorded" : statuses.length === 1 ? statuses[0] : "mixed",
      credits: rows.length === 0 ? null : rows.reduce((total, r) => total + Number(r.topUp.credits), 0),
      account: rows.find((r) => r.account !== null)?.account ?? null,
      topUps: rows.map(({ topUp }) => ({
        topUpId: topUp.id,
        txHash: topUp.txHash,
        status: statusOf(topUp),
        tokenAmount: formatTokenAmount(BigInt(topUp.tokenAmount), decimals),
        credits: Number(topUp.credits),
        x402PaymentId: topUp.x402PaymentId,
      })),
      unaccounted: formatTokenAmount(amount > held ? amount - held : 0n, decimals),
    };
    return { row, rows, value: amount, unaccounted: amount > held ? amount - held : 0n };
  });
  const tokens = (value: bigint) => formatTokenAmount(value, decimals);
  const heldBy = (filter: (row: RecordedTopUp) => boolean) =>
    lines.reduce(
      (total, line) => total + line.rows.filter(filter).reduce((sum, r) => sum + BigInt(r.topUp.tokenAmount), 0n),
      0n,
    );
  return {
    chainId: config.chainId,
    token: `${symbol} ${config.tokenAddress}`,
    treasury: config.treasuryAddress,
    fromBlock: Number(fromBlock),
    toBlock: Number(toBlock),
    transfers: lines.map(({ row }) => row),
    notOnChain: recorded
      .filter((r) => !onChain.has(keyOf(r.topUp.txHash, r.topUp.fromAddress)))
      .map((r) => ({
        blockNumber: r.topUp.blockNumber,
        txHash: r.topUp.txHash,
        topUp: r.topUp.status,
        credits: Number(r.topUp.credits),
        x402PaymentId: r.topUp.x402PaymentId,
      })),
    unmatchedPayPerCall: await unmatchedPayPerCallTopUps(config.chainId),
    totals: {
      received: tokens(lines.reduce((total, line) => total + line.value, 0n)),
      credited: tokens(heldBy((r) => r.topUp.status === "credited")),
      awaitingAccount: tokens(heldBy((r) => r.topUp.accountId === null && r.topUp.status !== "failed")),
      unrecorded: tokens(lines.reduce((total, line) => total + line.unaccounted, 0n)),
    },
  };
}

/** The top-ups of pay-per-call payments whose authorizations `used` names, with the transaction that used each. */
async function creditsOfAuthorizations(
  config: { chainId: number; tokenAddress: string },
  used: AuthorizationUsed[],
): Promise<(RecordedTopUp & { usedIn: string })[]> {
  if (used.length === 0) return [];
  const rows = await (
    await db()
  )
    .select({
      topUp: topUps,
      account: accounts.walletAddress,
      from: x402Payments.fromAddress,
      nonce: x402Payments.nonce,
    })
    .from(topUps)
    .innerJoin(x402Payments, eq(x402Payments.id, topUps.x402PaymentId))
    .leftJoin(accounts, eq(accounts.id, topUps.accountId))
    .where(
      and(
        eq(x402Payments.chainId, config.chainId),
        isPaymentOfToken(config),
        inArray(
          x402Payments.nonce,
          used.map((u) => u.nonce),
        ),
      ),
    );
  return rows.flatMap(({ topUp, account, from, nonce }) => {
    const use = used.find((u) => u.nonce === nonce.toLowerCase() && u.authorizer.toLowerCase() === from.toLowerCase());
    return use ? [{ topUp, account, usedIn: use.txHash.toLowerCase() }] : [];
  });
}

/**
 * Top-ups credited by a pay-per-call payment ("Pay per call: …" ledger entry) that name no payment: written before
 * migration 0031 and left unmatched by 0032 (no settled payment, or more than one, of the same payer, account and
 * value matched it). They read as plain: a second payment of the same payer in the same transaction, settling across
 * the upgrade, found one credited and credited nothing. The operator checks each against x402_payments by hand.
 */
async function unmatchedPayPerCallTopUps(chainId: number) {
  const rows = await (
    await db()
  )
    .select({
      topUpId: topUps.id,
      txHash: topUps.txHash,
      from: topUps.fromAddress,
      credits: topUps.credits,
      blockNumber: topUps.blockNumber,
      creditedAt: topUps.creditedAt,
    })
    .from(topUps)
    .where(
      and(
        eq(topUps.chainId, chainId),
        isNull(topUps.x402PaymentId),
        eq(topUps.status, "credited"),
        sql`exists (select 1 from ${creditLedger} where ${creditLedger.topUpId} = ${topUps.id} and ${creditLedger.type} = 'topup' and ${creditLedger.description} like 'Pay per call:%')`,
      ),
    );
  return rows.map((row) => ({
    ...row,
    credits: Number(row.credits),
    creditedAt: row.creditedAt?.toISOString() ?? null,
  }));
}
