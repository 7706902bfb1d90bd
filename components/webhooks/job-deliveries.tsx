"use client";

// One job's webhook deliveries, for the job page.
import { isApiError } from "@/components/data/fetch-api";
import { ErrorState } from "@/components/dashboard/states";
import { Skeleton } from "@/components/ui/skeleton";
import { DeliveriesTable } from "./deliveries-table";
import { useJobWebhookDeliveries } from "@/components/data/webhooks";

export function JobDeliveries({ jobId }: { jobId: string }) {
  const deliveries = useJobWebhookDeliveries(jobId);
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
        <DeliveriesTable deliveries={deliveries.data} label="Webhook deliveries of this job" />
      )}
    </section>
  );
}
