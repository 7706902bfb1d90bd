"use client";

// A completed job's receipt (CONTRACT §13): verified in this browser against the deployment's signers, shown as
// "Receipt verified · signed by 0x…", with its JSON to download for a third party (or a contract) to check.
import { DownloadIcon, ShieldAlertIcon, ShieldCheckIcon } from "lucide-react";
import { useCheckedReceipt } from "@/components/data/receipts";
import type { ExecutionJob } from "@/components/data/types";
import { ErrorState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";

/** Saves the receipt's JSON as the API answered it, byte for byte. */
function download(json: string, jobId: string) {
  const url = URL.createObjectURL(new Blob([json], { type: "application/json" }));
  const link = Object.assign(document.createElement("a"), { href: url, download: `receipt-${jobId}.json` });
  link.click();
  // Revoked only once the download has surely started (revoking at once can cancel it).
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

export function JobReceipt({ job }: { job: ExecutionJob }) {
  const checked = useCheckedReceipt(job);
  return (
    <Card role="region" aria-label="Receipt" className="flex flex-wrap items-center justify-between gap-3 p-4">
      {checked.isPending && <p className="text-sm text-muted-foreground">Verifying the receipt…</p>}
      {checked.isError && <ErrorState title="Could not read the receipt" error={checked.error} />}
      {checked.data && (
        <>
          {checked.data.verdict.ok ? (
            <p className="flex min-w-0 items-center gap-2 text-sm">
              <ShieldCheckIcon className="size-4 shrink-0 text-success" aria-hidden />
              <span>
                Receipt verified · signed by <span className="font-mono break-all">{checked.data.verdict.signer}</span>
              </span>
            </p>
          ) : (
            <p className="flex min-w-0 items-center gap-2 text-sm text-destructive">
              <ShieldAlertIcon className="size-4 shrink-0" aria-hidden />
              <span>Receipt not verified: {checked.data.verdict.detail}</span>
            </p>
          )}
          <Button variant="outline" size="sm" onClick={() => download(checked.data.json, job.jobId)}>
            <DownloadIcon /> Download JSON
          </Button>
        </>
      )}
    </Card>
  );
}
