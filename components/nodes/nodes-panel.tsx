"use client";

// The Nodes page: the developer's own nodes first, with what they are doing and did in the last day, then the
// network's nodes; refreshed every few seconds. Names, regions and services are shown as text.
import { ServerIcon } from "lucide-react";
import { useNodesOverview } from "@/components/data/nodes";
import { useProfile } from "@/components/data/profile";
import type { ExecutionService, NetworkNode, NodesOverview, OwnNodeActivity } from "@/components/data/types";
import { formatDateTime, formatNumber } from "@/components/dashboard/format";
import { EmptyState, ErrorState } from "@/components/dashboard/states";
import { ProfileRequired } from "@/components/profile/profile-required";
import { CodeBadges } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { AddNodeDialog } from "./add-node-dialog";
import { NodeStateBadge } from "./node-state-badge";
import { RevokeNodeDialog } from "./revoke-node-dialog";
import { RotateNodeDialog } from "./rotate-node-dialog";

const formatMs = (ms: number) => (ms < 1000 ? `${formatNumber(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

function Capacity({ node }: { node: Pick<NetworkNode, "runningJobs" | "concurrency"> }) {
  return (
    <span className="tabular-nums">
      {node.runningJobs} / {node.concurrency}
    </span>
  );
}

function OwnNodesTable({ nodes }: { nodes: OwnNodeActivity[] }) {
  return (
    <Card className="py-0">
      <Table stackOnPhone aria-label="Your nodes">
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>Name</TableHead>
            <TableHead>State</TableHead>
            <TableHead>Services</TableHead>
            <TableHead>Running</TableHead>
            <TableHead>Last 24 h</TableHead>
            <TableHead>Median run</TableHead>
            <TableHead>Last heartbeat</TableHead>
            <TableHead className="text-right">
              <span className="sr-only">Actions</span>
            </TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {nodes.map((node) => (
            <TableRow key={node.nodeId} className={node.revokedAt ? "text-muted-foreground" : undefined}>
              <TableCell className="font-medium max-md:basis-full">
                {node.name}
                <p className="text-xs font-normal text-muted-foreground">{node.region}</p>
              </TableCell>
              <TableCell>
                <NodeStateBadge state={node.state} />
              </TableCell>
              <TableCell>
                <CodeBadges values={node.serviceIds} />
              </TableCell>
              <TableCell>
                <Capacity node={node} />
              </TableCell>
              <TableCell className="whitespace-nowrap tabular-nums">
                {node.completedLast24h} completed · {node.failedLast24h} failed
              </TableCell>
              <TableCell className="text-xs">
                {node.medianRunMsByService.length === 0
                  ? "—"
                  : node.medianRunMsByService.map((s) => (
                      <div key={s.serviceId}>
                        <span className="font-mono">{s.serviceId}</span> {formatMs(s.medianRunMs)}
                      </div>
                    ))}
              </TableCell>
              <TableCell className="whitespace-nowrap">{formatDateTime(node.lastHeartbeatAt, "Never")}</TableCell>
              <TableCell className="max-md:basis-full">
                {!node.revokedAt && (
                  <div className="flex gap-1 md:justify-end">
                    <RotateNodeDialog node={node} />
                    <RevokeNodeDialog node={node} />
                  </div>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Card>
  );
}

function NetworkNodesTable({ nodes }: { nodes: NetworkNode[] }) {
  return (
    <Card className="py-0">
      <Table stackOnPhone aria-label="Network nodes">
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead>Name</TableHead>
            <TableHead>Region</TableHead>
            <TableHead>State</TableHead>
            <TableHead>Services</TableHead>
            <TableHead>Capacity in use</TableHead>
            <TableHead>Last heartbeat</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {nodes.map((node) => (
            <TableRow key={node.nodeId}>
              <TableCell className="font-medium">{node.name}</TableCell>
              <TableCell>{node.region}</TableCell>
              <TableCell>
                <NodeStateBadge state={node.state} />
              </TableCell>
              <TableCell>
                <CodeBadges values={node.serviceIds} />
              </TableCell>
              <TableCell>
                <Capacity node={node} />
              </TableCell>
              <TableCell className="whitespace-nowrap">{formatDateTime(node.lastHeartbeatAt, "Never")}</TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Card>
  );
}

export function NodesPanel({
  initial,
  services,
  suggestedProfileName,
}: {
  initial: NodesOverview;
  services: Pick<ExecutionService, "serviceId" | "name" | "status">[];
  suggestedProfileName: string;
}) {
  const hasProfile = useProfile().data != null;
  const overview = useNodesOverview(initial);
  if (!hasProfile) return <ProfileRequired what="Nodes" suggestedName={suggestedProfileName} />;
  if (overview.isError && !overview.data)
    return <ErrorState title="Could not load the nodes" error={overview.error} onRetry={() => overview.refetch()} />;
  const { own, network } = overview.data ?? initial;
  return (
    <div className="flex flex-col gap-8">
      <section aria-labelledby="own-nodes" className="flex flex-col gap-4">
        <div className="flex items-center justify-between gap-4">
          <h2 id="own-nodes" className="text-base font-semibold">
            Your nodes
          </h2>
          <AddNodeDialog services={services} />
        </div>
        {own.length === 0 ? (
          <EmptyState
            icon={ServerIcon}
            title="No nodes of your own yet"
            description="Add a machine of yours and run your jobs on it: it takes only your jobs, and jobs on it cost less."
          />
        ) : (
          <OwnNodesTable nodes={own} />
        )}
      </section>
      <section aria-labelledby="network-nodes" className="flex flex-col gap-4">
        <h2 id="network-nodes" className="text-base font-semibold">
          The network&apos;s nodes
        </h2>
        {network.length === 0 ? (
          <p className="text-sm text-muted-foreground">No network node has been seen in the last hour.</p>
        ) : (
          <NetworkNodesTable nodes={network} />
        )}
      </section>
    </div>
  );
}
