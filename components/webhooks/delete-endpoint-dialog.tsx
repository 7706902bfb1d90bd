"use client";

// Deleting a webhook endpoint, asked for in a dialog: it drops the endpoint's pending deliveries for good.
import { ConfirmDialog, DangerButton } from "@/components/resource/confirm-dialog";
import type { WebhookEndpoint } from "@/components/data/types";
import { useDeleteWebhookEndpoint } from "@/components/data/webhooks";

export function DeleteEndpointDialog({ endpoint, disabled }: { endpoint: WebhookEndpoint; disabled?: boolean }) {
  // The dialog stays busy until the list is refreshed without the endpoint, so it cannot be deleted twice.
  const remove = useDeleteWebhookEndpoint(endpoint.endpointId);

  return (
    <ConfirmDialog
      trigger={<DangerButton disabled={disabled}>Delete</DangerButton>}
      title="Delete webhook endpoint"
      description={
        <>
          Delete <span className="font-mono break-all">{endpoint.url}</span>? Its pending deliveries are dropped. This
          cannot be undone.
        </>
      }
      confirmLabel="Delete endpoint"
      onConfirm={() => remove.mutateAsync()}
      errorTitle="Could not delete the endpoint"
    />
  );
}
