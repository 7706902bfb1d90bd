import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentSession } from "@/lib/http/page-session";
import { PageHeader } from "@/components/dashboard/page-header";
import { jobFiltersApiQuery, jobsPageSize, parseJobFilters } from "@/components/jobs/job-filters";
import { JobsList } from "@/components/jobs/jobs-list";
import { ListJobsQuery } from "@/lib/contract/schemas";
import { listJobs } from "@/lib/engine/job-views";
import { listServices } from "@/lib/domain/services";

export const metadata: Metadata = { title: "Jobs" };

export default async function JobsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const session = await currentSession();
  if (!session) redirect("/sign-in");
  // The first page is read here for the URL's filters, read the way the list reads them in the browser,
  // which then keeps it moving (jobs change while you look) and reads the pages the filters lead to.
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(await searchParams)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) params.set(name, first);
  }
  const query = jobFiltersApiQuery(parseJobFilters(params), jobsPageSize);
  const parsed = ListJobsQuery.safeParse(Object.fromEntries(new URLSearchParams(query)));
  const [services, list] = await Promise.all([
    listServices(),
    parsed.success ? listJobs(session.accountId, parsed.data) : undefined,
  ]);
  return (
    <>
      <PageHeader
        title="Jobs"
        description="Every job your keys and the dashboard submitted, newest first. Active jobs refresh on their own."
      />
      <JobsList
        services={services.map(({ serviceId, name }) => ({ serviceId, name }))}
        initial={list && { query, list }}
      />
    </>
  );
}
