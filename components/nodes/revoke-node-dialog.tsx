"use client";

// Revoking a node, asked for in a dialog: its token fails at once and its running jobs go to other nodes.
import { Trash2Icon } from "lucide-react";
import { useRevokeNode } from "@/components/data/nodes";
import type { Node } from "@/components/data/types";
import { ErrorState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import { ConfirmActionDialog } from "@/components/ui/confirm-action-dialog";

export function RevokeNodeDialog({ node }: { node: Node }) {
  const revoke = useRevokeNode();
  return (
    <ConfirmActionDialog
      trigger={
        <Button variant="ghost" size="sm" className="text-destructive hover:bg-destructive/10 hover:text-destructive">
          <Trash2Icon /> Revoke
        </Button>
      }
      title={<>Revoke “{node.name}”?</>}
      description={
        <>
          Its token stops working at once. The {node.runningJobs === 1 ? "job" : "jobs"} it is running now (
          {node.runningJobs}) are routed again as a new attempt, not charged again. This cannot be undone.
        </>
      }
      confirmLabel="Revoke node"
      onConfirm={() => revoke.mutateAsync(node.nodeId)}
      renderError={(error) => <ErrorState title="Could not revoke the node" error={error} />}
    />
  );
}
