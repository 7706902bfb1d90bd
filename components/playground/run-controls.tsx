// What stands between the playground and a Run: why it cannot run (a disabled service, too few credits),
// and the Run button with the cost, the balance, and a spoken status while the job is submitted.
import { AlertCircleIcon, Loader2Icon, PlayIcon } from "lucide-react";
import { AddCreditsLink } from "@/components/dashboard/add-credits";
import { formatCredits } from "@/components/dashboard/format";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";

/** The id of the reason Run is disabled, which the Run button is described by. */
const blockedReasonId = "run-blocked-reason";

export function RunBlockedAlert({
  blockedReason,
  creditCost,
  balance,
}: {
  blockedReason: string | null;
  creditCost: number;
  balance: number;
}) {
  if (blockedReason) {
    return (
      <Alert variant="warning">
        <AlertCircleIcon />
        <AlertTitle>This service cannot run</AlertTitle>
        <AlertDescription id={blockedReasonId}>
          <p>{blockedReason}</p>
        </AlertDescription>
      </Alert>
    );
  }
  if (balance >= creditCost) return null;
  return (
    <Alert variant="warning">
      <AlertCircleIcon />
      <AlertTitle>Not enough credits</AlertTitle>
      <AlertDescription id={blockedReasonId}>
        <p>
          A job costs {formatCredits(creditCost)}; your balance is {formatCredits(balance)}.
        </p>
        <AddCreditsLink className="mt-1" />
      </AlertDescription>
    </Alert>
  );
}

export function RunBar({
  canRun,
  isBlocked,
  busy,
  creditCost,
  balance,
  lowBalance,
  status,
}: {
  canRun: boolean;
  /** Whether RunBlockedAlert shows a reason (the button is described by it). */
  isBlocked: boolean;
  busy: boolean;
  creditCost: number;
  balance: number;
  /** A warning that the balance covers only a few more runs, or null. */
  lowBalance: string | null;
  /** What a screen reader hears about the Run in flight. */
  status: string;
}) {
  return (
    // On a phone the bar sticks to the screen's bottom while the form is in view, so Run is always in reach.
    <div className="flex flex-wrap items-center gap-x-4 gap-y-2 border-t pt-4 max-md:sticky max-md:bottom-0 max-md:z-10 max-md:-mx-5 max-md:bg-card max-md:px-5 max-md:pb-[max(0.75rem,env(safe-area-inset-bottom))]">
      <Button
        type="submit"
        disabled={!canRun}
        aria-describedby={isBlocked ? blockedReasonId : "run-cost"}
        className="min-w-24"
      >
        {busy ? <Loader2Icon className="animate-spin" aria-hidden /> : <PlayIcon aria-hidden />}
        Run
        <kbd
          aria-hidden
          className="ml-1 hidden rounded border border-primary-foreground/30 px-1 font-sans text-[10px] opacity-80 sm:inline"
        >
          Ctrl/⌘ ↵
        </kbd>
      </Button>
      <p id="run-cost" className="text-sm text-muted-foreground">
        <span className="font-medium text-foreground tabular-nums">{formatCredits(creditCost)}</span> per job · balance{" "}
        <span className={cn("tabular-nums", (balance < creditCost || lowBalance) && "text-destructive")}>
          {formatCredits(balance)}
        </span>
      </p>
      {lowBalance && (
        <p className="flex w-full flex-wrap items-center gap-x-2 text-sm text-muted-foreground">
          {lowBalance} <AddCreditsLink />
        </p>
      )}
      <span className="sr-only" aria-live="polite">
        {status}
      </span>
    </div>
  );
}
