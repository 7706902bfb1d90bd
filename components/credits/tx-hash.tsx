"use client";

// A payment's transaction hash where space is short (a phone's card, the payment dialog): its ends with the
// middle cut, the whole hash on hover, a Copy button, and the block explorer's page when one is configured.
import { ExternalLinkIcon } from "lucide-react";
import { CopyButton } from "@/components/ui/copy-button";
import { cn } from "@/components/ui/cn";

export function TxHash({ hash, href, className }: { hash: string; href: string | null; className?: string }) {
  const short = `${hash.slice(0, 10)}…${hash.slice(-8)}`;
  return (
    <span
      data-testid="tx-hash"
      title={hash}
      className={cn("inline-flex max-w-full min-w-0 items-center gap-1 font-mono text-xs", className)}
    >
      {href ? (
        <a
          href={href}
          target="_blank"
          rel="noreferrer"
          aria-label={`Transaction ${short} in the block explorer`}
          className="inline-flex min-w-0 items-center gap-1 underline-offset-4 hover:underline"
        >
          <span className="truncate">{short}</span>
          <ExternalLinkIcon className="size-3 shrink-0" aria-hidden />
        </a>
      ) : (
        <span className="truncate">{short}</span>
      )}
      <CopyButton value={hash} variant="ghost" className="h-6 shrink-0 px-1.5 text-xs has-[>svg]:px-1.5" />
    </span>
  );
}
