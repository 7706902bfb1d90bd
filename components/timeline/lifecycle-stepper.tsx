// The lifecycle as dots on a line: every phase the job went through with how long it took, a live timer on
// the one in progress, and the phases still ahead of a job that is moving (greyed).
import { CheckIcon, CircleDotIcon, CircleIcon, RotateCwIcon, XIcon } from "lucide-react";
import { cn } from "@/components/ui/cn";
import { happyPath, isFinalPhase, type Phase, type PhaseSpan } from "./lifecycle";
import { formatDuration } from "./time";

const phaseTone: Record<Phase, string> = {
  queued: "text-foreground",
  routing: "text-foreground",
  assigned: "text-foreground",
  running: "text-foreground",
  retrying: "text-warning",
  completed: "text-success",
  failed: "text-destructive",
  cancelled: "text-destructive",
};

function PhaseIcon({ phase, isCurrent }: { phase: Phase; isCurrent: boolean }) {
  const className = "size-4";
  if (phase === "completed") return <CheckIcon className={className} aria-hidden />;
  if (phase === "failed" || phase === "cancelled") return <XIcon className={className} aria-hidden />;
  if (phase === "retrying") return <RotateCwIcon className={className} aria-hidden />;
  if (isCurrent) return <CircleDotIcon className={cn(className, "animate-pulse")} aria-hidden />;
  return <CheckIcon className={className} aria-hidden />;
}

export function LifecycleStepper({ spans, now }: { spans: PhaseSpan[]; now: number }) {
  const current = spans.at(-1);
  const isDone = current ? isFinalPhase(current.phase) : false;
  // Phases a normal run still has ahead of the current one.
  const next =
    current?.phase === "retrying" ? happyPath.indexOf("routing") : current ? happyPath.indexOf(current.phase) + 1 : 0;
  const ahead = isDone ? [] : happyPath.slice(next);
  return (
    <ol aria-label="Lifecycle" className="flex flex-wrap items-start gap-x-1 gap-y-3">
      {spans.map((span, index) => {
        const isCurrent = index === spans.length - 1 && !isDone;
        const duration =
          span.endedAt !== null ? span.endedAt - span.startedAt : isCurrent ? now - span.startedAt : null;
        return (
          <li
            key={`${span.phase}-${index}`}
            className="flex items-start gap-1"
            aria-current={isCurrent ? "step" : undefined}
          >
            <div className="grid min-w-20 justify-items-start gap-0.5">
              <span className={cn("flex items-center gap-1.5 text-sm font-medium", phaseTone[span.phase])}>
                <PhaseIcon phase={span.phase} isCurrent={isCurrent} />
                {span.phase}
              </span>
              <span className="pl-5.5 font-mono text-xs text-muted-foreground tabular-nums">
                {isFinalPhase(span.phase)
                  ? span.attempt > 1
                    ? `attempt ${span.attempt}`
                    : " "
                  : formatDuration(duration)}
              </span>
            </div>
            {(index < spans.length - 1 || ahead.length > 0) && (
              <span aria-hidden className="mt-2.5 h-px w-6 bg-border" />
            )}
          </li>
        );
      })}
      {ahead.map((phase, index) => (
        <li key={`ahead-${phase}`} className="flex items-start gap-1 text-muted-foreground">
          <div className="grid min-w-20 justify-items-start gap-0.5">
            <span className="flex items-center gap-1.5 text-sm">
              <CircleIcon className="size-4" aria-hidden />
              {phase}
            </span>
            <span className="pl-5.5 text-xs">pending</span>
          </div>
          {index < ahead.length - 1 && <span aria-hidden className="mt-2.5 h-px w-6 bg-border" />}
        </li>
      ))}
    </ol>
  );
}
