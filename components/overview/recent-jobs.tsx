// The last few jobs on the overview, each linking to its page.
import Link from "next/link";
import { ArrowRightIcon } from "lucide-react";
import type { ExecutionJob } from "@/components/data/types";
import { formatCredits, formatDateTime } from "@/components/dashboard/format";
import { JobStatusBadge } from "@/components/jobs/job-status-badge";
import { phaseOf } from "@/components/timeline/lifecycle";
import { Card } from "@/components/ui/card";

export function RecentJobs({ jobs, serviceNames }: { jobs: ExecutionJob[]; serviceNames: Record<string, string> }) {
  return (
    <section aria-labelledby="recent-jobs-heading" className="grid grid-cols-1 gap-3">
      <div className="flex items-baseline justify-between gap-3">
        <h2 id="recent-jobs-heading" className="text-base font-semibold">
          Recent jobs
        </h2>
        <Link href="/jobs" className="inline-flex items-center gap-1 text-sm font-medium hover:underline">
          All jobs <ArrowRightIcon className="size-3" aria-hidden />
        </Link>
      </div>
      <Card className="gap-0 py-0">
        <ul className="divide-y">
          {jobs.map((job) => (
            <li key={job.jobId}>
              <Link
                href={`/jobs/${job.jobId}`}
                className="flex flex-wrap items-center gap-x-3 gap-y-1 px-4 py-3 text-sm outline-none hover:bg-muted/40 focus-visible:ring-[3px] focus-visible:ring-ring/50"
              >
                <span className="min-w-0 flex-1 font-medium">
                  {serviceNames[job.serviceId] ?? job.serviceId}{" "}
                  <span className="font-mono text-xs font-normal text-muted-foreground">{job.jobId.slice(0, 8)}</span>
                </span>
                <JobStatusBadge status={phaseOf(job)} />
                <span className="text-xs text-muted-foreground tabular-nums">{formatCredits(job.creditCost)}</span>
                <span className="basis-full text-xs text-muted-foreground sm:basis-auto">
                  {formatDateTime(job.createdAt)}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      </Card>
    </section>
  );
}
