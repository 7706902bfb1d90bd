import type { Metadata } from "next";
import { requireSession } from "@/lib/http/page-session";
import { suggestedProfileName } from "@/components/dashboard/format";
import { PageHeader } from "@/components/dashboard/page-header";
import { NodesPanel } from "@/components/nodes/nodes-panel";
import { WithProfile } from "@/components/profile/with-profile";
import { findProfile } from "@/lib/domain/accounts";
import { nodesOverview } from "@/lib/domain/developer-nodes";
import { listServices } from "@/lib/domain/services";
import { appOrigins } from "@/lib/env";

export const metadata: Metadata = { title: "Nodes" };

export default async function NodesPage() {
  const session = await requireSession();
  const [overview, services, profile] = await Promise.all([
    nodesOverview(session.accountId),
    listServices(),
    findProfile(session.accountId),
  ]);
  return (
    <>
      <PageHeader
        title="Nodes"
        description="The machines that run jobs: yours first (they run only your jobs), then the network's. Submit with placement own to run on yours."
      />
      <WithProfile profile={profile}>
        <NodesPanel
          initial={overview}
          services={services.map(({ serviceId, name, status }) => ({ serviceId, name, status }))}
          // The configured origin, never the request's Host or X-Forwarded-* headers.
          origin={appOrigins()[0]}
          suggestedProfileName={suggestedProfileName(session.address)}
        />
      </WithProfile>
    </>
  );
}
