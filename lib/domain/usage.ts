// UsageSummary (CONTRACT §6): job counts, credits used (charges minus refunds), durations, by service, by day,
// and by API key (§11).
import { and, eq, gte, inArray, lte, sql } from "drizzle-orm";
import { apiKeys, creditLedger, jobs } from "@/lib/db/schema";
import { db } from "./database";
import type { UsageSummary } from "@/lib/contract/schemas";

const dayMs = 24 * 3600 * 1000;
const int = (v: unknown) => Number(v ?? 0);

type KeyCount = { keyId: string | null; jobs?: unknown; used?: unknown };

/** Jobs and credits used per API key (`keyId` null: jobs submitted without one), most credits first. */
function byKeyOf(
  keyJobs: KeyCount[],
  keyCredits: KeyCount[],
  keys: { id: string; name: string; prefix: string }[],
): UsageSummary["byKey"] {
  const names = new Map(keys.map((k) => [k.id, k]));
  const rows = new Map<string | null, UsageSummary["byKey"][number]>();
  const rowOf = (keyId: string | null) => {
    let row = rows.get(keyId);
    if (!row) {
      const key = keyId === null ? undefined : names.get(keyId);
      rows.set(keyId, (row = { keyId, name: key?.name ?? null, prefix: key?.prefix ?? null, jobs: 0, creditsUsed: 0 }));
    }
    return row;
  };
  for (const r of keyJobs) rowOf(r.keyId).jobs = int(r.jobs);
  for (const r of keyCredits) rowOf(r.keyId).creditsUsed = int(r.used);
  return [...rows.values()].sort((a, b) => b.creditsUsed - a.creditsUsed || b.jobs - a.jobs);
}

export async function getUsageSummary(
  accountId: string,
  period: { periodStart?: Date; periodEnd?: Date },
): Promise<UsageSummary> {
  const periodEnd = period.periodEnd ?? new Date();
  const periodStart = period.periodStart ?? new Date(periodEnd.getTime() - 30 * dayMs);
  const d = await db();
  const inPeriod = and(eq(jobs.accountId, accountId), gte(jobs.createdAt, periodStart), lte(jobs.createdAt, periodEnd));
  const ledgerInPeriod = and(
    eq(creditLedger.accountId, accountId),
    inArray(creditLedger.type, ["charge", "refund"]),
    gte(creditLedger.createdAt, periodStart),
    lte(creditLedger.createdAt, periodEnd),
  );
  const duration = sql`extract(epoch from (${jobs.completedAt} - ${jobs.createdAt})) * 1000`;
  const day = (column: typeof jobs.createdAt | typeof creditLedger.createdAt) =>
    sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`;

  const [[totals], serviceRows, serviceCredits, jobDays, creditDays, keyJobs, keyCredits, keys] = await Promise.all([
    d
      .select({
        total: sql<number>`count(*)`,
        completed: sql<number>`count(*) filter (where ${jobs.status} = 'completed')`,
        failed: sql<number>`count(*) filter (where ${jobs.status} = 'failed')`,
        avg: sql<number | null>`avg(${duration}) filter (where ${jobs.completedAt} is not null)`,
        p95: sql<
          number | null
        >`percentile_cont(0.95) within group (order by ${duration}) filter (where ${jobs.completedAt} is not null)`,
      })
      .from(jobs)
      .where(inPeriod),
    d
      .select({
        serviceId: jobs.serviceId,
        jobs: sql<number>`count(*)`,
        completed: sql<number>`count(*) filter (where ${jobs.status} = 'completed')`,
        failed: sql<number>`count(*) filter (where ${jobs.status} = 'failed')`,
      })
      .from(jobs)
      .where(inPeriod)
      .groupBy(jobs.serviceId),
    d
      .select({ serviceId: jobs.serviceId, used: sql<number>`-sum(${creditLedger.amount})` })
      .from(creditLedger)
      .innerJoin(jobs, eq(jobs.id, creditLedger.jobId))
      .where(ledgerInPeriod)
      .groupBy(jobs.serviceId),
    d
      .select({ date: day(jobs.createdAt), jobs: sql<number>`count(*)` })
      .from(jobs)
      .where(inPeriod)
      .groupBy(day(jobs.createdAt)),
    d
      .select({ date: day(creditLedger.createdAt), used: sql<number>`-sum(${creditLedger.amount})` })
      .from(creditLedger)
      .where(ledgerInPeriod)
      .groupBy(day(creditLedger.createdAt)),
    d
      .select({ keyId: jobs.apiKeyId, jobs: sql<number>`count(*)` })
      .from(jobs)
      .where(inPeriod)
      .groupBy(jobs.apiKeyId),
    d
      .select({ keyId: jobs.apiKeyId, used: sql<number>`-sum(${creditLedger.amount})` })
      .from(creditLedger)
      .innerJoin(jobs, eq(jobs.id, creditLedger.jobId))
      .where(ledgerInPeriod)
      .groupBy(jobs.apiKeyId),
    d
      .select({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix })
      .from(apiKeys)
      .where(eq(apiKeys.accountId, accountId)),
  ]);

  const creditsByService = new Map(serviceCredits.map((r) => [r.serviceId, int(r.used)]));
  const days = new Map<string, { date: string; jobs: number; creditsUsed: number }>();
  for (const r of jobDays) days.set(r.date, { date: r.date, jobs: int(r.jobs), creditsUsed: 0 });
  for (const r of creditDays) {
    const entry = days.get(r.date) ?? { date: r.date, jobs: 0, creditsUsed: 0 };
    entry.creditsUsed = int(r.used);
    days.set(r.date, entry);
  }
  const completedJobs = int(totals.completed);
  const failedJobs = int(totals.failed);
  const totalJobs = int(totals.total);
  return {
    periodStart: periodStart.toISOString(),
    periodEnd: periodEnd.toISOString(),
    totalJobs,
    completedJobs,
    failedJobs,
    activeJobs: totalJobs - completedJobs - failedJobs,
    creditsUsed: [...creditsByService.values()].reduce((a, b) => a + b, 0),
    successRate: completedJobs + failedJobs === 0 ? 0 : completedJobs / (completedJobs + failedJobs),
    avgDurationMs: totals.avg === null ? null : Math.round(Number(totals.avg)),
    p95DurationMs: totals.p95 === null ? null : Math.round(Number(totals.p95)),
    byService: serviceRows
      .map((r) => ({
        serviceId: r.serviceId,
        jobs: int(r.jobs),
        completed: int(r.completed),
        failed: int(r.failed),
        creditsUsed: creditsByService.get(r.serviceId) ?? 0,
      }))
      .sort((a, b) => a.serviceId.localeCompare(b.serviceId)),
    byDay: [...days.values()].sort((a, b) => a.date.localeCompare(b.date)),
    byKey: byKeyOf(keyJobs, keyCredits, keys),
  };
}
