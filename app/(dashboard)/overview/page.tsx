import type { Metadata } from "next";
import { requireSession } from "@/lib/http/page-session";
import { PageHeader } from "@/components/dashboard/page-header";
import { OverviewStats } from "@/components/overview/overview-stats";
import { Quickstart, type QuickstartStep } from "@/components/overview/quickstart";
import { RecentJobs } from "@/components/overview/recent-jobs";
import { findProfile } from "@/lib/domain/accounts";
import { listApiKeys } from "@/lib/domain/api-keys";
import { getCreditBalance } from "@/lib/domain/credits";
import { listJobs } from "@/lib/engine/job-views";
import { listServices } from "@/lib/domain/services";
import { getUsageSummary } from "@/lib/domain/usage";
import { appOrigins } from "@/lib/env";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  const session = await requireSession();
  const { accountId } = session;
  const profile = await findProfile(accountId);
  const [balance, keys, jobs, usage, services] = await Promise.all([
    getCreditBalance(accountId),
    profile ? listApiKeys(accountId) : null,
    listJobs(accountId, { page: 1, limit: 5 }),
    getUsageSummary(accountId, {}),
    listServices(),
  ]);
  // A key of the developer's own (not the playground's) that has been used: their code called the API.
  const ownKeys = keys?.filter((k) => k.kind !== "dashboard") ?? [];
  const steps: QuickstartStep[] = [
    { title: "Create your profile", href: "/profile", isDone: profile !== null },
    { title: "Run a service from its page", href: "/services", isDone: jobs.pagination.total > 0 },
    { title: "Create an API key with the services:execute scope", href: "/keys", isDone: ownKeys.length > 0 },
    { title: "Submit a job from your code", href: "/keys", isDone: ownKeys.some((k) => k.lastUsedAt !== null) },
  ];
  const serviceNames = Object.fromEntries(services.map((s) => [s.serviceId, s.name]));
  return (
    <>
      <PageHeader title="Overview" description="Your credits, keys and jobs at a glance." />
      <OverviewStats balance={balance} keys={keys} usage={usage} />
      {jobs.data.length > 0 && <RecentJobs jobs={jobs.data} serviceNames={serviceNames} />}
      {/* The configured origin, never the request's Host or X-Forwarded-* headers. */}
      {steps.some((s) => !s.isDone) && <Quickstart origin={appOrigins()[0]} steps={steps} />}
    </>
  );
}
