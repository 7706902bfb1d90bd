import type { Metadata } from "next";
import { requireSession } from "@/lib/http/page-session";
import { findProfile } from "@/lib/domain/accounts";
import { suggestedProfileName } from "@/components/dashboard/format";
import { WithProfile } from "@/components/profile/with-profile";
import { PageHeader } from "@/components/dashboard/page-header";
import { ApiKeysPanel } from "@/components/keys/api-keys-panel";

export const metadata: Metadata = { title: "API keys" };

export default async function ApiKeysPage() {
  const session = await requireSession();
  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys authenticate your code with the x-api-key header. Scopes limit what each key can do; rotate or revoke a key at any time."
      />
      <WithProfile profile={await findProfile(session.accountId)}>
        <ApiKeysPanel suggestedProfileName={suggestedProfileName(session.address)} />
      </WithProfile>
    </>
  );
}
