// The way to more credits, offered wherever the dashboard says the balance is short or running low: the
// Credits page's "Add credits" (?add=1 opens it; where top-ups are disabled the page says who grants them).
import Link from "next/link";
import { CoinsIcon } from "lucide-react";
import { cn } from "@/components/ui/cn";
import { formatNumber } from "./format";

export const addCreditsHref = "/credits?add=1";

/** Below this many credits the overview warns, whatever the service. */
export const lowBalanceCredits = 10;
/** The Run bar warns when the balance pays for fewer runs than this. */
const fewRuns = 3;

export function AddCreditsLink({ className }: { className?: string }) {
  return (
    <Link href={addCreditsHref} className={cn("inline-flex items-center gap-1 font-medium text-foreground underline underline-offset-4", className)}>
      <CoinsIcon className="size-3.5" aria-hidden /> Add credits
    </Link>
  );
}

/** "Enough for 2 more runs." while the balance covers fewer than three runs of `creditCost`, else null. */
export function runsLeftWarning(balance: number, creditCost: number): string | null {
  if (creditCost <= 0) return null;
  const runs = Math.floor(balance / creditCost);
  if (runs >= fewRuns) return null;
  return `Enough for ${formatNumber(runs)} more ${runs === 1 ? "run" : "runs"}.`;
}

export const isBalanceLow = (balance: number) => balance < lowBalanceCredits;
