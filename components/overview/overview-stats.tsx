"use client";

import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { ArrowRightIcon } from "lucide-react";
import { apiFetch } from "@/components/data/fetch-api";
import { isKeyActive, useApiKeys, useCreditBalance, useProfile } from "@/components/data/queries";
import type { JobList } from "@/components/data/types";
import { formatDateTime, formatNumber } from "@/components/dashboard/format";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";

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
          {linkLabel} <ArrowRightIcon className="size-3" />
        </Link>
      </CardContent>
    </Card>
  );
}

const failed = <span className="text-base font-normal text-destructive">Unavailable</span>;

export function OverviewStats() {
  const balance = useCreditBalance();
  const profile = useProfile();
  const keys = useApiKeys({ enabled: profile.data != null });
  const jobs = useQuery({
    queryKey: ["jobs", "count"],
    queryFn: ({ signal }) => apiFetch<JobList>("/api/developers/jobs?page=1&limit=1", { signal }),
  });

  const hasProfile = profile.data !== null;
  const activeKeys = keys.data?.filter((k) => isKeyActive(k)).length;

  return (
    <div className="grid gap-4 sm:grid-cols-3">
      <Stat
        label="Credit balance"
        value={balance.isPending ? <Skeleton className="h-9 w-24" /> : balance.isError ? failed : formatNumber(balance.data.balance)}
        hint={balance.data && `Updated ${formatDateTime(balance.data.updatedAt)}`}
        href="/credits"
        linkLabel="History"
      />
      <Stat
        label="Active API keys"
        value={
          profile.isPending || (hasProfile && keys.isPending) ? (
            <Skeleton className="h-9 w-12" />
          ) : !hasProfile ? (
            "0"
          ) : keys.isError ? (
            failed
          ) : (
            formatNumber(activeKeys ?? 0)
          )
        }
        hint={!profile.isPending && !hasProfile ? "Create a profile to issue keys" : keys.data && `${keys.data.length} in total`}
        href={!profile.isPending && !hasProfile ? "/profile" : "/keys"}
        linkLabel={!profile.isPending && !hasProfile ? "Create profile" : "Manage"}
      />
      <Stat
        label="Jobs"
        value={jobs.isPending ? <Skeleton className="h-9 w-12" /> : jobs.isError ? failed : formatNumber(jobs.data.pagination.total)}
        hint="All time"
        href="/jobs"
        linkLabel="View jobs"
      />
    </div>
  );
}
