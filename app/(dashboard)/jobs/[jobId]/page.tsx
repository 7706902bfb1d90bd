import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requireSession } from "@/lib/http/page-session";
import { JobDetail } from "@/components/jobs/job-detail";
import { JobDeliveries } from "@/components/webhooks/job-deliveries";
import { listJobCreditEntries } from "@/lib/domain/credits";
import { DomainError } from "@/lib/domain/errors";
import { getJobLogs, readJobProgress } from "@/lib/engine/job-views";
import { listServices } from "@/lib/domain/services";
import { limits } from "@/lib/limits";

export const metadata: Metadata = { title: "Job" };

/** The job as its owner sees it; anyone else's job (or none) is the not-found page. */
async function readOwnedJob(accountId: string, jobId: string) {
  try {
    const [progress, logs, credits, services] = await Promise.all([
      readJobProgress(accountId, jobId, 0),
      getJobLogs(accountId, jobId, { after: 0, limit: limits.logPageLimitMax }),
      listJobCreditEntries(accountId, jobId),
      listServices(),
    ]);
    return { progress, logs, credits, services };
  } catch (error) {
    if (error instanceof DomainError && error.code === "JOB_NOT_FOUND") notFound();
    throw error;
  }
}

export default async function JobPage({ params }: { params: Promise<{ jobId: string }> }) {
  const session = await requireSession();
  const { jobId } = await params;
  const { progress, logs, credits, services } = await readOwnedJob(session.accountId, jobId);
  const serviceName = services.find((s) => s.serviceId === progress.job.serviceId)?.name ?? progress.job.serviceId;
  return (
    <JobDetail
      initial={progress}
      initialLogs={logs.lines}
      moreLogs={logs.hasMore}
      credits={credits}
      serviceName={serviceName}
      deliveries={<JobDeliveries jobId={progress.job.jobId} />}
    />
  );
}
