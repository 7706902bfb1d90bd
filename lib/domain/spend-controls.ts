// Spend controls (CONTRACT §11): a key's credit limit and usage, kept as counters on the key's row that the
// charge itself moves (so the check and the spend are one atomic step), and the low-balance alert recorded
// with the charge that crosses the developer's threshold. The SQL here is used by the job's creation
// (lib/engine/create-job.ts) and its refund (lib/engine/apply-change.ts).
import { sql, type Placeholder, type SQL } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { apiKeys, webhookEndpoints } from "@/lib/db/schema";
import { formatCredits } from "@/lib/contract/credit-words";
import type { CreditLimitReset } from "@/lib/contract/vocabulary";
import { DomainError } from "./errors";
import type * as wire from "@/lib/contract/schemas";

// ── The spend clock ───────────────────────────────────────────────────────────────────────────────
// The database's now() decides which UTC day, week and month a charge falls in (reads of usage and resetsAt
// use this process's clock, which differs only within clock skew of a boundary). Tests move it with
// setSpendClock (the server runs in their process) instead of waiting for midnight.
const clockKey = Symbol.for("execution-network.spend-clock");
const clockHolder = globalThis as typeof globalThis & { [clockKey]?: () => Date };

/** Replaces the spend clock (tests); `null` goes back to the database's own time. */
export function setSpendClock(now: (() => Date) | null): void {
  if (now) clockHolder[clockKey] = now;
  else delete clockHolder[clockKey];
}

/** The moved clock's time, or null: the database's now(). Bound as a statement parameter. */
export const spendClockOverride = (): string | null => clockHolder[clockKey]?.().toISOString() ?? null;
/** The spend clock's time: the moved clock's (tests) or this process's. */
export const spendNow = (): Date => clockHolder[clockKey]?.() ?? new Date();

/**
 * The spend clock in SQL, from a bound parameter (null: now()), in the milliseconds jobs.charged_at keeps, so
 * a refund finds its charge's periods exactly. Rounded to them as every millisecond column rounds what it
 * stores (timestamptz(3)), not cut: a job's created_at, which is this instant, was otherwise half a millisecond
 * early on average against the times the engine's later writes store (started, completed), and every interval
 * from it (telemetry's queue time, the bench's overhead) half a millisecond long.
 */
export const spendClockSql = (at: Placeholder | SQL) => sql`coalesce(${at}::timestamptz, now())::timestamptz(3)`;

// ── Periods ───────────────────────────────────────────────────────────────────────────────────────
const periods = [
  { reset: "daily", unit: "day", spent: sql.raw("spent_day"), start: sql.raw("day_start") },
  { reset: "weekly", unit: "week", spent: sql.raw("spent_week"), start: sql.raw("week_start") },
  { reset: "monthly", unit: "month", spent: sql.raw("spent_month"), start: sql.raw("month_start") },
] as const;

const truncSql = (unit: string, at: SQL) => sql`date_trunc(${sql.raw(`'${unit}'`)}, ${at}, 'UTC')`;

/** 00:00 UTC of the day, Monday 00:00 UTC of the week, or the 1st 00:00 UTC of the month that holds `at`. */
export function periodStart(reset: CreditLimitReset, at: Date): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  if (reset === "daily") return new Date(day);
  if (reset === "weekly") return new Date(day - ((at.getUTCDay() + 6) % 7) * 86_400_000);
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

/** When the period holding `at` ends and the next one starts. */
export function nextReset(reset: CreditLimitReset, at: Date): Date {
  const start = periodStart(reset, at);
  if (reset === "daily") return new Date(start.getTime() + 86_400_000);
  if (reset === "weekly") return new Date(start.getTime() + 7 * 86_400_000);
  return new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

/**
 * The counters a charge of `cost` moves, as SET assignments for api_keys: a counter whose period is over
 * starts again from this charge.
 */
export function chargeCountersSql(cost: SQL, at: SQL): SQL {
  return sql.join(
    [
      sql`spent_total = spent_total + ${cost}`,
      ...periods.map(
        (p) =>
          sql`${p.spent} = case when ${p.start} = ${truncSql(p.unit, at)} then ${p.spent} else 0 end + ${cost}, ${p.start} = ${truncSql(p.unit, at)}`,
      ),
    ],
    sql`, `,
  );
}

/** What the key has spent in the period its limit counts (all time without a reset), at `at`. */
export function spentAgainstLimitSql(at: SQL): SQL {
  const inPeriod = (p: (typeof periods)[number]) =>
    sql`case when ${p.start} = ${truncSql(p.unit, at)} then ${p.spent} else 0 end`;
  return sql`case credit_limit_reset ${sql.join(
    periods.map((p) => sql`when ${sql.raw(`'${p.reset}'`)} then ${inPeriod(p)}`),
    sql` `,
  )} else spent_total end`;
}

type KeyRow = typeof apiKeys.$inferSelect;

/** A period's counter, or 0 when it belongs to a period that is over. */
const usedIn = (row: KeyRow, reset: CreditLimitReset, at: Date): number => {
  const start = { daily: row.dayStart, weekly: row.weekStart, monthly: row.monthStart }[reset];
  const spent = { daily: row.spentDay, weekly: row.spentWeek, monthly: row.spentMonth }[reset];
  return start?.getTime() === periodStart(reset, at).getTime() ? spent : 0;
};

/** The key's limit, what is left of it and its usage in the current UTC day, week and month (ApiKey fields). */
export function keySpendOf(
  row: KeyRow,
  at: Date = spendNow(),
): Pick<wire.ApiKey, "creditLimit" | "creditLimitReset" | "creditLimitRemaining" | "usage"> {
  const usage = {
    daily: usedIn(row, "daily", at),
    weekly: usedIn(row, "weekly", at),
    monthly: usedIn(row, "monthly", at),
    total: row.spentTotal,
  };
  const spent = row.creditLimitReset ? usage[row.creditLimitReset] : usage.total;
  return {
    creditLimit: row.creditLimit,
    creditLimitReset: row.creditLimitReset,
    creditLimitRemaining: row.creditLimit === null ? null : Math.max(row.creditLimit - spent, 0),
    usage,
  };
}

/** 402 KEY_CREDIT_LIMIT: `spent` is what the key had spent in its period when the charge was refused. */
export function keyCreditLimitError(
  limit: { creditLimit: number; creditLimitReset: CreditLimitReset | null; spent: number },
  cost: number,
): DomainError {
  const remaining = Math.max(limit.creditLimit - limit.spent, 0);
  const resetsAt = limit.creditLimitReset ? nextReset(limit.creditLimitReset, spendNow()).toISOString() : null;
  return new DomainError(
    "KEY_CREDIT_LIMIT",
    `This API key may spend ${formatCredits(remaining, "more")}${resetsAt ? ` until ${resetsAt}` : ""}; the job costs ${formatCredits(cost)}.`,
    {
      creditLimit: limit.creditLimit,
      creditLimitRemaining: remaining,
      creditLimitReset: limit.creditLimitReset,
      resetsAt,
    } satisfies wire.CreditLimitDetails,
  );
}

/**
 * A refund gives the key back what its job was charged, in every period the charge still counts in (a
 * charge of an earlier day no longer counts against today). Called before the refund's ledger entry.
 */
export async function giveBackKeySpend(
  tx: Tx,
  job: { apiKeyId: string | null; chargedAt: Date | null; creditCost: number },
): Promise<void> {
  if (!job.apiKeyId || !job.chargedAt || job.creditCost <= 0) return;
  const chargedAt = sql`${job.chargedAt.toISOString()}::timestamptz`;
  const cost = sql`${job.creditCost}::bigint`;
  await tx.execute(sql`
    update ${apiKeys} set spent_total = spent_total - ${cost}, ${sql.join(
      periods.map(
        (p) =>
          sql`${p.spent} = case when ${p.start} = ${truncSql(p.unit, chargedAt)} then ${p.spent} - ${cost} else ${p.spent} end`,
      ),
      sql`, `,
    )}
    where id = ${job.apiKeyId}`);
}

// ── Low-balance alert ─────────────────────────────────────────────────────────────────────────────

/**
 * The deliveries of one `credits.low` event (one per subscribed endpoint), as rows of a webhook_deliveries insert
 * (endpoint_id, account_id, event_id, event_type, job_id, body), when `crossing` — a relation of (account_id,
 * balance after the charge, threshold, cost) — says the charge took the balance from at or above the threshold to
 * below it. Being a crossing, it cannot repeat until the balance is back up.
 */
export function lowBalanceDeliveryRowsSql(crossing: SQL, eventId: SQL | Placeholder): SQL {
  const timestamp = sql`to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return sql`
    select w.id, c.account_id, ${eventId}::text, 'credits.low', null::uuid,
           json_build_object('type', 'credits.low', 'timestamp', ${timestamp}, 'data', json_build_object('balance', c.balance, 'threshold', c.threshold))::text
    from (${crossing}) c join ${webhookEndpoints} w on w.account_id = c.account_id and w.status = 'enabled' and 'credits.low' = any(w.events)
    where c.threshold is not null and c.balance < c.threshold and c.balance + c.cost >= c.threshold`;
}
