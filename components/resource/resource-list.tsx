// The list of a resource page (API keys, nodes, webhook endpoints): a heading row with the count and the
// create action, then the list's loading, failure (a 401 reads as the session ended), empty state, or the
// table, whose row actions stay on the screen at any width.
import * as React from "react";
import { EmptyState, ErrorState } from "@/components/dashboard/states";
import { Card } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, TableCell, TableHead } from "@/components/ui/table";

export function ResourceList<T>({
  title,
  summary,
  action,
  notice,
  items,
  error,
  onRetry,
  errorTitle,
  empty,
  children,
}: {
  /** A heading of its own, where the page has more than this list. */
  title?: string;
  /** A line about the list, e.g. "2 active of 3". */
  summary?: (items: T[]) => React.ReactNode;
  /** The create button: it stays put whatever the list shows, so its dialog outlives the list changing. */
  action?: React.ReactNode;
  /** What the row actions said last (a failure, "Test event queued."), between the heading and the list. */
  notice?: React.ReactNode;
  /** The items, or undefined while they load or when they could not be loaded. */
  items: T[] | undefined;
  error: unknown;
  onRetry: () => void;
  errorTitle: string;
  empty: { icon: React.ComponentType<{ className?: string }>; title: string; description: string };
  children: (items: T[]) => React.ReactNode;
}) {
  const headingId = React.useId();
  let body: React.ReactNode;
  if (items === undefined && error != null) body = <ErrorState title={errorTitle} error={error} onRetry={onRetry} />;
  else if (items === undefined)
    body = (
      <div className="grid gap-2" aria-busy="true">
        <Skeleton className="h-10" />
        <Skeleton className="h-12" />
        <Skeleton className="h-12" />
      </div>
    );
  else if (items.length === 0) body = <EmptyState {...empty} />;
  else body = children(items);

  return (
    <section aria-labelledby={title ? headingId : undefined} className="flex flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-4">
        <div className="grid gap-0.5">
          {title && (
            <h2 id={headingId} className="text-base font-semibold">
              {title}
            </h2>
          )}
          {items && items.length > 0 && summary && <p className="text-sm text-muted-foreground">{summary(items)}</p>}
        </div>
        {action}
      </div>
      {notice}
      {body}
    </section>
  );
}

/** The list's table: rows stack into cards on a phone. */
export function ResourceTable({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Card className="py-0">
      <Table stackOnPhone aria-label={label}>
        {children}
      </Table>
    </Card>
  );
}

/**
 * The actions column sticks to the table's right edge from md up: when the columns are wider than the card
 * (many scopes, a long name or URL) the rest scrolls under it and a row's actions stay on the screen. On a
 * phone the rows stack and the actions take a line of their own.
 */
const stickyActions =
  "md:sticky md:right-0 md:z-10 md:bg-card md:shadow-[inset_1px_0_0_var(--color-border),-8px_0_8px_-8px_rgb(0_0_0/0.2)]";

export function ActionsHead() {
  return (
    <TableHead className={cn("text-right", stickyActions)}>
      <span className="sr-only">Actions</span>
    </TableHead>
  );
}

/** A row's actions; none (a revoked row) leaves the cell empty. */
export function ActionsCell({ children }: { children?: React.ReactNode }) {
  return (
    <TableCell className={cn("max-md:basis-full", stickyActions)}>
      {children && <div className="flex flex-wrap gap-1 md:flex-nowrap md:justify-end">{children}</div>}
    </TableCell>
  );
}
