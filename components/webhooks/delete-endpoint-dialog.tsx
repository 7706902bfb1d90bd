"use client";

// Deleting a webhook endpoint, asked for in a dialog: it drops the endpoint's pending deliveries for good.
import * as React from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Loader2Icon } from "lucide-react";
import { ErrorState } from "@/components/dashboard/states";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import { webhookActions, webhookKeys, type WebhookEndpoint } from "./webhook-api";

export function DeleteEndpointDialog({ endpoint, disabled }: { endpoint: WebhookEndpoint; disabled?: boolean }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = React.useState(false);
  const remove = useMutation({
    mutationFn: () => webhookActions.remove(endpoint.endpointId),
    onSuccess: async () => {
      setOpen(false);
      await queryClient.invalidateQueries({ queryKey: webhookKeys.all });
    },
  });

  return (
    <AlertDialog
      open={open}
      onOpenChange={(next) => {
        if (remove.isPending) return;
        setOpen(next);
        if (!next) remove.reset();
      }}
    >
      <AlertDialogTrigger asChild>
        <Button size="sm" variant="outline" disabled={disabled || remove.isPending}>
          Delete
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Delete webhook endpoint</AlertDialogTitle>
          <AlertDialogDescription>
            Delete <span className="font-mono break-all">{endpoint.url}</span>? Its pending deliveries are dropped. This cannot be
            undone.
          </AlertDialogDescription>
        </AlertDialogHeader>
        {remove.isError && <ErrorState title="Could not delete the endpoint" error={remove.error} />}
        <AlertDialogFooter>
          <AlertDialogCancel disabled={remove.isPending}>Cancel</AlertDialogCancel>
          <Button variant="destructive" onClick={() => remove.mutate()} disabled={remove.isPending}>
            {remove.isPending && <Loader2Icon className="animate-spin" />}
            Delete endpoint
          </Button>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
