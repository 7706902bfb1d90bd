"use client";

import { PanelRightOpenIcon, RotateCwIcon } from "lucide-react";
import { formatDateTime } from "@/components/dashboard/format";
import { Badge, type BadgeVariant } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import type { WebhookDelivery } from "@/components/data/types";
import { describeDeliveryError } from "./delivery-problem";

export const deliveryStatusVariant: Record<WebhookDelivery["status"], BadgeVariant> = {
  pending: "info",
  succeeded: "success",
  failed: "destructive",
};

/** A delivery's last error; a refusal by policy in words, its explanation on hover. */
function LastError({ error, endpointUrl }: { error: string; endpointUrl?: string }) {
  const problem = describeDeliveryError(error, endpointUrl);
  return (
    <div className="mt-1 max-w-48 truncate text-xs text-muted-foreground" title={problem?.message ?? error}>
      {problem?.title ?? error}
    </div>
  );
}

/**
 * Deliveries with their outcome; `onOpen` adds View (the delivery's request and attempts), `onRedeliver` the
 * Redeliver action. With `endpointUrl` (one endpoint's deliveries), a refusal by policy says precisely why;
 * with `endpointUrls` (a job's deliveries to several endpoints), an Endpoint column says where each went.
 */
export function DeliveriesTable({
  deliveries,
  onOpen,
  onRedeliver,
  busyId,
  label,
  endpointUrl,
  endpointUrls,
}: {
  deliveries: WebhookDelivery[];
  onOpen?: (delivery: WebhookDelivery) => void;
  onRedeliver?: (delivery: WebhookDelivery) => void;
  busyId?: string | null;
  label: string;
  endpointUrl?: string;
  endpointUrls?: ReadonlyMap<string, string>;
}) {
  const hasActions = onOpen !== undefined || onRedeliver !== undefined;
  return (
    <Table aria-label={label} stackOnPhone>
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead>Event</TableHead>
          {endpointUrls && <TableHead>Endpoint</TableHead>}
          <TableHead>Status</TableHead>
          <TableHead className="text-right">Attempts</TableHead>
          <TableHead className="text-right">Response</TableHead>
          <TableHead className="text-right">Latency</TableHead>
          <TableHead>Next attempt</TableHead>
          <TableHead>Created</TableHead>
          {hasActions && (
            <TableHead className="text-right">
              <span className="sr-only">Actions</span>
            </TableHead>
          )}
        </TableRow>
      </TableHeader>
      <TableBody>
        {deliveries.map((d) => (
          <TableRow key={d.deliveryId}>
            <TableCell className="max-md:basis-full">
              <div className="font-mono text-xs">{d.eventType}</div>
              <div className="font-mono text-[11px] break-all text-muted-foreground" title="webhook-id">
                {d.eventId}
              </div>
            </TableCell>
            {endpointUrls && (
              <TableCell className="max-md:basis-full">
                <div className="max-w-64 font-mono text-xs break-all">
                  {endpointUrls.get(d.endpointId) ?? d.endpointId}
                </div>
              </TableCell>
            )}
            <TableCell>
              <Badge variant={deliveryStatusVariant[d.status]}>{d.status}</Badge>
              {d.lastError && <LastError error={d.lastError} endpointUrl={endpointUrl} />}
            </TableCell>
            <TableCell className="text-right tabular-nums max-md:hidden">{d.attempts}</TableCell>
            <TableCell className="text-right tabular-nums">
              <span className="md:hidden">Response </span>
              {d.lastResponseStatus ?? "—"}
            </TableCell>
            <TableCell className="text-right tabular-nums max-md:hidden">
              {d.lastLatencyMs === null ? "—" : `${d.lastLatencyMs} ms`}
            </TableCell>
            <TableCell className="whitespace-nowrap max-md:hidden">{formatDateTime(d.nextAttemptAt)}</TableCell>
            <TableCell className="whitespace-nowrap text-muted-foreground">{formatDateTime(d.createdAt)}</TableCell>
            {hasActions && (
              <TableCell className="max-md:basis-full">
                <div className="flex flex-wrap gap-1 md:justify-end">
                  {onOpen && (
                    <Button size="sm" variant="outline" onClick={() => onOpen(d)}>
                      <PanelRightOpenIcon /> View
                    </Button>
                  )}
                  {onRedeliver && (
                    <Button
                      size="sm"
                      variant="outline"
                      onClick={() => onRedeliver(d)}
                      disabled={busyId === d.deliveryId}
                    >
                      <RotateCwIcon /> Redeliver
                    </Button>
                  )}
                </div>
              </TableCell>
            )}
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
