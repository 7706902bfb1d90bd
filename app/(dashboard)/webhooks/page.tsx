import type { Metadata } from "next";
import { PageHeader } from "@/components/dashboard/page-header";
import { WebhooksPanel } from "@/components/webhooks/webhooks-panel";

export const metadata: Metadata = { title: "Webhooks" };

export default function WebhooksPage() {
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Job changes pushed to your endpoints, signed the Standard Webhooks way, retried for 24 hours, replayable here."
      />
      <WebhooksPanel />
    </>
  );
}
