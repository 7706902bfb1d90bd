"use client";

// The developer's top-ups, followed live while any is on its way (a reload mid-payment picks them up from
// the server); when one is credited, the server-rendered balance and history refresh.
import * as React from "react";
import { useRouter } from "next/navigation";
import { formatTokenAmount } from "@/lib/contract/top-up-arithmetic";
import { useRecordUnrecordedPayments, useTopUps } from "@/components/data/credits";
import type { TopUp, TopUpPage } from "@/components/data/types";
import { creditNoun, formatDateTime, formatNumber } from "@/components/dashboard/format";
import { Badge, type BadgeVariant } from "@/components/ui/badge";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { failureSentences } from "./payment-errors";
import { transactionUrl, type EnabledTopUps } from "./add-credits-dialog";
import { TxHash } from "./tx-hash";

const statusBadge: Record<TopUp["status"], BadgeVariant> = {
  submitted: "info",
  confirming: "warning",
  credited: "success",
  failed: "destructive",
};

function statusText(topUp: TopUp): string {
  if (topUp.status === "confirming")
    return `Confirming ${Math.min(topUp.confirmations, topUp.requiredConfirmations)} of ${topUp.requiredConfirmations}`;
  if (topUp.status === "submitted") return "Waiting to be mined";
  return topUp.status === "credited" ? "Credited" : "Failed";
}

export function TopUpsTable({ config, initial }: { config: EnabledTopUps; initial: TopUpPage }) {
  const { data } = useTopUps(1, initial);
  useRecordUnrecordedPayments();
  const router = useRouter();
  // The balance and history were rendered with the credits of these top-ups: any other credited one is new.
  const creditedIds = React.useRef(new Set(initial.data.filter((t) => t.status === "credited").map((t) => t.topUpId)));
  const topUps = data?.data ?? [];

  React.useEffect(() => {
    const landed = (data?.data ?? []).filter((t) => t.status === "credited" && !creditedIds.current.has(t.topUpId));
    for (const topUp of landed) creditedIds.current.add(topUp.topUpId);
    if (landed.length > 0) router.refresh();
  }, [data, router]);

  if (topUps.length === 0) {
    return (
      <p className="text-sm text-muted-foreground">
        No top-ups yet. Payments you make with Add credits appear here as they confirm.
      </p>
    );
  }
  return (
    <Table aria-label="Top-ups" stackOnPhone>
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead>Date</TableHead>
          <TableHead>Status</TableHead>
          <TableHead className="text-right">Credits</TableHead>
          <TableHead className="text-right">Paid</TableHead>
          <TableHead>Transaction</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {topUps.map((topUp) => {
          const link = transactionUrl(config.explorerUrl, topUp.txHash);
          return (
            <TableRow key={topUp.topUpId}>
              <TableCell className="whitespace-nowrap text-muted-foreground max-md:basis-full max-md:text-xs">
                {formatDateTime(topUp.createdAt)}
              </TableCell>
              <TableCell>
                <Badge
                  variant={statusBadge[topUp.status]}
                  title={topUp.failureReason ? failureSentences[topUp.failureReason] : undefined}
                >
                  {statusText(topUp)}
                </Badge>
              </TableCell>
              <TableCell className="text-right tabular-nums">
                {topUp.status === "submitted" ? "—" : formatNumber(topUp.credits)}
                <span className="md:hidden"> {creditNoun(topUp.credits)}</span>
              </TableCell>
              <TableCell className="text-right whitespace-nowrap tabular-nums">
                {topUp.status === "submitted"
                  ? "—"
                  : `${formatTokenAmount(BigInt(topUp.tokenAmount), config.tokenDecimals)} ${config.tokenSymbol}`}
              </TableCell>
              <TableCell className="max-md:min-w-0 max-md:basis-full">
                <TxHash hash={topUp.txHash} href={link} />
              </TableCell>
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}
