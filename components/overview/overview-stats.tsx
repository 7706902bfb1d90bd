// The overview's numbers — balance, spend, keys — from what the page read on the server (no loading
// flicker, no client fetches); the balance warns, with the way to add credits, before it runs out.
import Link from "next/link";
import { AlertTriangleIcon, ArrowRightIcon } from "lucide-react";
import { isKeyActive } from "@/components/data/api-keys";
import type { ApiKey, CreditBalance, UsageSummary } from "@/components/data/types";
import { AddCreditsLink } from "@/components/dashboard/add-credits";
import { isBalanceLow } from "@/components/dashboard/balance";
import { formatCredits, formatDateTime, formatNumber } from "@/components/dashboard/format";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";

function Stat({
  label,
  value,
  hint,
  href,
  linkLabel,
}: {
  label: string;
  value: React.ReactNode;
  hint?: React.ReactNode;
  href: string;
  linkLabel: string;
}) {
  return (
    <Card className="gap-3">
      <CardHeader>
        <CardDescription>{label}</CardDescription>
        <CardTitle className="text-3xl font-semibold tabular-nums">{value}</CardTitle>
      </CardHeader>
      <CardContent className="flex items-center justify-between gap-2 text-xs text-muted-foreground">
        <span className="min-w-0">{hint}</span>
        <Link
          href={href}
          className="inline-flex shrink-0 items-center gap-1 font-medium text-foreground hover:underline"
        >
          {linkLabel} <ArrowRightIcon className="size-3" aria-hidden />
        </Link>
      </CardContent>
    </Card>
  );
}

export function OverviewStats({
  balance,
  keys,
  usage,
}: {
  balance: CreditBalance;
  keys: ApiKey[] | null;
  usage: UsageSummary;
}) {
  const isLow = isBalanceLow(balance.balance);
  return (
    <div className="grid grid-cols-1 gap-4">
      {isLow && (
        <p
          role="status"
          className="flex flex-wrap items-center gap-x-2 gap-y-1 rounded-lg border border-warning/30 bg-warning/5 px-4 py-3 text-sm"
        >
          <AlertTriangleIcon className="size-4 text-warning" aria-hidden />
          {balance.balance === 0
            ? "Your balance is empty: jobs cannot run until you add credits."
            : `Only ${formatCredits(balance.balance)} left.`}
          <AddCreditsLink />
        </p>
      )}
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
        <Stat
          label="Credit balance"
          value={formatNumber(balance.balance)}
          hint={`Updated ${formatDateTime(balance.updatedAt)}`}
          href="/credits"
          linkLabel="History"
        />
        <Stat
          label="Spent, last 30 days"
          value={formatNumber(usage.creditsUsed)}
          hint={`${formatNumber(usage.totalJobs)} ${usage.totalJobs === 1 ? "job" : "jobs"}`}
          href="/usage"
          linkLabel="Usage"
        />
        <Stat
          label="Active API keys"
          value={formatNumber(keys?.filter((k) => isKeyActive(k)).length ?? 0)}
          hint={keys ? `${formatNumber(keys.length)} in total` : "None yet"}
          href="/keys"
          linkLabel="Manage"
        />
      </div>
    </div>
  );
}
