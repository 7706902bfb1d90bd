import type { ExecutionJob } from "@/components/data/types";
import { Badge, type BadgeVariant } from "@/components/ui/badge";

const variants: Record<ExecutionJob["status"], BadgeVariant> = {
  queued: "muted",
  routing: "info",
  assigned: "info",
  running: "info",
  retrying: "warning",
  completed: "success",
  failed: "destructive",
};

export function JobStatusBadge({ status }: { status: ExecutionJob["status"] }) {
  return <Badge variant={variants[status]}>{status}</Badge>;
}
