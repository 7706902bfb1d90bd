// The balance and one page of the credit history, rendered on the server with the page: the page number
// lives in the URL (?page=), so paging is a link and the panel needs no JavaScript of its own.
import type * as React from "react";
import Link from "next/link";
import { CoinsIcon, ReceiptTextIcon } from "lucide-react";
import type { CreditBalance, CreditEntry, CreditHistory } from "@/components/data/types";
import { creditNoun, formatDateTime, formatNumber, formatSignedCredits } from "@/components/dashboard/format";
import { pageLinkQuery, type PageLink } from "@/components/dashboard/page-links";
import { Pager } from "@/components/dashboard/pager";
import { EmptyState } from "@/components/dashboard/states";
import { Badge, type BadgeVariant } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";

const entryBadge: Record<CreditEntry["type"], BadgeVariant> = {
  grant: "success",
  topup: "success",
  charge: "secondary",
  refund: "info",
  adjustment: "warning",
};

function BalanceCard({ balance }: { balance: CreditBalance }) {
  return (
    <Card className="gap-2">
      <CardHeader>
        <CardDescription className="flex items-center gap-2">
          <CoinsIcon className="size-4" /> Available balance
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-1">
        <p className="text-4xl font-semibold tracking-tight tabular-nums" data-testid="credit-balance">
          {formatNumber(balance.balance)}{" "}
          <span className="text-base font-normal text-muted-foreground">{creditNoun(balance.balance)}</span>
        </p>
        <p className="text-xs text-muted-foreground">Updated {formatDateTime(balance.updatedAt)}</p>
      </CardContent>
    </Card>
  );
}

function HistoryTable({ entries }: { entries: CreditEntry[] }) {
  return (
    <Table stackOnPhone>
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
            <TableCell className="whitespace-nowrap text-muted-foreground max-md:basis-full max-md:text-xs">
              {formatDateTime(entry.createdAt)}
            </TableCell>
            <TableCell>
              <Badge variant={entryBadge[entry.type]}>{entry.type}</Badge>
            </TableCell>
            <TableCell className="max-md:basis-full max-md:order-last max-md:break-all max-md:text-xs">
              <span>{entry.description}</span>
              {entry.jobId && <span className="ml-2 font-mono text-xs text-muted-foreground">{entry.jobId}</span>}
            </TableCell>
            <TableCell
              className={cn(
                "text-right font-medium whitespace-nowrap tabular-nums",
                entry.amount > 0 ? "text-success" : entry.amount < 0 && "text-foreground",
              )}
            >
              {formatSignedCredits(entry.amount)}
            </TableCell>
            <TableCell className="text-right whitespace-nowrap text-muted-foreground tabular-nums">
              <span className="md:hidden">balance </span>
              {formatNumber(entry.balanceAfter)}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}

const creditsPage = (to: PageLink) => {
  const query = new URLSearchParams(pageLinkQuery(to)).toString();
  return query ? `/credits?${query}` : "/credits";
};

function HistoryCard({ history }: { history: CreditHistory }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>History</CardTitle>
        <CardDescription>Grants, top-ups, charges for jobs and refunds for failed jobs, newest first.</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {history.data.length === 0 ? (
          history.pagination.page === 1 ? (
            <EmptyState icon={ReceiptTextIcon} title="No credit activity yet" />
          ) : (
            <EmptyState
              icon={ReceiptTextIcon}
              title={`There is no page ${history.pagination.page}`}
              action={
                <Button asChild variant="outline">
                  <Link href={creditsPage({ page: 1 })}>First page</Link>
                </Button>
              }
            />
          )
        ) : (
          <>
            <HistoryTable entries={history.data} />
            {history.pagination.totalPages > 1 && (
              <Pager pagination={history.pagination} pageHref={creditsPage} noun="entries" />
            )}
          </>
        )}
      </CardContent>
    </Card>
  );
}

export function CreditsPanel({
  balance,
  history,
  topUps,
}: {
  balance: CreditBalance;
  history: CreditHistory;
  topUps?: React.ReactNode;
}) {
  return (
    <div className="flex flex-col gap-6">
      <BalanceCard balance={balance} />
      {topUps}
      <HistoryCard history={history} />
    </div>
  );
}
