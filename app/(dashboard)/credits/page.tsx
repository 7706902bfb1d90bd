import type { Metadata } from "next";
import { PageHeader } from "@/components/dashboard/page-header";
import { CreditsPanel } from "@/components/credits/credits-panel";

export const metadata: Metadata = { title: "Credits" };

export default function CreditsPage() {
  return (
    <>
      <PageHeader
        title="Credits"
        description="Each job costs its service's credits when it is created; a job that fails is refunded."
      />
      <CreditsPanel />
    </>
  );
}
