// The overview's three numbers, read on the server with the page (no loading flicker, no client fetches).
import Link from "next/link";
import { ArrowRightIcon } from "lucide-react";
import { isKeyActive } from "@/components/data/queries";
import { formatNumber } from "@/components/dashboard/format";
import { clockTime, utcDate } from "@/components/timeline/time";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { listApiKeys } from "@/lib/domain/api-keys";
import { getCreditBalance } from "@/lib/domain/credits";
import { DomainError } from "@/lib/domain/errors";
import { listJobs } from "@/lib/domain/jobs";

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
        <span className="truncate">{hint}</span>
        <Link href={href} className="inline-flex shrink-0 items-center gap-1 font-medium text-foreground hover:underline">
          {linkLabel} <ArrowRightIcon className="size-3" aria-hidden />
        </Link>
      </CardContent>
    </Card>
  );
}

/** The developer's keys, or null while there is no profile to hold them. */
async function keysOrNull(accountId: string) {
  try {
    return await listApiKeys(accountId);
  } catch (error) {
    if (error instanceof DomainError && error.code === "PROFILE_NOT_FOUND") return null;
    throw error;
  }
}

export async function OverviewStats({ accountId }: { accountId: string }) {
  const [balance, keys, jobs] = await Promise.all([
    getCreditBalance(accountId),
    keysOrNull(accountId),
    listJobs(accountId, { page: 1, limit: 1 }),
  ]);
  const now = Date.now();
  return (
    <div className="grid grid-cols-1 gap-4 sm:grid-cols-3">
      <Stat
        label="Credit balance"
        value={formatNumber(balance.balance)}
        hint={`Updated ${utcDate(balance.updatedAt)} ${clockTime(balance.updatedAt).slice(0, 5)} UTC`}
        href="/credits"
        linkLabel="History"
      />
      <Stat
        label="Active API keys"
        value={formatNumber(keys?.filter((k) => isKeyActive(k, now)).length ?? 0)}
        hint={keys ? `${keys.length} in total` : "Create a profile to issue keys"}
        href={keys ? "/keys" : "/profile"}
        linkLabel={keys ? "Manage" : "Create profile"}
      />
      <Stat label="Jobs" value={formatNumber(jobs.pagination.total)} hint="All time" href="/jobs" linkLabel="View jobs" />
    </div>
  );
}
