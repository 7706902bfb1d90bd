import type { Metadata } from "next";
import { headers } from "next/headers";
import { PageHeader } from "@/components/dashboard/page-header";
import { OverviewStats } from "@/components/overview/overview-stats";
import { Quickstart } from "@/components/overview/quickstart";

export const metadata: Metadata = { title: "Overview" };

async function requestOrigin(): Promise<string> {
  const h = await headers();
  const host = h.get("x-forwarded-host") ?? h.get("host") ?? "localhost:3000";
  const proto = h.get("x-forwarded-proto") ?? (host.startsWith("localhost") || host.startsWith("127.") ? "http" : "https");
  return `${proto}://${host}`;
}

export default async function OverviewPage() {
  return (
    <>
      <PageHeader title="Overview" description="Your credits, keys and jobs at a glance." />
      <OverviewStats />
      <Quickstart origin={await requestOrigin()} />
    </>
  );
}
