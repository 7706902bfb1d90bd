import type { Metadata } from "next";
import { PageHeader } from "@/components/dashboard/page-header";
import { JobsList } from "@/components/jobs/jobs-list";

export const metadata: Metadata = { title: "Jobs" };

export default function JobsPage() {
  return (
    <>
      <PageHeader title="Jobs" description="Every job your keys submitted, newest first. Active jobs refresh on their own." />
      <JobsList />
    </>
  );
}
