"use client";

// The Nodes page: the developer's own nodes first, with what they are doing and did in the last day, then the
// network's nodes; refreshed every few seconds. Names, regions and services are shown as text.
import { ServerIcon } from "lucide-react";
import { useNodesOverview } from "@/components/data/nodes";
import { useProfile } from "@/components/data/profile";
import type { ExecutionService, NetworkNode, NodesOverview, OwnNodeActivity } from "@/components/data/types";
import { formatDateTime, formatNumber } from "@/components/dashboard/format";
import { ProfileRequired } from "@/components/profile/profile-required";
import { ActionsCell, ActionsHead, ResourceList, ResourceTable } from "@/components/resource/resource-list";
import { CodeBadges } from "@/components/ui/badge";
import { CommandBlock } from "@/components/ui/command-block";
import { TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { nodeStartParts } from "@/lib/contract/node-command";
import { AddNodeDialog } from "./add-node-dialog";
import { NodeStateBadge } from "./node-state-badge";
import { RevokeNodeDialog } from "./revoke-node-dialog";
import { RotateNodeDialog } from "./rotate-node-dialog";

const formatMs = (ms: number) => (ms < 1000 ? `${formatNumber(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

/** What every node's row shows, whoever owns it: its state, its services and how busy it is. */
function NodeCells({ node }: { node: Pick<NetworkNode, "state" | "serviceIds" | "runningJobs" | "concurrency"> }) {
  return (
    <>
      <TableCell>
        <NodeStateBadge state={node.state} />
      </TableCell>
      <TableCell>
        <CodeBadges values={node.serviceIds} />
      </TableCell>
      <TableCell>
        <span className="tabular-nums">
          {node.runningJobs} / {node.concurrency}
        </span>
      </TableCell>
    </>
  );
}

function OwnNodesTable({ nodes, origin }: { nodes: OwnNodeActivity[]; origin: string }) {
  return (
    <ResourceTable label="Your nodes">
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead>Name</TableHead>
          <TableHead>State</TableHead>
          <TableHead>Services</TableHead>
          <TableHead>Running</TableHead>
          <TableHead>Last 24 h</TableHead>
          <TableHead>Median run</TableHead>
          <TableHead>Last heartbeat</TableHead>
          <ActionsHead />
        </TableRow>
      </TableHeader>
      <TableBody>
        {nodes.map((node) => (
          <TableRow key={node.nodeId} className={node.revokedAt ? "text-muted-foreground" : undefined}>
            <TableCell className="font-medium max-md:basis-full">
              {node.name}
              <p className="text-xs font-normal text-muted-foreground">{node.region}</p>
            </TableCell>
            <NodeCells node={node} />
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
            <ActionsCell>
              {!node.revokedAt && (
                <>
                  <RotateNodeDialog node={node} origin={origin} />
                  <RevokeNodeDialog node={node} />
                </>
              )}
            </ActionsCell>
          </TableRow>
        ))}
      </TableBody>
    </ResourceTable>
  );
}

function NetworkNodesTable({ nodes }: { nodes: NetworkNode[] }) {
  return (
    <ResourceTable label="Network nodes">
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
            <NodeCells node={node} />
            <TableCell className="whitespace-nowrap">{formatDateTime(node.lastHeartbeatAt, "Never")}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </ResourceTable>
  );
}

export function NodesPanel({
  initial,
  services,
  origin,
  suggestedProfileName,
}: {
  initial: NodesOverview;
  services: Pick<ExecutionService, "serviceId" | "name" | "status">[];
  /** The deployment's address, which a node is started against. */
  origin: string;
  suggestedProfileName: string;
}) {
  const hasProfile = useProfile().data != null;
  const overview = useNodesOverview(initial);
  if (!hasProfile) return <ProfileRequired what="Nodes" suggestedName={suggestedProfileName} />;
  const { own, network } = overview.data ?? initial;
  return (
    <div className="flex flex-col gap-8">
      <ResourceList
        title="Your nodes"
        action={<AddNodeDialog services={services} origin={origin} />}
        notice={
          <div className="grid gap-2 text-sm text-muted-foreground">
            <p>A node runs on any machine with Node.js. Add one here for its token, then start it with:</p>
            <CommandBlock
              parts={nodeStartParts({ url: origin, token: "node_…" })}
              label="Node start command"
              copyWhat="node start command"
            />
          </div>
        }
        items={own}
        error={overview.error}
        onRetry={() => overview.refetch()}
        errorTitle="Could not load the nodes"
        empty={{
          icon: ServerIcon,
          title: "No nodes of your own yet",
          description:
            "Add a machine of yours and run your jobs on it: it takes only your jobs, and jobs on it cost less.",
        }}
      >
        {(nodes) => <OwnNodesTable nodes={nodes} origin={origin} />}
      </ResourceList>
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
