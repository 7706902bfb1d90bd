// A key's spend at a glance (CONTRACT §11): what its limit allows and what is left, with a small bar, or
// what it spent when it has no limit.
import type { ApiKey } from "@/components/data/types";
import { formatCredits, formatNumber } from "@/components/dashboard/format";
import { Progress } from "@/components/ui/progress";
import { cn } from "@/components/ui/cn";

export const resetLabels: Record<NonNullable<ApiKey["creditLimitReset"]>, string> = {
  daily: "per day",
  weekly: "per week",
  monthly: "per month",
};

/** What the key spent in the period its limit counts (all time without a reset). */
const spentAgainstLimit = (key: ApiKey) => (key.creditLimitReset ? key.usage[key.creditLimitReset] : key.usage.total);

export function KeySpend({ apiKey }: { apiKey: ApiKey }) {
  if (apiKey.creditLimit === null) {
    return (
      <div className="grid gap-0.5 text-xs">
        <span className="text-muted-foreground">No limit</span>
        <span className="tabular-nums">{formatNumber(apiKey.usage.monthly)} this month</span>
      </div>
    );
  }
  const spent = spentAgainstLimit(apiKey);
  const percent = Math.min(100, Math.round((spent / apiKey.creditLimit) * 100));
  const remaining = apiKey.creditLimitRemaining ?? 0;
  const period = apiKey.creditLimitReset ? resetLabels[apiKey.creditLimitReset] : "in all";
  return (
    <div className="grid min-w-32 gap-1 text-xs" data-testid="key-spend">
      <span className="tabular-nums">
        {formatNumber(spent)} of {formatNumber(apiKey.creditLimit)} {period}
      </span>
      <Progress
        value={percent}
        aria-label={`${apiKey.name}: ${formatNumber(spent)} of ${formatCredits(apiKey.creditLimit)} spent ${period}`}
        className={cn(remaining === 0 && "[&>[data-slot=progress-indicator]]:bg-destructive")}
      />
      <span className={cn("tabular-nums", remaining === 0 ? "text-destructive" : "text-muted-foreground")}>
        {formatNumber(remaining)} left
      </span>
    </div>
  );
}
