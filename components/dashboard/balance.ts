// When the dashboard warns that credits are running low (before a job is refused for want of them).

/** Below this many credits the overview warns, whatever the service. */
export const lowBalanceCredits = 10;
/** The Run bar warns when the balance pays for fewer runs than this. */
const fewRuns = 3;

export const isBalanceLow = (balance: number) => balance < lowBalanceCredits;

/** "Enough for 2 more runs." while the balance covers fewer than three runs of `creditCost`, else null. */
export function runsLeftWarning(balance: number, creditCost: number): string | null {
  if (creditCost <= 0) return null;
  const runs = Math.floor(balance / creditCost);
  if (runs >= fewRuns) return null;
  return `Enough for ${runs} more ${runs === 1 ? "run" : "runs"}.`;
}
