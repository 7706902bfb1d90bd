// Every telemetry event in sequence order: its time (UTC, ms, tabular digits; the date only when it
// changes), the gap since the previous event, the node, a marker where a new attempt begins, and the
// payload folded until opened. The list is named "Timeline" (CONTRACT §9).
import type { TelemetryEvent } from "@/components/data/types";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";
import { clockTime, formatGap, utcDate } from "./time";

const eventTone: Partial<Record<TelemetryEvent["type"], string>> = {
  EXECUTION_COMPLETED: "text-success",
  RESULT_STORED: "text-success",
  EXECUTION_FAILED: "text-destructive",
  JOB_FAILED: "text-destructive",
  ROUTING_FAILED: "text-destructive",
  // Cancelling is the owner's choice, not a fault.
  JOB_CANCELLED: "text-muted-foreground",
  NODE_LOST: "text-warning",
  RETRY_SCHEDULED: "text-warning",
};

export function EventTimeline({ events, nodeNames }: { events: TelemetryEvent[]; nodeNames: Record<string, string> }) {
  return (
    <ol aria-label="Timeline" className="grid gap-0">
      {events.map((event, index) => {
        const previous = events[index - 1];
        const isNewAttempt = previous !== undefined && event.attempt !== previous.attempt && event.attempt > 0;
        const isNewDate = previous === undefined || utcDate(previous.timestamp) !== utcDate(event.timestamp);
        const gap = previous ? Date.parse(event.timestamp) - Date.parse(previous.timestamp) : null;
        const node = event.nodeId ? (nodeNames[event.nodeId] ?? event.nodeId.slice(0, 8)) : null;
        return (
          <li
            key={event.sequence}
            className={cn("grid gap-1 border-l py-2 pl-4", isNewAttempt && "mt-2 border-t pt-3")}
          >
            {isNewAttempt && <span className="text-xs font-medium text-muted-foreground">Attempt {event.attempt}</span>}
            <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
              <time
                dateTime={event.timestamp}
                title={event.timestamp}
                className="font-mono text-xs text-muted-foreground tabular-nums"
              >
                {isNewDate && `${utcDate(event.timestamp)} `}
                {clockTime(event.timestamp)}
              </time>
              <span className={cn("font-mono text-sm font-medium break-all", eventTone[event.type])}>{event.type}</span>
              {gap !== null && (
                <span className="font-mono text-xs text-muted-foreground tabular-nums">{formatGap(gap)}</span>
              )}
              {node && (
                <Badge variant="outline" className="font-mono" title={event.nodeId}>
                  {node}
                </Badge>
              )}
            </div>
            {event.data && Object.keys(event.data).length > 0 && (
              <details className="text-xs">
                <summary className="w-fit cursor-pointer rounded text-muted-foreground outline-none hover:text-foreground focus-visible:ring-[3px] focus-visible:ring-ring/50">
                  data
                </summary>
                <pre
                  className="mt-1 overflow-x-auto rounded-md bg-muted p-2 font-mono whitespace-pre-wrap break-all"
                  tabIndex={0}
                >
                  {JSON.stringify(event.data, null, 2)}
                </pre>
              </details>
            )}
          </li>
        );
      })}
    </ol>
  );
}
