"use client";

// Keeps one job page up to date: the server rendered the job, its telemetry and logs; this hook goes live.
// One Server-Sent Events connection per page (resuming after the last sequence it holds), closed while the
// tab is hidden and for good once the job is final. Where the stream cannot be used, TanStack Query polls
// instead, backing off while nothing changes and stopping at a final state. Updates apply in sequence order:
// events are merged by sequence, and a job snapshot older than the one shown is ignored.
import * as React from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { fetchJob, fetchJobEventsAfter, fetchJobLogsAfter, isJobFinal, jobEventsUrl, jobKeys } from "./jobs";
import type { ExecutionJob, ExecutionLog, TelemetryEvent } from "./types";

export interface JobSnapshot {
  job: ExecutionJob;
  events: TelemetryEvent[];
}

export type LiveMode = "final" | "connecting" | "live" | "polling" | "paused";

type Action = { type: "job"; job: ExecutionJob } | { type: "events"; events: TelemetryEvent[] };

/** Applies an update only if it moves the page forward. */
export function applyUpdate(state: JobSnapshot, action: Action): JobSnapshot {
  if (action.type === "job") {
    const current = state.job;
    if (isJobFinal(current)) return state;
    if (Date.parse(action.job.updatedAt) < Date.parse(current.updatedAt)) return state;
    return { ...state, job: action.job };
  }
  const last = state.events.at(-1)?.sequence ?? 0;
  const fresh = action.events.filter((e) => e.sequence > last);
  if (fresh.length === 0) return state;
  const bySequence = new Map(state.events.map((e) => [e.sequence, e]));
  for (const e of fresh) bySequence.set(e.sequence, e);
  return { ...state, events: [...bySequence.values()].sort((a, b) => a.sequence - b.sequence) };
}

const subscribeVisibility = (onChange: () => void) => {
  document.addEventListener("visibilitychange", onChange);
  return () => document.removeEventListener("visibilitychange", onChange);
};
/** Whether the tab is shown; the server renders as visible. */
export const useIsTabVisible = () =>
  React.useSyncExternalStore(
    subscribeVisibility,
    () => document.visibilityState === "visible",
    () => true,
  );

const minPollMs = 1_000;
const logsThrottleMs = 300;
const maxPollMs = 15_000;
/** Attempts to open the stream without ever getting through before falling back to polling. */
const streamAttempts = 3;

export function useLiveJob(
  initial: JobSnapshot,
  initialLogs: ExecutionLog[],
  {
    onFinal,
    moreLogs = false,
  }: { onFinal?: () => void; /** The server rendered the log's first page only. */ moreLogs?: boolean } = {},
) {
  const jobId = initial.job.jobId;
  const [snapshot, dispatch] = React.useReducer(applyUpdate, initial);
  const isFinal = isJobFinal(snapshot.job);
  const isVisible = useIsTabVisible();
  const [streamFailed, setStreamFailed] = React.useState(() => typeof EventSource === "undefined");
  const [isStreamOpen, setStreamOpen] = React.useState(false);
  // The last sequence shown, read when the stream (re)opens and when the poll asks: kept current after each
  // render that moves it (this effect runs before the stream's).
  const lastSequence = snapshot.events.at(-1)?.sequence ?? 0;
  const cursor = React.useRef(lastSequence);
  React.useEffect(() => {
    cursor.current = lastSequence;
  }, [lastSequence]);
  const queryClient = useQueryClient();

  // The stream: one EventSource while the job moves and the tab is shown.
  React.useEffect(() => {
    if (isFinal || !isVisible || streamFailed) return;
    const source = new EventSource(jobEventsUrl(jobId, cursor.current));
    let failures = 0;
    let opened = false;
    source.onopen = () => {
      opened = true;
      setStreamOpen(true);
    };
    source.addEventListener("telemetry", (message) => {
      dispatch({ type: "events", events: [JSON.parse((message as MessageEvent<string>).data) as TelemetryEvent] });
    });
    source.addEventListener("status", (message) => {
      const job = JSON.parse((message as MessageEvent<string>).data) as ExecutionJob;
      dispatch({ type: "job", job });
      // The server ends the stream after a final state; do not let the browser reconnect.
      if (isJobFinal(job)) source.close();
    });
    source.onerror = () => {
      setStreamOpen(false);
      failures += 1;
      // CLOSED: the server refused the stream (not an event stream, or an error status); never opened after
      // a few tries: something between us and the server does not pass it. Either way, poll instead.
      if (source.readyState === EventSource.CLOSED || (!opened && failures >= streamAttempts)) {
        source.close();
        setStreamFailed(true);
      }
    };
    return () => {
      source.close();
      setStreamOpen(false);
    };
  }, [jobId, isFinal, isVisible, streamFailed]);

  // The fallback: poll the job and the events after the cursor, backing off while nothing changes.
  const unchangedPolls = React.useRef(0);
  const poll = useQuery({
    queryKey: jobKeys.poll(jobId),
    queryFn: async ({ signal }) => {
      const [job, events] = await Promise.all([
        fetchJob(jobId, signal),
        fetchJobEventsAfter(jobId, cursor.current, signal),
      ]);
      return { job, events };
    },
    enabled: streamFailed && !isFinal,
    // Hidden tabs do not poll (refetchIntervalInBackground is off).
    refetchInterval: () => (isFinal ? false : Math.min(minPollMs * 2 ** unchangedPolls.current, maxPollMs)),
    staleTime: 0,
    gcTime: 0,
  });
  React.useEffect(() => {
    if (!poll.data) return;
    const moved = poll.data.events.length > 0 || poll.data.job.updatedAt !== snapshot.job.updatedAt;
    unchangedPolls.current = moved ? 0 : unchangedPolls.current + 1;
    dispatch({ type: "events", events: poll.data.events });
    dispatch({ type: "job", job: poll.data.job });
    // Only new data should run this; the snapshot it compares with is read, not watched.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [poll.data]);

  // Logs: the lines after the last one held are read whenever the job moves — a telemetry event, or a
  // progress report (which is when a running provider's lines arrive) — at most every logsThrottleMs while it
  // runs, and once more at the end; and at once when the server rendered only the log's first page.
  const logs = useQuery({
    queryKey: jobKeys.logs(jobId),
    queryFn: async ({ signal }) => {
      const held = queryClient.getQueryData<ExecutionLog[]>(jobKeys.logs(jobId)) ?? [];
      const last = held.at(-1)?.sequence ?? 0;
      const fresh = await fetchJobLogsAfter(jobId, last, signal);
      return fresh.length === 0 ? held : [...held, ...fresh.filter((l) => l.sequence > last)];
    },
    initialData: initialLogs,
    staleTime: Infinity,
    refetchOnMount: moreLogs ? "always" : false,
  });
  const moved = `${snapshot.events.at(-1)?.sequence ?? 0}:${snapshot.job.updatedAt}`;
  const firstMoved = React.useRef(moved);
  const logsTimer = React.useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  React.useEffect(() => {
    // A timer already waiting reads the lines this change brought too (a throttle, not a debounce: a job
    // reporting progress every 100 ms still gets its logs read while it runs).
    if (moved === firstMoved.current || logsTimer.current) return;
    logsTimer.current = setTimeout(() => {
      logsTimer.current = undefined;
      void queryClient.invalidateQueries({ queryKey: jobKeys.logs(jobId) });
    }, logsThrottleMs);
  }, [moved, jobId, queryClient]);
  React.useEffect(() => () => clearTimeout(logsTimer.current), []);

  // Reaching a final state while watching: let the server parts (credits, refund) read again, and read the
  // events once more. The final state can arrive before its events: the Cancel button's answer makes the job
  // final, which closes the stream (or stops the poll) before JOB_CANCELLED has come through it.
  const wasFinal = React.useRef(isFinal);
  const reachedFinal = React.useEffectEvent(() => onFinal?.());
  React.useEffect(() => {
    const justFinal = isFinal && !wasFinal.current;
    wasFinal.current = isFinal;
    if (!justFinal) return;
    reachedFinal();
    const lastEvents = new AbortController();
    fetchJobEventsAfter(jobId, cursor.current, lastEvents.signal)
      .then((events) => dispatch({ type: "events", events }))
      // The page keeps what it shows; a reload reads the whole timeline again.
      .catch(() => undefined);
    return () => lastEvents.abort();
  }, [isFinal, jobId]);

  const mode: LiveMode = isFinal
    ? "final"
    : !isVisible
      ? "paused"
      : streamFailed
        ? "polling"
        : isStreamOpen
          ? "live"
          : "connecting";

  return {
    job: snapshot.job,
    events: snapshot.events,
    logs: logs.data,
    mode,
    applyJob: (job: ExecutionJob) => dispatch({ type: "job", job }),
  };
}
