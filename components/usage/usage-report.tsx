// /usage for one period, rendered on the server: headline numbers, jobs and credits by day, by service, and
// the credit history with each entry linked to its job. Links change the period and page, so it needs no
// JavaScript of its own.
import { nextPageOf, pageLinkQuery, previousPageOf, type PageLink } from "@/components/dashboard/page-links";
import Link from "next/link";
import { BarChart3Icon } from "lucide-react";
import type { CreditHistory, UsageSummary } from "@/components/data/types";
import { creditNoun, formatDateTime, formatNumber, formatSignedCredits } from "@/components/dashboard/format";
import { EmptyState } from "@/components/dashboard/states";
import { formatDuration } from "@/components/timeline/time";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { DailyChart } from "./daily-chart";
import { UsageByKey } from "./usage-by-key";
import { fillDays, usagePeriods, type UsagePeriodId } from "./period";

function Figure({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <Card className="gap-1 px-5 py-4">
      <p className="text-xs text-muted-foreground">{label}</p>
      <p className="text-2xl font-semibold tracking-tight tabular-nums">{value}</p>
      {hint && <p className="text-xs text-muted-foreground">{hint}</p>}
    </Card>
  );
}

const usageHref = (period: UsagePeriodId, to: PageLink = { page: 1 }) =>
  `/usage?${new URLSearchParams({ period, ...pageLinkQuery(to) })}`;

export function PeriodPicker({ current }: { current: UsagePeriodId }) {
  return (
    <nav aria-label="Period" className="inline-flex rounded-md border p-0.5">
      {usagePeriods.map((p) => (
        <Link
          key={p.id}
          href={usageHref(p.id)}
          aria-current={p.id === current ? "page" : undefined}
          className={cn(
            "rounded-sm px-3 py-1 text-sm text-muted-foreground outline-none hover:text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/50",
            p.id === current && "bg-accent font-medium text-foreground",
          )}
        >
          Last {p.label}
        </Link>
      ))}
    </nav>
  );
}

export function UsageReport({
  summary,
  history,
  period,
}: {
  summary: UsageSummary;
  history: CreditHistory;
  period: { id: UsagePeriodId; days: number; periodStart: Date };
}) {
  const days = fillDays(summary.byDay, period.periodStart, period.days);
  const finalJobs = summary.completedJobs + summary.failedJobs;
  const { page, totalPages } = history.pagination;
  return (
    <div className="grid grid-cols-1 gap-6">
      <div className="grid grid-cols-2 gap-4 lg:grid-cols-4">
        <Figure label="Jobs" value={formatNumber(summary.totalJobs)} hint={`${summary.activeJobs} still running`} />
        <Figure
          label="Success rate"
          value={finalJobs === 0 ? "—" : `${(summary.successRate * 100).toFixed(1)} %`}
          hint={`${summary.completedJobs} completed · ${summary.failedJobs} failed`}
        />
        <Figure
          label="p95 duration"
          value={formatDuration(summary.p95DurationMs)}
          hint={`average ${formatDuration(summary.avgDurationMs)}`}
        />
        <Figure label="Credits used" value={formatNumber(summary.creditsUsed)} hint="charges minus refunds" />
      </div>

      <Card className="gap-4 p-5">
        <h2 className="text-base font-semibold">By day</h2>
        <DailyChart days={days} />
      </Card>

      <section aria-labelledby="by-service" className="grid grid-cols-1 gap-2">
        <h2 id="by-service" className="text-base font-semibold">
          By service
        </h2>
        {summary.byService.length === 0 ? (
          <EmptyState
            icon={BarChart3Icon}
            title="No jobs in this period"
            description="Run a service and its usage shows up here."
          />
        ) : (
          <Card className="py-0">
            <Table stackOnPhone>
              <TableHeader>
                <TableRow className="hover:bg-transparent">
                  <TableHead>Service</TableHead>
                  <TableHead className="text-right">Jobs</TableHead>
                  <TableHead className="text-right">Completed</TableHead>
                  <TableHead className="text-right">Failed</TableHead>
                  <TableHead className="text-right">Credits used</TableHead>
                </TableRow>
              </TableHeader>
              <TableBody>
                {summary.byService.map((s) => (
                  <TableRow key={s.serviceId}>
                    <TableCell className="font-mono text-xs max-md:basis-full">
                      <Link
                        href={`/jobs?serviceId=${encodeURIComponent(s.serviceId)}`}
                        className="underline-offset-2 hover:underline"
                      >
                        {s.serviceId}
                      </Link>
                    </TableCell>
                    <TableCell className="text-right tabular-nums">
                      {s.jobs}
                      <span className="md:hidden"> {s.jobs === 1 ? "job" : "jobs"}</span>
                    </TableCell>
                    <TableCell className="text-right tabular-nums">
                      {s.completed}
                      <span className="md:hidden"> completed</span>
                    </TableCell>
                    <TableCell className="text-right tabular-nums">
                      {s.failed}
                      <span className="md:hidden"> failed</span>
                    </TableCell>
                    <TableCell className="text-right tabular-nums">
                      {s.creditsUsed}
                      <span className="md:hidden"> {creditNoun(s.creditsUsed)} used</span>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Card>
        )}
      </section>

      <UsageByKey byKey={summary.byKey} creditsUsed={summary.creditsUsed} />

      <section aria-labelledby="credit-history" className="grid grid-cols-1 gap-2">
        <h2 id="credit-history" className="text-base font-semibold">
          Credit history
        </h2>
        <Card className="py-0">
          <Table stackOnPhone>
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                <TableHead>When</TableHead>
                <TableHead>Type</TableHead>
                <TableHead>Job</TableHead>
                <TableHead className="text-right">Amount</TableHead>
                <TableHead className="text-right">Balance</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {history.data.map((entry) => (
                <TableRow key={entry.entryId}>
                  <TableCell className="whitespace-nowrap text-muted-foreground max-md:basis-full max-md:text-xs">
                    {formatDateTime(entry.createdAt)}
                  </TableCell>
                  <TableCell>
                    <Badge variant="outline">{entry.type}</Badge>
                  </TableCell>
                  <TableCell className="font-mono text-xs">
                    {entry.jobId ? (
                      <Link
                        href={`/jobs/${entry.jobId}`}
                        aria-label={`Job ${entry.jobId}`}
                        className="underline underline-offset-2"
                      >
                        {entry.jobId.slice(0, 8)}
                      </Link>
                    ) : (
                      <span className="text-muted-foreground">{entry.description}</span>
                    )}
                  </TableCell>
                  <TableCell className="text-right tabular-nums">{formatSignedCredits(entry.amount)}</TableCell>
                  <TableCell className="text-right tabular-nums max-md:text-muted-foreground">
                    <span className="md:hidden">balance </span>
                    {formatNumber(entry.balanceAfter)}
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Card>
        <nav
          aria-label="Credit history pages"
          className="flex items-center justify-between gap-4 text-sm text-muted-foreground"
        >
          <span>
            page {page} of {Math.max(totalPages, 1)}
          </span>
          <div className="flex gap-2">
            {page > 1 && (
              <Button asChild variant="outline" size="sm">
                <Link href={usageHref(period.id, previousPageOf(history.pagination))}>Previous</Link>
              </Button>
            )}
            {history.pagination.hasMore && (
              <Button asChild variant="outline" size="sm">
                <Link href={usageHref(period.id, nextPageOf(history.pagination))}>Next</Link>
              </Button>
            )}
          </div>
        </nav>
      </section>
    </div>
  );
}
