"use client";

// Deleting a webhook endpoint, asked for in a dialog: it drops the endpoint's pending deliveries for good.
import { partialMatchKey, useQueryClient } from "@tanstack/react-query";
import { ErrorState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import { ConfirmActionDialog } from "@/components/ui/confirm-action-dialog";
import { webhookActions, webhookKeys, type WebhookEndpoint } from "./webhook-api";

export function DeleteEndpointDialog({ endpoint, disabled }: { endpoint: WebhookEndpoint; disabled?: boolean }) {
  const queryClient = useQueryClient();

  async function remove() {
    await webhookActions.remove(endpoint.endpointId);
    // Out of the list at once, so its deliveries (gone with it: 404) are no longer shown nor asked for; the
    // rest is refreshed. The dialog stays busy until then, so it cannot be deleted twice.
    const gone = webhookKeys.deliveriesOf(endpoint.endpointId);
    queryClient.setQueryData<WebhookEndpoint[]>(webhookKeys.endpoints, (list) =>
      list?.filter((e) => e.endpointId !== endpoint.endpointId),
    );
    await queryClient.cancelQueries({ queryKey: gone });
    queryClient.removeQueries({ queryKey: gone });
    await queryClient.invalidateQueries({
      queryKey: webhookKeys.all,
      predicate: (query) => !partialMatchKey(query.queryKey, gone),
    });
  }

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
      onConfirm={remove}
      renderError={(error) => <ErrorState title="Could not delete the endpoint" error={error} />}
    />
  );
}
