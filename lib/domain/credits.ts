// The credits ledger: append-only entries, each moving the account's balance in the same statement
// that proves it cannot go below zero.
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { accounts, creditLedger } from "@/lib/db/schema";
import { DomainError, notFound } from "./errors";
import type { LedgerEntryType } from "@/lib/contract/vocabulary";
import { descendingKeyset, exactTotal, keysetPage, listReads, type CursorPageRequest } from "./pagination";
import { db } from "./database";
import { countedSql, creditEntriesCounted, keptCount } from "./list-counts";
import type * as wire from "@/lib/contract/schemas";

export interface LedgerEntryInput {
  accountId: string;
  type: LedgerEntryType;
  /** Signed: negative debits, positive credits. */
  amount: number;
  jobId?: string | null;
  /** The top-up a `topup` entry credits (at most one entry per top-up, by a unique index). */
  topUpId?: string | null;
  description: string;
  /** When the entry is made: the transaction's time unless a writer keeps another clock (a refund: the spend clock). */
  createdAt?: SQL;
}

/**
 * Moves the balance by `amount` and records the entry. A debit that would take the balance below zero
 * changes nothing and throws INSUFFICIENT_CREDITS; the row lock of the UPDATE serialises concurrent debits.
 */
export async function applyLedgerEntry(tx: Tx, entry: LedgerEntryInput) {
  const [row] = await tx
    .update(accounts)
    .set({ creditBalance: sql`${accounts.creditBalance} + ${entry.amount}`, creditUpdatedAt: sql`now()` })
    .where(and(eq(accounts.id, entry.accountId), sql`${accounts.creditBalance} + ${entry.amount} >= 0`))
    .returning({ balance: accounts.creditBalance });
  if (!row) {
    throw new DomainError("INSUFFICIENT_CREDITS", "Not enough credits for this request.", { required: -entry.amount });
  }
  const [created] = await tx
    .insert(creditLedger)
    .values({ ...entry, jobId: entry.jobId ?? null, topUpId: entry.topUpId ?? null, balanceAfter: row.balance })
    .returning();
  await tx.execute(countedSql(creditEntriesCounted(sql`${entry.accountId}`, sql`1`)));
  return created;
}

export function toCreditEntry(row: typeof creditLedger.$inferSelect): wire.CreditEntry {
  return {
    entryId: row.id,
    type: row.type,
    amount: row.amount,
    balanceAfter: row.balanceAfter,
    jobId: row.jobId,
    topUpId: row.topUpId,
    description: row.description,
    createdAt: row.createdAt.toISOString(),
  };
}

export async function getCreditBalance(accountId: string): Promise<wire.CreditBalance> {
  const [row] = await (
    await db()
  )
    .select({ balance: accounts.creditBalance, updatedAt: accounts.creditUpdatedAt })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!row) throw notFound("NOT_FOUND", "The account");
  return { balance: row.balance, currency: "credits" as const, updatedAt: row.updatedAt.toISOString() };
}

/** Newest first by the ledger's own sequence: one range of credit_ledger_account_idx (account_id, seq). */
const creditEntriesKeyset = descendingKeyset<"creditEntries", typeof creditLedger.$inferSelect>(
  "creditEntries",
  sql`${creditLedger.seq}`,
  (row) => [row.seq],
  (key) => sql`${key.seq}::bigint`,
);

export async function listCreditHistory(
  accountId: string,
  request: CursorPageRequest<"creditEntries">,
): Promise<wire.CreditHistory> {
  const d = await db();
  const { read, keyAt } = listReads<"creditEntries", typeof creditLedger.$inferSelect>(
    d,
    creditLedger,
    eq(creditLedger.accountId, accountId),
    { key: { seq: creditLedger.seq }, descending: true },
    creditEntriesKeyset,
  );
  return keysetPage(
    creditEntriesKeyset,
    request,
    read,
    keyAt,
    toCreditEntry,
    keptCount(d, accountId, "credit_entries").then(exactTotal),
  );
}

/** The ledger entries of one job (its charge, and its refund if it failed), oldest first: the job page's "what did this cost me". */
export async function listJobCreditEntries(accountId: string, jobId: string) {
  const rows = await (
    await db()
  )
    .select()
    .from(creditLedger)
    .where(and(eq(creditLedger.accountId, accountId), eq(creditLedger.jobId, jobId)))
    .orderBy(asc(creditLedger.seq));
  return rows.map(toCreditEntry);
}

/** Operator grant (scripts/credits.ts) by wallet address. */
export async function grantCreditsToAddress(walletAddress: string, amount: number, description = "Operator grant") {
  const d = await db();
  return d.transaction(async (tx) => {
    const [account] = await tx
      .select({ id: accounts.id })
      .from(accounts)
      .where(sql`lower(${accounts.walletAddress}) = lower(${walletAddress})`);
    if (!account) throw notFound("NOT_FOUND", `The account of ${walletAddress}`);
    return applyLedgerEntry(tx, {
      accountId: account.id,
      type: amount >= 0 ? "grant" : "adjustment",
      amount,
      description,
    });
  });
}
