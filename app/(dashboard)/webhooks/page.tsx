import type { Metadata } from "next";
import { requireSession } from "@/lib/http/page-session";
import { findProfile } from "@/lib/domain/accounts";
import { suggestedProfileName } from "@/components/dashboard/format";
import { WithProfile } from "@/components/profile/with-profile";
import { PageHeader } from "@/components/dashboard/page-header";
import { WebhooksPanel } from "@/components/webhooks/webhooks-panel";

export const metadata: Metadata = { title: "Webhooks" };

export default async function WebhooksPage() {
  const session = await requireSession();
  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Job changes pushed to your endpoints, signed the Standard Webhooks way, retried for 24 hours, replayable here."
      />
      <WithProfile profile={await findProfile(session.accountId)}>
        <WebhooksPanel suggestedProfileName={suggestedProfileName(session.address)} />
      </WithProfile>
    </>
  );
}
