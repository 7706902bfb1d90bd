"use client";

import * as React from "react";
import { CoinsIcon, ReceiptTextIcon } from "lucide-react";
import { useCreditBalance, useCreditHistory } from "@/components/data/queries";
import type { CreditEntry } from "@/components/data/types";
import { formatDateTime, formatNumber, formatSignedCredits } from "@/components/dashboard/format";
import { Pager } from "@/components/dashboard/pager";
import { EmptyState, ErrorState } from "@/components/dashboard/states";
import { Badge, type BadgeVariant } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";

const pageSize = 20;

const entryBadge: Record<CreditEntry["type"], BadgeVariant> = {
  grant: "success",
  topup: "success",
  charge: "secondary",
  refund: "info",
  adjustment: "warning",
};

function BalanceCard() {
  const balance = useCreditBalance();
  return (
    <Card className="gap-2">
      <CardHeader>
        <CardDescription className="flex items-center gap-2">
          <CoinsIcon className="size-4" /> Available balance
        </CardDescription>
      </CardHeader>
      <CardContent>
        {balance.isPending ? (
          <Skeleton className="h-10 w-40" />
        ) : balance.isError ? (
          <ErrorState title="Could not load your balance" error={balance.error} onRetry={() => balance.refetch()} />
        ) : (
          <div className="grid gap-1">
            <p className="text-4xl font-semibold tracking-tight tabular-nums" data-testid="credit-balance">
              {formatNumber(balance.data.balance)} <span className="text-base font-normal text-muted-foreground">credits</span>
            </p>
            <p className="text-xs text-muted-foreground">Updated {formatDateTime(balance.data.updatedAt)}</p>
          </div>
        )}
      </CardContent>
    </Card>
  );
}

function HistoryTable({ entries }: { entries: CreditEntry[] }) {
  return (
    <Table>
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead>Date</TableHead>
          <TableHead>Type</TableHead>
          <TableHead>Description</TableHead>
          <TableHead className="text-right">Amount</TableHead>
          <TableHead className="text-right">Balance</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {entries.map((entry) => (
          <TableRow key={entry.entryId}>
            <TableCell className="whitespace-nowrap text-muted-foreground">{formatDateTime(entry.createdAt)}</TableCell>
            <TableCell>
              <Badge variant={entryBadge[entry.type]}>{entry.type}</Badge>
            </TableCell>
            <TableCell>
              <span>{entry.description}</span>
              {entry.jobId && (
                <span className="ml-2 font-mono text-xs text-muted-foreground">{entry.jobId}</span>
              )}
            </TableCell>
            <TableCell
              className={cn("text-right font-medium whitespace-nowrap tabular-nums", entry.amount > 0 ? "text-success" : entry.amount < 0 && "text-foreground")}
            >
              {formatSignedCredits(entry.amount)}
            </TableCell>
            <TableCell className="text-right whitespace-nowrap text-muted-foreground tabular-nums">
              {formatNumber(entry.balanceAfter)}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

function HistoryCard() {
  const [page, setPage] = React.useState(1);
  const history = useCreditHistory(page, pageSize);
  return (
    <Card>
      <CardHeader>
        <CardTitle>History</CardTitle>
        <CardDescription>Grants, charges for jobs and refunds for failed jobs, newest first.</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {history.isPending ? (
          <div className="grid gap-2" aria-busy="true">
            <Skeleton className="h-9" />
            <Skeleton className="h-9" />
            <Skeleton className="h-9" />
          </div>
        ) : history.isError ? (
          <ErrorState title="Could not load the history" error={history.error} onRetry={() => history.refetch()} />
        ) : history.data.data.length === 0 ? (
          <EmptyState icon={ReceiptTextIcon} title="No credit activity yet" />
        ) : (
          <>
            <HistoryTable entries={history.data.data} />
            {history.data.pagination.totalPages > 1 && (
              <Pager
                pagination={history.data.pagination}
                onPageChange={setPage}
                noun="entries"
                isFetching={history.isPlaceholderData}
              />
            )}
          </>
        )}
      </CardContent>
    </Card>
  );
}

export function CreditsPanel() {
  return (
    <div className="flex flex-col gap-6">
      <BalanceCard />
      <HistoryCard />
    </div>
  );
}
