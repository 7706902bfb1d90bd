"use client";

import * as React from "react";
import Link from "next/link";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ActivityIcon } from "lucide-react";
import { activeStatuses } from "@/lib/domain/job-machine";
import { apiFetch } from "@/components/data/fetch-api";
import { queryKeys } from "@/components/data/query-keys";
import type { JobList } from "@/components/data/types";
import { formatDateTime } from "@/components/dashboard/format";
import { Pager } from "@/components/dashboard/pager";
import { EmptyState, ErrorState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Progress } from "@/components/ui/progress";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { JobStatusBadge } from "./job-status-badge";

const pageSize = 20;
const minPollMs = 2_000;
const maxPollMs = 30_000;

interface PollState {
  data?: JobList;
  seenAt: number;
  unchanged: number;
}

/**
 * Refetch interval for the list: while any job on the page is still moving, poll every 2 s, doubling up to
 * 30 s while refetches bring nothing new; stop once every job shown is final.
 */
function nextPollMs(data: JobList | undefined, updatedAt: number, state: PollState): number | false {
  if (!data?.data.some((job) => activeStatuses.includes(job.status))) return false;
  if (updatedAt !== state.seenAt) {
    // Structural sharing keeps the same object when a refetch brought nothing new.
    state.unchanged = data === state.data ? state.unchanged + 1 : 0;
    state.data = data;
    state.seenAt = updatedAt;
  }
  return Math.min(minPollMs * 2 ** state.unchanged, maxPollMs);
}

function JobsTable({ list }: { list: JobList }) {
  return (
    <Card className="py-0">
      <Table>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>Job</TableHead>
            <TableHead>Service</TableHead>
            <TableHead>Status</TableHead>
            <TableHead className="w-40">Progress</TableHead>
            <TableHead className="text-right">Cost</TableHead>
            <TableHead>Created</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {list.data.map((job) => (
            <TableRow key={job.jobId}>
              <TableCell className="font-mono text-xs whitespace-nowrap" title={job.jobId}>
                {job.jobId.slice(0, 8)}
              </TableCell>
              <TableCell className="font-mono text-xs whitespace-nowrap">{job.serviceId}</TableCell>
              <TableCell>
                <JobStatusBadge status={job.status} />
                {job.error && <p className="mt-1 max-w-64 truncate text-xs text-destructive" title={job.error.message}>{job.error.message}</p>}
              </TableCell>
              <TableCell>
                <div className="flex items-center gap-2">
                  <Progress value={job.progress} aria-label={`Progress of ${job.jobId}`} className="w-24" />
                  <span className="text-xs text-muted-foreground tabular-nums">{job.progress}%</span>
                </div>
              </TableCell>
              <TableCell className="text-right tabular-nums">{job.creditCost}</TableCell>
              <TableCell className="whitespace-nowrap text-muted-foreground">{formatDateTime(job.createdAt)}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Card>
  );
}

export function JobsList() {
  const [page, setPage] = React.useState(1);
  const poll = React.useRef<PollState>({ seenAt: 0, unchanged: 0 });
  const jobs = useQuery({
    queryKey: queryKeys.jobs(page, pageSize),
    queryFn: ({ signal }) => apiFetch<JobList>(`/api/developers/jobs?page=${page}&limit=${pageSize}`, { signal }),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => nextPollMs(query.state.data, query.state.dataUpdatedAt, poll.current),
  });

  if (jobs.isPending) {
    return (
      <div className="grid gap-2" aria-busy="true">
        <Skeleton className="h-10" />
        <Skeleton className="h-12" />
        <Skeleton className="h-12" />
      </div>
    );
  }
  if (jobs.isError) return <ErrorState title="Could not load your jobs" error={jobs.error} onRetry={() => jobs.refetch()} />;
  if (jobs.data.data.length === 0 && page === 1) {
    return (
      <EmptyState
        icon={ActivityIcon}
        title="No jobs yet"
        description="Jobs you submit with an API key appear here with their status and progress."
        action={
          <Button asChild variant="outline">
            <Link href="/overview">See how to submit one</Link>
          </Button>
        }
      />
    );
  }
  return (
    <div className="flex flex-col gap-4">
      <JobsTable list={jobs.data} />
      <Pager pagination={jobs.data.pagination} onPageChange={setPage} noun="jobs" isFetching={jobs.isPlaceholderData} />
    </div>
  );
}
