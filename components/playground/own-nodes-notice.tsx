"use client";

// Before a Run placed on the developer's own nodes (CONTRACT §12): whether one of them is live and runs this
// service. With none, the job would wait out the routing timeout and fail; say so while there is time to
// start one. Followed live, since a node that starts shows live within seconds.
import Link from "next/link";
import { ServerOffIcon } from "lucide-react";
import { useOwnNodes } from "@/components/data/nodes";
import type { Node } from "@/components/data/types";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";

/** Why no node of the developer's can take a job of `serviceId` now, or null when one can. */
export function ownNodesProblem(nodes: Node[], serviceId: string): string | null {
  const live = nodes.filter((n) => n.state === "live");
  if (live.length === 0) return "None of your nodes is live";
  return live.some((n) => n.serviceIds.includes(serviceId)) ? null : "None of your live nodes runs this service";
}

export function OwnNodesNotice({ serviceId }: { serviceId: string }) {
  const { data } = useOwnNodes();
  const problem = data ? ownNodesProblem(data.data, serviceId) : null;
  if (!problem) return null;
  return (
    <Alert variant="warning">
      <ServerOffIcon />
      <AlertTitle>{problem}</AlertTitle>
      <AlertDescription>
        <p>
          A job on your own nodes waits for one that is live and runs this service; if none takes it in time it fails
          and is refunded. Start one from{" "}
          <Link href="/nodes" className="font-medium underline underline-offset-2">
            Nodes
          </Link>
          , or run it on any node.
        </p>
      </AlertDescription>
    </Alert>
  );
}
