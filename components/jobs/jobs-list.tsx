"use client";

// The jobs list: filters and page in the URL (shareable, survive reload, back button works), rows linking
// to each job's page, cost and duration; the list polls while a job on the page is still moving (useJobs).
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { ActivityIcon, FilterXIcon } from "lucide-react";
import { jobStatuses } from "@/lib/contract/vocabulary";
import { useJobs } from "@/components/data/jobs";
import type { ExecutionJob, JobList } from "@/components/data/types";
import { creditNoun, formatCredits, formatDateTime, formatNumber } from "@/components/dashboard/format";
import { Pager } from "@/components/dashboard/pager";
import { EmptyState, ErrorState } from "@/components/dashboard/states";
import { netCreditCost, phaseOf } from "@/components/timeline/lifecycle";
import { formatDuration } from "@/components/timeline/time";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/native-select";
import { Progress } from "@/components/ui/progress";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { hasJobFilters, jobFiltersApiQuery, jobFiltersQuery, parseJobFilters, type JobFilters } from "./job-filters";
import { JobStatusBadge } from "./job-status-badge";

const pageSize = 20;

/** Creation to completion for a final job; empty while it runs. */
const durationOf = (job: ExecutionJob) =>
  job.completedAt ? Date.parse(job.completedAt) - Date.parse(job.createdAt) : null;

function JobsTable({ list }: { list: JobList }) {
  return (
    <Card className="py-0">
      <Table stackOnPhone>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>Job</TableHead>
            <TableHead>Service</TableHead>
            <TableHead>Status</TableHead>
            <TableHead className="w-40">Progress</TableHead>
            <TableHead className="text-right">Cost</TableHead>
            <TableHead className="text-right">Duration</TableHead>
            <TableHead>Created</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {list.data.map((job) => {
            const phase = phaseOf(job);
            const cost = netCreditCost(job);
            return (
              <TableRow key={job.jobId}>
                <TableCell className="font-mono text-xs whitespace-nowrap">
                  <Link
                    href={`/jobs/${job.jobId}`}
                    title={job.jobId}
                    aria-label={`Job ${job.jobId}`}
                    className="rounded underline-offset-2 outline-none hover:underline focus-visible:ring-[3px] focus-visible:ring-ring/50"
                  >
                    {job.jobId.slice(0, 8)}
                  </Link>
                </TableCell>
                <TableCell className="font-mono text-xs whitespace-nowrap">{job.serviceId}</TableCell>
                <TableCell>
                  <JobStatusBadge status={phase} />
                  {job.error && (
                    <p
                      className={`mt-1 max-w-64 truncate text-xs ${phase === "cancelled" ? "text-muted-foreground" : "text-destructive"}`}
                      title={job.error.message}
                    >
                      {job.error.message}
                    </p>
                  )}
                </TableCell>
                <TableCell className="max-md:hidden">
                  <div className="flex items-center gap-2">
                    <Progress value={job.progress} aria-label={`Progress of ${job.jobId}`} className="w-24" />
                    <span className="text-xs text-muted-foreground tabular-nums">{job.progress}%</span>
                  </div>
                </TableCell>
                <TableCell
                  className="text-right tabular-nums"
                  data-testid="job-cost"
                  title={cost !== job.creditCost ? `${formatCredits(job.creditCost)} charged, refunded` : undefined}
                >
                  {formatNumber(cost)}
                  <span className="md:hidden"> {creditNoun(cost)}</span>
                </TableCell>
                <TableCell
                  className={`text-right whitespace-nowrap tabular-nums${job.completedAt ? "" : " max-md:hidden"}`}
                >
                  <span className="md:hidden">took </span>
                  {job.completedAt ? formatDuration(durationOf(job)) : "—"}
                </TableCell>
                <TableCell className="whitespace-nowrap text-muted-foreground max-md:basis-full max-md:text-xs">
                  {formatDateTime(job.createdAt)}
                </TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
    </Card>
  );
}

function FilterBar({
  filters,
  services,
  onChange,
}: {
  filters: JobFilters;
  services: { serviceId: string; name: string }[];
  onChange: (next: JobFilters) => void;
}) {
  const set = (patch: Partial<JobFilters>) => onChange({ ...filters, ...patch, page: 1, after: undefined });
  return (
    <form
      role="search"
      aria-label="Filter jobs"
      className="flex flex-wrap items-end gap-3"
      onSubmit={(e) => e.preventDefault()}
    >
      <label className="grid gap-1 text-xs text-muted-foreground">
        Status
        <NativeSelect
          value={filters.status ?? ""}
          onChange={(e) => set({ status: (e.target.value || undefined) as JobFilters["status"] })}
        >
          <option value="">Any status</option>
          {/* The API filters on statuses; a cancelled job's is failed (CONTRACT §5), so that option says so. */}
          {jobStatuses.map((s) => (
            <option key={s} value={s}>
              {s === "failed" ? "failed or cancelled" : s}
            </option>
          ))}
        </NativeSelect>
      </label>
      <label className="grid gap-1 text-xs text-muted-foreground">
        Service
        <NativeSelect value={filters.serviceId ?? ""} onChange={(e) => set({ serviceId: e.target.value || undefined })}>
          <option value="">Any service</option>
          {services.map((s) => (
            <option key={s.serviceId} value={s.serviceId}>
              {s.name}
            </option>
          ))}
        </NativeSelect>
      </label>
      <label className="grid gap-1 text-xs text-muted-foreground">
        From (UTC)
        <Input
          type="date"
          value={filters.dateFrom ?? ""}
          max={filters.dateTo}
          onChange={(e) => set({ dateFrom: e.target.value || undefined })}
          className="w-40"
        />
      </label>
      <label className="grid gap-1 text-xs text-muted-foreground">
        To (UTC)
        <Input
          type="date"
          value={filters.dateTo ?? ""}
          min={filters.dateFrom}
          onChange={(e) => set({ dateTo: e.target.value || undefined })}
          className="w-40"
        />
      </label>
      {hasJobFilters(filters) && (
        <Button type="button" variant="ghost" onClick={() => onChange({ page: 1 })}>
          <FilterXIcon /> Clear filters
        </Button>
      )}
    </form>
  );
}

export function JobsList({ services }: { services: { serviceId: string; name: string }[] }) {
  const searchParams = useSearchParams();
  const filters = parseJobFilters(searchParams);
  // Native history updates are synced into useSearchParams by the App Router, without a server round trip.
  const setFilters = (next: JobFilters) => {
    const query = jobFiltersQuery(next);
    window.history.pushState(null, "", query ? `?${query}` : window.location.pathname);
  };
  const jobs = useJobs(jobFiltersApiQuery(filters, pageSize));

  let body: React.ReactNode;
  if (jobs.isPending) {
    body = (
      <div className="grid gap-2" aria-busy="true" aria-label="Loading jobs">
        <Skeleton className="h-10" />
        <Skeleton className="h-12" />
        <Skeleton className="h-12" />
      </div>
    );
  } else if (jobs.isError) {
    body = <ErrorState title="Could not load your jobs" error={jobs.error} onRetry={() => jobs.refetch()} />;
  } else if (jobs.data.data.length === 0 && hasJobFilters(filters)) {
    body = (
      <EmptyState
        icon={FilterXIcon}
        title="No jobs match these filters"
        description="Try another status, service or date range."
        action={
          <Button variant="outline" onClick={() => setFilters({ page: 1 })}>
            Clear filters
          </Button>
        }
      />
    );
  } else if (jobs.data.data.length === 0 && filters.page === 1) {
    body = (
      <EmptyState
        icon={ActivityIcon}
        title="No jobs yet"
        description="Jobs you run from a service's page or submit with an API key appear here with their status and progress."
        action={
          <Button asChild variant="outline">
            <Link href="/services">Run a service</Link>
          </Button>
        }
      />
    );
  } else {
    body = (
      <div className="flex flex-col gap-4">
        <JobsTable list={jobs.data} />
        <Pager
          pagination={jobs.data.pagination}
          onPageChange={({ page, after }) => setFilters({ ...filters, page, after })}
          noun="jobs"
          isFetching={jobs.isPlaceholderData}
        />
      </div>
    );
  }
  return (
    <div className="flex flex-col gap-4">
      <FilterBar filters={filters} services={services} onChange={setFilters} />
      {body}
    </div>
  );
}
