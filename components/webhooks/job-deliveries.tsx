"use client";

// One job's webhook deliveries, for the job page: which endpoint each went to, and each opens to its request
// and attempts.
import * as React from "react";
import { isApiError } from "@/components/data/fetch-api";
import { ErrorState } from "@/components/dashboard/states";
import { Skeleton } from "@/components/ui/skeleton";
import type { WebhookDelivery } from "@/components/data/types";
import { DeliveriesTable } from "./deliveries-table";
import { DeliveryDialog } from "./delivery-dialog";
import { useJobWebhookDeliveries, useWebhookEndpoints } from "@/components/data/webhooks";

export function JobDeliveries({ jobId }: { jobId: string }) {
  const deliveries = useJobWebhookDeliveries(jobId);
  const endpoints = useWebhookEndpoints({ enabled: (deliveries.data?.length ?? 0) > 0 });
  const endpointUrls = React.useMemo(
    () => new Map((endpoints.data ?? []).map((e) => [e.endpointId, e.url])),
    [endpoints.data],
  );
  const [opened, setOpened] = React.useState<WebhookDelivery | null>(null);
  return (
    <section aria-label="Webhook deliveries" className="grid gap-2">
      <h2 className="text-sm font-medium">Webhook deliveries</h2>
      {deliveries.isPending ? (
        <Skeleton className="h-12" />
      ) : deliveries.isError ? (
        isApiError(deliveries.error, "JOB_NOT_FOUND") ? null : (
          <ErrorState title="Could not load the webhook deliveries" error={deliveries.error} />
        )
      ) : deliveries.data.length === 0 ? (
        <p className="text-sm text-muted-foreground">
          No webhook deliveries for this job (no endpoint subscribed to its events).
        </p>
      ) : (
        <DeliveriesTable
          deliveries={deliveries.data}
          label="Webhook deliveries of this job"
          endpointUrls={endpointUrls}
          onOpen={setOpened}
        />
      )}
      <DeliveryDialog
        delivery={opened}
        endpointUrl={opened ? endpointUrls.get(opened.endpointId) : undefined}
        onClose={() => setOpened(null)}
      />
    </section>
  );
}
