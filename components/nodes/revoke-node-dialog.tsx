"use client";

// Revoking a node, asked for in a dialog: its token fails at once and its running jobs go to other nodes.
import { useRevokeNode } from "@/components/data/nodes";
import type { Node } from "@/components/data/types";
import { ConfirmDialog, DangerButton } from "@/components/resource/confirm-dialog";

function runningNow(jobs: number): string {
  if (jobs === 0) return "It is running no job now.";
  if (jobs === 1) return "The job it is running now is routed again as a new attempt, not charged again.";
  return `The ${jobs} jobs it is running now are routed again as new attempts, not charged again.`;
}

export function RevokeNodeDialog({ node }: { node: Node }) {
  const revoke = useRevokeNode();
  return (
    <ConfirmDialog
      trigger={<DangerButton>Revoke</DangerButton>}
      title={<>Revoke “{node.name}”?</>}
      description={<>Its token stops working at once. {runningNow(node.runningJobs)} This cannot be undone.</>}
      confirmLabel="Revoke node"
      onConfirm={() => revoke.mutateAsync(node.nodeId)}
      errorTitle="Could not revoke the node"
    />
  );
}
