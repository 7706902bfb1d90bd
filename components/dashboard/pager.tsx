// Previous/Next for a paged list: links where the page lives in the URL (`pageHref`, usable from a server
// component), buttons calling `onPageChange` where a client component holds it. Pages past the first are
// reached by cursor (`after`), so page 5,000 costs what page 1 costs; `page` only numbers them.
import Link from "next/link";
import { ChevronLeftIcon, ChevronRightIcon } from "lucide-react";
import type { Pagination } from "@/components/data/types";
import { nextPageOf, previousPageOf, type PageLink } from "./page-links";
import { Button } from "@/components/ui/button";
import { formatNumber } from "./format";

type PageTarget =
  | { pageHref: (to: PageLink) => string; onPageChange?: never }
  | { onPageChange: (to: PageLink) => void; pageHref?: never };

function PageButton({
  to,
  target,
  disabled,
  children,
}: {
  to: PageLink;
  target: PageTarget;
  disabled: boolean;
  children: React.ReactNode;
}) {
  if (target.pageHref && !disabled) {
    return (
      <Button asChild variant="outline" size="sm">
        <Link href={target.pageHref(to)}>{children}</Link>
      </Button>
    );
  }
  return (
    <Button
      variant="outline"
      size="sm"
      disabled={disabled}
      onClick={target.onPageChange && (() => target.onPageChange(to))}
    >
      {children}
    </Button>
  );
}

export function Pager({
  pagination,
  noun,
  isFetching,
  ...target
}: {
  pagination: Pagination;
  noun: string;
  isFetching?: boolean;
} & PageTarget) {
  const { page, totalPages, total, hasMore, totalIsLowerBound } = pagination;
  return (
    <nav aria-label={`${noun} pages`} className="flex items-center justify-between gap-4 text-sm text-muted-foreground">
      <span aria-live="polite">
        {formatNumber(total)}
        {totalIsLowerBound && "+"} {noun} · page {page} of {Math.max(totalPages, 1)}
        {totalIsLowerBound && "+"}
        {isFetching && " · updating…"}
      </span>
      <div className="flex gap-2">
        <PageButton to={previousPageOf(pagination)} target={target} disabled={page <= 1}>
          <ChevronLeftIcon /> Previous
        </PageButton>
        <PageButton to={nextPageOf(pagination)} target={target} disabled={!hasMore}>
          Next <ChevronRightIcon />
        </PageButton>
      </div>
    </nav>
  );
}
