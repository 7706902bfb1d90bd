"use client";

import * as React from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Loader2Icon, Trash2Icon } from "lucide-react";
import { apiFetch } from "@/components/data/fetch-api";
import { queryKeys } from "@/components/data/query-keys";
import type { ApiKey } from "@/components/data/types";
import { keyPreview } from "@/components/dashboard/format";
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

export function RevokeKeyDialog({ apiKey }: { apiKey: ApiKey }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = React.useState(false);
  const revoke = useMutation({
    mutationFn: () => apiFetch<ApiKey>(`/api/developers/keys/${encodeURIComponent(apiKey.keyId)}`, { method: "DELETE" }),
    onSuccess: async (revoked) => {
      queryClient.setQueryData<ApiKey[]>(queryKeys.keys, (keys) => keys?.map((k) => (k.keyId === revoked.keyId ? revoked : k)));
      setOpen(false);
      await queryClient.invalidateQueries({ queryKey: queryKeys.keys });
    },
  });

  return (
    <AlertDialog
      open={open}
      onOpenChange={(next) => {
        if (revoke.isPending) return;
        setOpen(next);
        if (!next) revoke.reset();
      }}
    >
      <AlertDialogTrigger asChild>
        <Button variant="ghost" size="sm" className="text-destructive hover:bg-destructive/10 hover:text-destructive">
          <Trash2Icon /> Revoke
        </Button>
      </AlertDialogTrigger>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Revoke “{apiKey.name}”?</AlertDialogTitle>
          <AlertDialogDescription>
            Requests using <span className="font-mono">{keyPreview(apiKey.prefix)}</span> will fail at once. This cannot be
            undone.
          </AlertDialogDescription>
        </AlertDialogHeader>
        {revoke.isError && <ErrorState title="Could not revoke the key" error={revoke.error} />}
        <AlertDialogFooter>
          <AlertDialogCancel disabled={revoke.isPending}>Cancel</AlertDialogCancel>
          <Button variant="destructive" onClick={() => revoke.mutate()} disabled={revoke.isPending}>
            {revoke.isPending && <Loader2Icon className="animate-spin" />}
            Revoke key
          </Button>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
