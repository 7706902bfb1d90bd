"use client";

// Revoking an API key, asked for in a dialog: requests with it fail from then on.
import { useRevokeApiKey } from "@/components/data/api-keys";
import type { ApiKey } from "@/components/data/types";
import { keyPreview } from "@/components/dashboard/format";
import { ConfirmDialog, DangerButton } from "@/components/resource/confirm-dialog";

export function RevokeKeyDialog({ apiKey }: { apiKey: ApiKey }) {
  // The row turns Revoked at once; the list refreshes behind it.
  const revoke = useRevokeApiKey(apiKey.keyId);

  return (
    <ConfirmDialog
      trigger={<DangerButton>Revoke</DangerButton>}
      title={<>Revoke “{apiKey.name}”?</>}
      description={
        <>
          Requests using <span className="font-mono">{keyPreview(apiKey.prefix)}</span> will fail at once. This cannot
          be undone.
        </>
      }
      confirmLabel="Revoke key"
      onConfirm={() => revoke.mutateAsync()}
      errorTitle="Could not revoke the key"
    />
  );
}
