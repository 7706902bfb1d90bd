"use client";

// Shown on every dashboard page while the balance is below the profile's low-balance threshold.
import * as React from "react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { TriangleAlertIcon } from "lucide-react";
import { useLowBalance, useRefreshBalance } from "@/components/data/credits";
import { formatNumber } from "@/components/dashboard/format";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

export function LowBalanceBanner({ threshold }: { threshold: number | null }) {
  const low = useLowBalance(threshold);
  const refreshBalance = useRefreshBalance();
  const pathname = usePathname();
  // Pages spend credits (the playground) and add them (Credits): read the balance again on each page.
  React.useEffect(() => refreshBalance(), [pathname, refreshBalance]);
  if (!low) return null;
  return (
    <Alert variant="warning" role="status" aria-label="Low balance" className="items-center">
      <TriangleAlertIcon />
      <AlertTitle>Your balance is low</AlertTitle>
      <AlertDescription className="flex flex-wrap items-center justify-between gap-2">
        <p>
          {formatNumber(low.balance)} credits left, below your alert threshold of {formatNumber(low.threshold)}. Jobs
          are refused once the balance runs out.
        </p>
        <Button asChild size="sm">
          <Link href="/credits?add=1">Add credits</Link>
        </Button>
      </AlertDescription>
    </Alert>
  );
}
