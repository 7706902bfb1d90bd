// A failed job explained: one sentence built from its events, the category and code, the message, what to
// do next and the refund. The region is named "Failure" (CONTRACT §9).
import Link from "next/link";
import type { CreditEntry, ExecutionJob, TelemetryEvent } from "@/components/data/types";
import { formatCredits } from "@/components/dashboard/format";
import { phaseOf } from "@/components/timeline/lifecycle";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";

const nextSteps: Record<string, string> = {
  CANCELLED: "You cancelled this job. Run it again whenever you need the result.",
  INVALID_IMAGE: "Send an image that opens in an image viewer: a PNG or JPEG, whole, as base64 or a data: URL.",
  NO_ELIGIBLE_NODE:
    "No execution node could take the job in time. Check the service's status on the Services page, then run it again.",
  NODE_LOST: "The nodes running the job stopped answering on every attempt. Running it again usually works.",
};
/** A job placed on the developer's own nodes that none of them took in time (CONTRACT §12: a routing failure). */
const isOwnNodesUnavailable = (job: ExecutionJob) => job.placement === "own" && job.error?.category === "routing";

const ownNodesNextStep = (
  <>
    Start a node of yours that runs this service (
    <Link href="/nodes" className="font-medium underline underline-offset-2">
      Nodes
    </Link>{" "}
    shows which are live) and run the job again, or run it on any node.
  </>
);

const nextStepByCategory: Record<NonNullable<ExecutionJob["error"]>["category"], string> = {
  validation: "Fix the input the message points at and run the job again.",
  routing: "No execution node could take the job. Run it again in a moment.",
  runtime:
    "The service failed while running the job. Running it again may help; if it keeps failing, quote the job id and request id to support.",
};

/**
 * "Attempt 1 failed on node-a; the node stopped answering once; failed: INVALID_IMAGE." A cancelled job ends
 * with its cancellation ("Cancelled while queued."): nothing failed.
 */
function explain(job: ExecutionJob, events: TelemetryEvent[], nodeNames: Record<string, string>): string {
  const parts: string[] = [];
  for (const e of events) {
    const node = e.nodeId ? (nodeNames[e.nodeId] ?? e.nodeId.slice(0, 8)) : null;
    if (e.type === "EXECUTION_FAILED") parts.push(`attempt ${e.attempt} failed${node ? ` on ${node}` : ""}`);
    else if (e.type === "NODE_LOST") parts.push(`${node ?? "the node"} stopped answering during attempt ${e.attempt}`);
    else if (e.type === "RETRY_SCHEDULED") parts.push("retried");
    else if (e.type === "ROUTING_FAILED")
      parts.push(
        isOwnNodesUnavailable(job) ? "none of your nodes was live to take it" : "no node could take it in time",
      );
    else if (e.type === "JOB_CANCELLED") parts.push(`cancelled while ${String(e.data?.previousStatus ?? "waiting")}`);
  }
  const isCancelled = phaseOf(job) === "cancelled";
  const sentence =
    isCancelled && parts.length
      ? `${parts.join("; ")}.`
      : `${parts.length ? `${parts.join("; ")}; ` : ""}${isCancelled ? "cancelled" : `failed: ${job.error?.code ?? "UNKNOWN"}`}.`;
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

export function JobFailure({
  job,
  events,
  credits,
  nodeNames,
}: {
  job: ExecutionJob;
  events: TelemetryEvent[];
  credits: CreditEntry[];
  nodeNames: Record<string, string>;
}) {
  const error = job.error;
  if (!error) return null;
  const refund = credits.find((c) => c.type === "refund");
  // A cancellation is the owner's choice: told in neutral colours, under its own heading (the region keeps
  // the contract's name, CONTRACT §9).
  const isCancelled = phaseOf(job) === "cancelled";
  return (
    <section
      aria-label="Failure"
      className={cn(
        "grid grid-cols-1 gap-3 rounded-xl border p-5",
        isCancelled ? "bg-muted/40" : "border-destructive/40 bg-destructive/5",
      )}
    >
      <div className="flex flex-wrap items-center gap-2">
        <h2 className={cn("mr-auto text-base font-semibold", !isCancelled && "text-destructive")}>
          {isCancelled ? "Cancelled" : "Failure"}
        </h2>
        {!isCancelled && <Badge variant="outline">{error.category}</Badge>}
        <Badge variant={isCancelled ? "muted" : "destructive"} className="font-mono">
          {error.code}
        </Badge>
      </div>
      <p className="text-sm font-medium">{explain(job, events, nodeNames)}</p>
      <p className="text-sm">{error.message}</p>
      <div className="grid gap-1 text-sm">
        <p>
          <span className="font-medium">What to do next: </span>
          {isOwnNodesUnavailable(job)
            ? ownNodesNextStep
            : (nextSteps[error.code] ?? nextStepByCategory[error.category])}
        </p>
        <p data-testid="job-refund">
          <span className="font-medium">Refund: </span>
          {refund ? (
            <>
              refunded {formatCredits(refund.amount)} to your balance{" "}
              <Link href="/credits" className="underline underline-offset-2">
                (credit history)
              </Link>
            </>
          ) : job.creditCost === 0 ? (
            "nothing was charged."
          ) : (
            "on its way to your balance."
          )}
        </p>
      </div>
    </section>
  );
}
