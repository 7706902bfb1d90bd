import type { Metadata } from "next";
import { requireSession } from "@/lib/http/page-session";
import { PageHeader } from "@/components/dashboard/page-header";
import { usagePeriod } from "@/components/usage/period";
import { PeriodPicker, UsageReport } from "@/components/usage/usage-report";
import { cursorPageQuery } from "@/lib/contract/schemas";
import { listCreditHistory } from "@/lib/domain/credits";
import { getUsageSummary } from "@/lib/domain/usage";

export const metadata: Metadata = { title: "Usage" };

const historyPageSize = 20;
const historyQuery = cursorPageQuery("creditEntries");

export default async function UsagePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const session = await requireSession();
  const query = await searchParams;
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const period = usagePeriod(first(query.period));
  // The API's own page and cursor rules; a page or cursor the API would refuse shows the first page.
  const parsed = historyQuery.safeParse({
    page: first(query.page),
    after: first(query.after),
    limit: String(historyPageSize),
  });
  const at = parsed.success ? parsed.data : { page: 1, limit: historyPageSize };
  const [summary, history] = await Promise.all([
    getUsageSummary(session.accountId, { periodStart: period.periodStart, periodEnd: period.periodEnd }),
    listCreditHistory(session.accountId, at),
  ]);
  return (
    <>
      <PageHeader
        title="Usage"
        description="Jobs, credits and durations for a period, by day and by service. Days are UTC."
        actions={<PeriodPicker current={period.id} />}
      />
      <UsageReport summary={summary} history={history} period={period} />
    </>
  );
}
