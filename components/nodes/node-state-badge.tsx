import type { Node } from "@/components/data/types";
import { Badge, type BadgeVariant } from "@/components/ui/badge";

const looks: Record<Node["state"], { label: string; variant: BadgeVariant }> = {
  pending: { label: "Pending", variant: "muted" },
  live: { label: "Live", variant: "success" },
  draining: { label: "Draining", variant: "warning" },
  offline: { label: "Offline", variant: "muted" },
  lost: { label: "Lost", variant: "destructive" },
  revoked: { label: "Revoked", variant: "muted" },
};

export function NodeStateBadge({ state }: { state: Node["state"] }) {
  const { label, variant } = looks[state];
  return <Badge variant={variant}>{label}</Badge>;
}
