// The operator's check of the treasury against the ledger over a block range (`npm run payments --
// reconcile`): every transfer of the token to the treasury the chain holds there, beside the top-up it
// became (credited, confirming, failed) and whose account it is; transfers nobody has an account for yet;
// and recorded top-ups in the range that the chain no longer holds. Whatever the range, the top-ups a pay-per-call
// payment credited that name no payment (what migration 0032 could not match).
import { and, between, eq, isNull, sql } from "drizzle-orm";
import { accounts, creditLedger, topUps } from "@/lib/db/schema";
import { formatTokenAmount } from "@/lib/contract/top-up-arithmetic";
import { readHead, readTokenMetadata, readTreasuryTransfers, type TreasuryTransfer } from "@/lib/payments/chain";
import { db } from "./database";
import { DomainError } from "./errors";
import { paymentsIn, requirePayments } from "./top-ups";

export interface ReconciliationRow {
  blockNumber: number;
  txHash: string;
  from: string;
  /** Token amount of this transaction's transfers to the treasury, in whole tokens. */
  amount: string;
  /** credited · confirming · submitted · failed (with its reason) · unrecorded */
  topUp: string;
  credits: number | null;
  /** The wallet address of the account it is credited to, or null (no account yet). */
  account: string | null;
}

export async function reconcileTreasury(range: { fromBlock: number; toBlock?: number }) {
  const config = requirePayments();
  const head = await readHead(config);
  const toBlock = BigInt(range.toBlock ?? Number(head));
  const fromBlock = BigInt(range.fromBlock);
  if (fromBlock > toBlock)
    throw new DomainError("INVALID_REQUEST", `The range is empty: block ${fromBlock} is after block ${toBlock}.`);
  const { decimals, symbol } = await readTokenMetadata(config);

  const transfers: TreasuryTransfer[] = [];
  for (let from = fromBlock; from <= toBlock; from += config.scanBlocks) {
    const to = from + config.scanBlocks - 1n < toBlock ? from + config.scanBlocks - 1n : toBlock;
    transfers.push(...(await readTreasuryTransfers(config, from, to)));
  }
  const recorded = await (
    await db()
  )
    .select({ topUp: topUps, account: accounts.walletAddress })
    .from(topUps)
    .leftJoin(accounts, eq(accounts.id, topUps.accountId))
    .where(and(eq(topUps.chainId, config.chainId), between(topUps.blockNumber, Number(fromBlock), Number(toBlock))));
  // One row per sender's payment in a transaction (a batch can pay for several).
  const keyOf = (txHash: string, payer: string) => `${txHash} ${payer.toLowerCase()}`;
  const byPayment = new Map(recorded.map((r) => [keyOf(r.topUp.txHash, r.topUp.fromAddress), r]));

  const payments = paymentsIn(transfers);
  const onChain = new Set(payments.map((p) => keyOf(p.txHash, p.payer)));
  const lines = payments.map(({ txHash, blockNumber, payer, amount }) => {
    const match = byPayment.get(keyOf(txHash, payer));
    const row: ReconciliationRow = {
      blockNumber: Number(blockNumber),
      txHash,
      from: payer,
      amount: formatTokenAmount(amount, decimals),
      topUp: !match
        ? "unrecorded"
        : match.topUp.failureReason
          ? `failed (${match.topUp.failureReason})`
          : match.topUp.status,
      credits: match ? Number(match.topUp.credits) : null,
      account: match?.account ?? null,
    };
    return { row, value: amount };
  });
  const sum = (filter: (row: ReconciliationRow) => boolean) =>
    formatTokenAmount(
      lines.filter(({ row }) => filter(row)).reduce((total, { value }) => total + value, 0n),
      decimals,
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
      })),
    unmatchedPayPerCall: await unmatchedPayPerCallTopUps(config.chainId),
    totals: {
      received: sum(() => true),
      credited: sum((row) => row.topUp === "credited"),
      awaitingAccount: sum((row) => row.account === null && row.topUp !== "unrecorded"),
      unrecorded: sum((row) => row.topUp === "unrecorded"),
    },
  };
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
