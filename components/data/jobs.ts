// Jobs in the dashboard: the list (polled while a job on it still moves), one job's reads for its live page
// (components/data/live-job.ts follows them), and Cancel. One key factory for every job query.
import * as React from "react";
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { encodeCursor } from "@/lib/contract/list-cursor";
import { finalStatuses } from "@/lib/contract/vocabulary";
import { creditKeys } from "./credits";
import { apiFetch, apiFetchWithHeaders } from "./fetch-api";
import type { ExecutionJob, ExecutionLog, JobList, TelemetryEvent, TelemetryPage } from "./types";

export const jobKeys = {
  all: ["jobs"] as const,
  lists: () => [...jobKeys.all, "list"] as const,
  /** One page of the list; `query` is the API's query string (filters, page, limit). */
  list: (query: string) => [...jobKeys.lists(), query] as const,
  detail: (jobId: string) => [...jobKeys.all, "detail", jobId] as const,
  logs: (jobId: string) => [...jobKeys.detail(jobId), "logs"] as const,
  /** The live page's fallback when its event stream cannot be used: the job and its new events together. */
  poll: (jobId: string) => [...jobKeys.detail(jobId), "poll"] as const,
};

export const isJobFinal = (job: Pick<ExecutionJob, "status">) => finalStatuses.includes(job.status);

const jobPath = (jobId: string) => `/api/developers/jobs/${encodeURIComponent(jobId)}`;

/** The job's Server-Sent Events stream, resuming after the last telemetry sequence the page holds. */
export const jobEventsUrl = (jobId: string, afterSequence: number) =>
  `${jobPath(jobId)}/events?lastEventId=${afterSequence}`;

export const fetchJob = (jobId: string, signal?: AbortSignal) => apiFetch<ExecutionJob>(jobPath(jobId), { signal });
/** Every log line after `afterSequence`, page after page (the route answers at most 1,000 lines at a time). */
export async function fetchJobLogsAfter(
  jobId: string,
  afterSequence: number,
  signal?: AbortSignal,
): Promise<ExecutionLog[]> {
  const lines: ExecutionLog[] = [];
  for (let after = afterSequence; ;) {
    const page = await apiFetchWithHeaders<ExecutionLog[]>(`${jobPath(jobId)}/logs?after=${after}`, { signal });
    lines.push(...page.body);
    const last = page.body.at(-1);
    if (page.headers.get("x-has-more") !== "true" || !last) return lines;
    after = last.sequence;
  }
}

const telemetryPageSize = 100;

/**
 * Every telemetry event after `afterSequence`, page after page by cursor (`after`), so the read costs the same
 * however long the job's telemetry is.
 */
export async function fetchJobEventsAfter(
  jobId: string,
  afterSequence: number,
  signal?: AbortSignal,
): Promise<TelemetryEvent[]> {
  const events: TelemetryEvent[] = [];
  for (let after = encodeCursor("telemetry", [afterSequence]); ;) {
    const result = await apiFetch<TelemetryPage>(
      `${jobPath(jobId)}/telemetry?after=${encodeURIComponent(after)}&limit=${telemetryPageSize}`,
      { signal },
    );
    events.push(...result.data);
    if (!result.pagination.hasMore || !result.pagination.nextCursor) return events;
    after = result.pagination.nextCursor;
  }
}

const minListPollMs = 2_000;
const maxListPollMs = 30_000;

interface ListPollState {
  data?: JobList;
  seenAt: number;
  unchanged: number;
}

/**
 * Refetch interval for the list: while any job on the page is still moving, poll every 2 s, doubling up to
 * 30 s while refetches bring nothing new; stop once every job shown is final.
 */
export function nextListPollMs(data: JobList | undefined, updatedAt: number, state: ListPollState): number | false {
  if (!data?.data.some((job) => !isJobFinal(job))) return false;
  if (updatedAt !== state.seenAt) {
    // Structural sharing keeps the same object when a refetch brought nothing new.
    state.unchanged = data === state.data ? state.unchanged + 1 : 0;
    state.data = data;
    state.seenAt = updatedAt;
  }
  return Math.min(minListPollMs * 2 ** state.unchanged, maxListPollMs);
}

/** One page of the developer's jobs (`query`: the API's query string), polled while a job on it moves. */
export function useJobs(query: string) {
  const poll = React.useRef<ListPollState>({ seenAt: 0, unchanged: 0 });
  return useQuery({
    queryKey: jobKeys.list(query),
    queryFn: ({ signal }) => apiFetch<JobList>(`/api/developers/jobs?${query}`, { signal }),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => nextListPollMs(q.state.data, q.state.dataUpdatedAt, poll.current),
  });
}

/** Cancels a job; the lists show it failed, and its refund changes the balance. */
export function useCancelJob(jobId: string, { onSuccess }: { onSuccess?: (job: ExecutionJob) => void } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiFetch<ExecutionJob>(`${jobPath(jobId)}/cancel`, { method: "POST" }),
    onSuccess: (job) => {
      onSuccess?.(job);
      void queryClient.invalidateQueries({ queryKey: jobKeys.lists() });
      void queryClient.invalidateQueries({ queryKey: creditKeys.balance });
    },
  });
}
