"use client";

// Rotating a node's token, asked for first: the running node stops being able to call in at once, so it
// must be restarted with the new token, shown here once.
import { RefreshCwIcon } from "lucide-react";
import { useRotateNodeToken } from "@/components/data/nodes";
import type { Node } from "@/components/data/types";
import { DoneFooter, ResourceDialog, ResourceDialogHeader, ResourceForm } from "@/components/resource/resource-dialog";
import { Button } from "@/components/ui/button";
import { NodeTokenReveal } from "./node-token-reveal";

export function RotateNodeDialog({ node, origin }: { node: Node; origin: string }) {
  const rotate = useRotateNodeToken();
  const rotated = rotate.data ?? null;

  return (
    <ResourceDialog
      trigger={
        <Button variant="outline" size="sm">
          <RefreshCwIcon /> Rotate token
        </Button>
      }
      secret={rotated?.token ?? null}
      secretName="node token"
      isBusy={rotate.isPending}
      onClosed={() => rotate.reset()}
      className="sm:max-w-xl"
    >
      {rotated ? (
        <>
          <ResourceDialogHeader title="New node token" description="Restart the node with this command." />
          <NodeTokenReveal node={rotated} origin={origin} />
          <DoneFooter />
        </>
      ) : (
        <ResourceForm
          title={<>Rotate the token of “{node.name}”?</>}
          description="The current token stops working at once: the node can no longer report, and its running jobs are routed again once its lease runs out."
          onSubmit={() => rotate.mutate(node.nodeId)}
          submitLabel="Rotate token"
          requestError={rotate.error}
          errorTitle="Could not rotate the token"
          isPending={rotate.isPending}
        />
      )}
    </ResourceDialog>
  );
}
