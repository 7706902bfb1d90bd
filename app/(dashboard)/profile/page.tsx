import type { Metadata } from "next";
import { requireSession } from "@/lib/http/page-session";
import { findProfile } from "@/lib/domain/accounts";
import { suggestedProfileName } from "@/components/dashboard/format";
import { WithProfile } from "@/components/profile/with-profile";
import { PageHeader } from "@/components/dashboard/page-header";
import { SignOutButton } from "@/components/dashboard/sign-out-button";
import { ProfilePanel } from "@/components/profile/profile-panel";

export const metadata: Metadata = { title: "Profile" };

export default async function ProfilePage() {
  const session = await requireSession();
  return (
    <>
      <PageHeader
        title="Profile"
        description="Who you are on Execution Network. Keys, jobs and credits belong to this profile's wallet."
      />
      <WithProfile profile={await findProfile(session.accountId)}>
        <ProfilePanel suggestedProfileName={suggestedProfileName(session.address)} />
      </WithProfile>
      <section aria-labelledby="sessions-heading" className="mt-6 grid gap-2">
        <h2 id="sessions-heading" className="text-sm font-medium">
          Sessions
        </h2>
        <p className="text-sm text-muted-foreground">
          Signed in on another device you no longer use? End every session of this wallet.
        </p>
        <SignOutButton everywhere variant="outline" />
      </section>
    </>
  );
}
