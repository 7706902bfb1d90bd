"use client";

// Deleting a webhook endpoint, asked for in a dialog: it drops the endpoint's pending deliveries for good.
import { ErrorState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import { ConfirmActionDialog } from "@/components/ui/confirm-action-dialog";
import type { WebhookEndpoint } from "@/components/data/types";
import { useDeleteWebhookEndpoint } from "@/components/data/webhooks";

export function DeleteEndpointDialog({ endpoint, disabled }: { endpoint: WebhookEndpoint; disabled?: boolean }) {
  // The dialog stays busy until the list is refreshed without the endpoint, so it cannot be deleted twice.
  const remove = useDeleteWebhookEndpoint(endpoint.endpointId);

  return (
    <ConfirmActionDialog
      trigger={
        <Button size="sm" variant="outline" disabled={disabled}>
          Delete
        </Button>
      }
      title="Delete webhook endpoint"
      description={
        <>
          Delete <span className="font-mono break-all">{endpoint.url}</span>? Its pending deliveries are dropped. This
          cannot be undone.
        </>
      }
      confirmLabel="Delete endpoint"
      onConfirm={() => remove.mutateAsync()}
      renderError={(error) => <ErrorState title="Could not delete the endpoint" error={error} />}
    />
  );
}
