"use client";

import { ChevronLeftIcon, ChevronRightIcon } from "lucide-react";
import type { Pagination } from "@/components/data/types";
import { Button } from "@/components/ui/button";
import { formatNumber } from "./format";

export function Pager({
  pagination,
  onPageChange,
  noun,
  isFetching,
}: {
  pagination: Pagination;
  onPageChange: (page: number) => void;
  noun: string;
  isFetching?: boolean;
}) {
  const { page, totalPages, total, hasMore } = pagination;
  return (
    <nav aria-label={`${noun} pages`} className="flex items-center justify-between gap-4 text-sm text-muted-foreground">
      <span aria-live="polite">
        {formatNumber(total)} {noun} · page {page} of {Math.max(totalPages, 1)}
        {isFetching && " · updating…"}
      </span>
      <div className="flex gap-2">
        <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => onPageChange(page - 1)}>
          <ChevronLeftIcon /> Previous
        </Button>
        <Button variant="outline" size="sm" disabled={!hasMore} onClick={() => onPageChange(page + 1)}>
          Next <ChevronRightIcon />
        </Button>
      </div>
    </nav>
  );
}
