"use client";

// The job page's body: the header (status, ids, Cancel, Run again), the numbers (times, progress, node,
// credits), the lifecycle, the result or failure, the event timeline and the logs, all kept live by
// useLiveJob. The server rendered the same job first, so nothing moves when this hydrates.
import * as React from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { BanIcon, RadioIcon, RotateCcwIcon } from "lucide-react";
import { useCancelJob } from "@/components/data/jobs";
import { useLiveJob, type JobSnapshot, type LiveMode } from "@/components/data/live-job";
import type { CreditEntry, ExecutionJob, ExecutionLog } from "@/components/data/types";
import { formatCredits, formatDateTime } from "@/components/dashboard/format";
import { ErrorState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { CopyButton } from "@/components/ui/copy-button";
import { Progress } from "@/components/ui/progress";
import { EventTimeline } from "@/components/timeline/event-timeline";
import { LifecycleStepper } from "@/components/timeline/lifecycle-stepper";
import { isFinalPhase, phaseOf, phaseSpans, queueAndRunTime } from "@/components/timeline/lifecycle";
import { LogConsole } from "@/components/timeline/log-console";
import { clockTime, formatDuration } from "@/components/timeline/time";
import { JobFailure } from "./job-failure";
import { JobReceipt } from "./job-receipt";
import { JobResult } from "./job-result";
import { JobStatusBadge } from "./job-status-badge";

/** A clock for live timers, ticking only while `isRunning`; null until the page runs in the browser. */
function useNow(isRunning: boolean, everyMs = 500): number | null {
  const [now, setNow] = React.useState<number | null>(null);
  React.useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setNow(Date.now());
    if (!isRunning) return;
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [isRunning, everyMs]);
  return now;
}

const modeText: Record<LiveMode, string> = {
  final: "Final",
  connecting: "Connecting…",
  live: "Live",
  polling: "Live (polling)",
  paused: "Paused while hidden",
};

function LiveIndicator({ mode }: { mode: LiveMode }) {
  if (mode === "final") return null;
  return (
    <span className="inline-flex items-center gap-1.5 text-xs text-muted-foreground" aria-live="polite">
      <RadioIcon className={mode === "live" || mode === "polling" ? "size-3.5 text-success" : "size-3.5"} aria-hidden />
      {modeText[mode]}
    </span>
  );
}

function Stat({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <div className="grid min-w-0 gap-0.5">
      <dt className="text-xs text-muted-foreground">{label}</dt>
      <dd className="font-mono text-sm break-words tabular-nums">{children}</dd>
    </div>
  );
}

function CancelJob({ job, onCancelled }: { job: ExecutionJob; onCancelled: (job: ExecutionJob) => void }) {
  const cancel = useCancelJob(job.jobId, { onSuccess: onCancelled });
  return (
    <>
      <Button variant="outline" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
        <BanIcon /> {cancel.isPending ? "Cancelling…" : "Cancel job"}
      </Button>
      {cancel.isError && (
        <div className="basis-full">
          <ErrorState title="Could not cancel the job" error={cancel.error} />
        </div>
      )}
    </>
  );
}

export function JobDetail({
  initial,
  initialLogs,
  moreLogs,
  credits,
  serviceName,
  deliveries,
}: {
  initial: JobSnapshot;
  /** The log's first page; `moreLogs` when lines follow it (the page reads them). */
  initialLogs: ExecutionLog[];
  moreLogs: boolean;
  /** The job's ledger entries, read on the server (read again when the job ends while watched). */
  credits: CreditEntry[];
  serviceName: string;
  /** The job's webhook deliveries, where the webhooks feature provides them; nothing is rendered without. */
  deliveries?: React.ReactNode;
}) {
  const router = useRouter();
  const live = useLiveJob(initial, initialLogs, { onFinal: () => router.refresh(), moreLogs });
  const { job, events, logs } = live;
  const phase = phaseOf(job);
  const isFinal = isFinalPhase(phase);
  const now = useNow(!isFinal) ?? Date.parse(job.updatedAt);
  const spans = phaseSpans(events);
  const times = queueAndRunTime(job, now);
  const nodeNames = Object.fromEntries(
    events
      .filter((e) => e.type === "NODE_ASSIGNED" && e.nodeId)
      .map((e) => [e.nodeId as string, String(e.data?.name ?? e.nodeId)]),
  );
  const charged = credits.filter((c) => c.type === "charge").reduce((sum, c) => sum + c.amount, 0);
  const refunded = credits.filter((c) => c.type === "refund").reduce((sum, c) => sum + c.amount, 0);

  return (
    <div className="grid grid-cols-1 gap-6">
      <header className="grid grid-cols-1 gap-4 border-b pb-5">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
          <h1 className="text-2xl font-semibold tracking-tight">{serviceName}</h1>
          {/* The status, once: the phase (a cancelled job's status is failed; the page says cancelled). */}
          <p>
            <span className="sr-only">Status: </span>
            <JobStatusBadge status={phase} data-testid="job-status" />
          </p>
          <LiveIndicator mode={live.mode} />
        </div>
        <dl className="grid grid-cols-1 gap-2 text-sm sm:grid-cols-2">
          <div className="flex min-w-0 items-center gap-2">
            <dt className="shrink-0 text-muted-foreground">Job</dt>
            <dd className="flex min-w-0 items-center gap-2">
              <span className="truncate font-mono text-xs" title={job.jobId}>
                {job.jobId}
              </span>
              <CopyButton value={job.jobId} label="Copy job id" size="sm" variant="ghost" />
            </dd>
          </div>
          <div className="flex min-w-0 items-center gap-2">
            <dt className="shrink-0 text-muted-foreground">Workflow run</dt>
            <dd className="flex min-w-0 items-center gap-2">
              <span className="truncate font-mono text-xs" title={job.workflowRunId}>
                {job.workflowRunId}
              </span>
              <CopyButton value={job.workflowRunId} label="Copy workflow run id" size="sm" variant="ghost" />
            </dd>
          </div>
        </dl>
        <div className="flex flex-wrap gap-2">
          {/* While the job moves the one action is to stop it; Run again comes once it has ended. */}
          {isFinal ? (
            <Button asChild variant="outline">
              <Link href={`/services/${encodeURIComponent(job.serviceId)}?from=${encodeURIComponent(job.jobId)}`}>
                <RotateCcwIcon /> Run again
              </Link>
            </Button>
          ) : (
            <CancelJob job={job} onCancelled={live.applyJob} />
          )}
        </div>
      </header>

      <Card className="grid grid-cols-1 gap-5 p-5">
        <LifecycleStepper spans={spans} now={now} />
        <div className="grid gap-1">
          <div className="flex justify-between text-xs text-muted-foreground">
            <span>Progress</span>
            <span className="tabular-nums">{job.progress}%</span>
          </div>
          <Progress value={job.progress} aria-label="Job progress" />
        </div>
        <dl className="grid grid-cols-2 gap-4 sm:grid-cols-4">
          <Stat label="Created">{formatDateTime(job.createdAt)}</Stat>
          <Stat label="Completed">{formatDateTime(job.completedAt)}</Stat>
          <Stat label="Queue time">{formatDuration(times.queueMs)}</Stat>
          <Stat label="Run time">{formatDuration(times.runMs)}</Stat>
          <Stat label="Total">{formatDuration(times.totalMs)}</Stat>
          <Stat label="Attempt">
            {job.attempt} of {job.maxAttempts}
          </Stat>
          <Stat label="Node">
            {job.assignedNode ? (
              <span title={`${job.assignedNode.nodeId} · since ${job.assignedNode.assignedAt}`}>
                {job.assignedNode.name} · {job.assignedNode.region} · since {clockTime(job.assignedNode.assignedAt)}
              </span>
            ) : (
              "not assigned"
            )}
          </Stat>
          <Stat label="Placement">
            {job.placement === "own"
              ? "Your own nodes"
              : job.placement === "network"
                ? "The network's nodes"
                : "Any node"}
          </Stat>
          <Stat label="Credits">
            <span data-testid="job-credits">
              {formatCredits(-charged)} charged
              {refunded !== 0 && <>, refunded {formatCredits(refunded)}</>}
            </span>
          </Stat>
        </dl>
      </Card>

      {job.result && <JobResult job={job} />}
      {job.status === "completed" && <JobReceipt job={job} />}
      {job.error && <JobFailure job={job} events={events} credits={credits} nodeNames={nodeNames} />}

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <section aria-labelledby="events-heading" className="grid grid-cols-1 content-start gap-2">
          <h2 id="events-heading" className="text-base font-semibold">
            Events <span className="text-sm font-normal text-muted-foreground">({events.length})</span>
          </h2>
          <EventTimeline events={events} nodeNames={nodeNames} />
        </section>
        <LogConsole logs={logs} isLive={!isFinal} />
      </div>

      <details className="rounded-lg border p-4 text-sm">
        <summary className="cursor-pointer font-medium">Input</summary>
        <pre tabIndex={0} className="mt-2 max-h-72 overflow-auto font-mono text-xs whitespace-pre-wrap break-all">
          {JSON.stringify(
            job.input,
            (_key, value) =>
              typeof value === "string" && value.length > 2000
                ? `${value.slice(0, 2000)}… (${value.length} characters)`
                : value,
            2,
          )}
        </pre>
      </details>

      {deliveries}
    </div>
  );
}
