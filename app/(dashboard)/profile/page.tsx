import type { Metadata } from "next";
import { PageHeader } from "@/components/dashboard/page-header";
import { ProfilePanel } from "@/components/profile/profile-panel";

export const metadata: Metadata = { title: "Profile" };

export default function ProfilePage() {
  return (
    <>
      <PageHeader title="Profile" description="Who you are on Execution Network. Keys, jobs and credits belong to this profile's wallet." />
      <ProfilePanel />
    </>
  );
}
