import type { Metadata } from "next";
import { PageHeader } from "@/components/dashboard/page-header";
import { JobsList } from "@/components/jobs/jobs-list";
import { listServices } from "@/lib/domain/services";

export const metadata: Metadata = { title: "Jobs" };

export default async function JobsPage() {
  // The catalog is read here for the service filter; the jobs themselves move, so the client reads them.
  const services = (await listServices()).map(({ serviceId, name }) => ({ serviceId, name }));
  return (
    <>
      <PageHeader
        title="Jobs"
        description="Every job your keys and the dashboard submitted, newest first. Active jobs refresh on their own."
      />
      <JobsList services={services} />
    </>
  );
}
