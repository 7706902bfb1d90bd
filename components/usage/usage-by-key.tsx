// /usage: the period's jobs and credits split by the API key that submitted them (CONTRACT §11).
import Link from "next/link";
import type { UsageSummary } from "@/components/data/types";
import { formatNumber, keyPreview } from "@/components/dashboard/format";
import { Card } from "@/components/ui/card";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";

export function UsageByKey({ byKey, creditsUsed }: { byKey: UsageSummary["byKey"]; creditsUsed: number }) {
  if (byKey.length === 0) return null;
  return (
    <section aria-labelledby="by-key" className="grid grid-cols-1 gap-2">
      <h2 id="by-key" className="text-base font-semibold">
        By API key
      </h2>
      <Card className="py-0">
        <Table aria-labelledby="by-key">
          <TableHeader>
            <TableRow className="hover:bg-transparent">
              <TableHead>Key</TableHead>
              <TableHead className="text-right">Jobs</TableHead>
              <TableHead className="text-right">Credits used</TableHead>
              <TableHead className="text-right">Share</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {byKey.map((k) => (
              <TableRow key={k.keyId ?? "none"}>
                <TableCell>
                  {k.keyId === null ? (
                    <span className="text-muted-foreground">Without a key</span>
                  ) : (
                    <Link href="/keys" className="underline-offset-2 hover:underline">
                      {k.name ?? "Deleted key"}{" "}
                      <span className="font-mono text-xs text-muted-foreground">
                        {k.prefix ? keyPreview(k.prefix) : ""}
                      </span>
                    </Link>
                  )}
                </TableCell>
                <TableCell className="text-right tabular-nums">{formatNumber(k.jobs)}</TableCell>
                <TableCell className="text-right tabular-nums">{formatNumber(k.creditsUsed)}</TableCell>
                <TableCell className="text-right tabular-nums text-muted-foreground">
                  {creditsUsed > 0 ? `${Math.round((k.creditsUsed / creditsUsed) * 100)} %` : "—"}
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      </Card>
    </section>
  );
}
