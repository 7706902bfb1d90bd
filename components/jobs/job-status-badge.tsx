import type { Phase } from "@/components/timeline/lifecycle";
import { Badge, type BadgeVariant } from "@/components/ui/badge";

const variants: Record<Phase, BadgeVariant> = {
  queued: "muted",
  routing: "info",
  assigned: "info",
  running: "info",
  retrying: "warning",
  completed: "success",
  failed: "destructive",
  cancelled: "muted",
};

/** A job's status (or its page's phase, which adds cancelled) as a coloured badge. */
export function JobStatusBadge({
  status,
  ...props
}: { status: Phase } & Omit<React.ComponentProps<typeof Badge>, "variant" | "children">) {
  return (
    <Badge variant={variants[status]} {...props}>
      {status}
    </Badge>
  );
}
