import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentSession } from "@/lib/http/page-session";
import { PageHeader } from "@/components/dashboard/page-header";
import { OverviewStats } from "@/components/overview/overview-stats";
import { Quickstart } from "@/components/overview/quickstart";
import { appOrigins } from "@/lib/env";

export const metadata: Metadata = { title: "Overview" };

export default async function OverviewPage() {
  const session = await currentSession();
  if (!session) redirect("/sign-in");
  return (
    <>
      <PageHeader title="Overview" description="Your credits, keys and jobs at a glance." />
      <OverviewStats accountId={session.accountId} />
      {/* The configured origin, never the request's Host or X-Forwarded-* headers. */}
      <Quickstart origin={appOrigins()[0]} />
    </>
  );
}
