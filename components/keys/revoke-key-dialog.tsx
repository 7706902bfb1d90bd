"use client";

// Revoking an API key, asked for in a dialog: requests with it fail from then on.
import { Trash2Icon } from "lucide-react";
import { useRevokeApiKey } from "@/components/data/api-keys";
import type { ApiKey } from "@/components/data/types";
import { keyPreview } from "@/components/dashboard/format";
import { ErrorState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import { ConfirmActionDialog } from "@/components/ui/confirm-action-dialog";

export function RevokeKeyDialog({ apiKey }: { apiKey: ApiKey }) {
  // The row turns Revoked at once; the list refreshes behind it.
  const revoke = useRevokeApiKey(apiKey.keyId);

  return (
    <ConfirmActionDialog
      trigger={
        <Button variant="ghost" size="sm" className="text-destructive hover:bg-destructive/10 hover:text-destructive">
          <Trash2Icon /> Revoke
        </Button>
      }
      title={<>Revoke “{apiKey.name}”?</>}
      description={
        <>
          Requests using <span className="font-mono">{keyPreview(apiKey.prefix)}</span> will fail at once. This cannot
          be undone.
        </>
      }
      confirmLabel="Revoke key"
      onConfirm={() => revoke.mutateAsync()}
      renderError={(error) => <ErrorState title="Could not revoke the key" error={error} />}
    />
  );
}
