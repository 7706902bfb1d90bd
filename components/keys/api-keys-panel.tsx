"use client";

import { KeyRoundIcon } from "lucide-react";
import { useProfile } from "@/components/data/profile";
import { isKeyActive, useApiKeys } from "@/components/data/api-keys";
import type { ApiKey } from "@/components/data/types";
import { formatDate, formatDateTime, keyPreview } from "@/components/dashboard/format";
import { ProfileRequired } from "@/components/profile/profile-required";
import { ActionsCell, ActionsHead, ResourceList, ResourceTable } from "@/components/resource/resource-list";
import { Badge, CodeBadges } from "@/components/ui/badge";
import { TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { CreateKeyDialog } from "./create-key-dialog";
import { KeyLimitDialog } from "./key-limit-dialog";
import { KeySpend } from "./key-spend";
import { RevokeKeyDialog } from "./revoke-key-dialog";
import { RotateKeyDialog } from "./rotate-key-dialog";

function KeyStatus({ apiKey }: { apiKey: ApiKey }) {
  if (apiKey.revokedAt) return <Badge variant="muted">Revoked</Badge>;
  if (!isKeyActive(apiKey)) return <Badge variant="warning">Expired</Badge>;
  return <Badge variant="success">Active</Badge>;
}

function KeysTable({ keys }: { keys: ApiKey[] }) {
  return (
    <ResourceTable label="API keys">
      <TableHeader>
        <TableRow className="hover:bg-transparent">
          <TableHead>Name</TableHead>
          <TableHead>Key</TableHead>
          <TableHead>Scopes</TableHead>
          <TableHead>Status</TableHead>
          <TableHead>Spend</TableHead>
          <TableHead>Created</TableHead>
          <TableHead>Last used</TableHead>
          <TableHead>Expires</TableHead>
          <ActionsHead />
        </TableRow>
      </TableHeader>
      <TableBody>
        {keys.map((key) => (
          <TableRow key={key.keyId} className={key.revokedAt ? "text-muted-foreground" : undefined}>
            <TableCell className="font-medium max-md:basis-full">
              <div className="flex flex-wrap items-center gap-2">
                {key.name}
                {key.kind === "dashboard" && (
                  <Badge
                    variant="outline"
                    title="The dashboard runs the playground with this key; its secret never leaves the server."
                  >
                    Dashboard
                  </Badge>
                )}
              </div>
              {key.kind === "dashboard" && !key.revokedAt && (
                <p className="mt-0.5 text-xs font-normal text-muted-foreground">
                  Used by the playground. Revoke it and the next Run makes a new one.
                </p>
              )}
            </TableCell>
            <TableCell className="font-mono text-xs whitespace-nowrap">{keyPreview(key.prefix)}</TableCell>
            <TableCell>
              <CodeBadges values={key.scopes} />
            </TableCell>
            <TableCell>
              <KeyStatus apiKey={key} />
            </TableCell>
            <TableCell className="max-md:basis-full">
              <KeySpend apiKey={key} />
            </TableCell>
            <TableCell className="whitespace-nowrap max-md:hidden">{formatDate(key.createdAt)}</TableCell>
            <TableCell className="whitespace-nowrap max-md:text-xs max-md:text-muted-foreground">
              <span className="md:hidden">Last used </span>
              {formatDateTime(key.lastUsedAt, "Never")}
            </TableCell>
            <TableCell className="whitespace-nowrap max-md:hidden">
              {key.revokedAt ? `Revoked ${formatDate(key.revokedAt)}` : formatDate(key.expiresAt, "Never")}
            </TableCell>
            <ActionsCell>
              {!key.revokedAt && (
                <>
                  <KeyLimitDialog apiKey={key} />
                  {/* Rotating would show its new secret here; the dashboard's key is revoked instead. */}
                  {key.kind !== "dashboard" && <RotateKeyDialog apiKey={key} />}
                  <RevokeKeyDialog apiKey={key} />
                </>
              )}
            </ActionsCell>
          </TableRow>
        ))}
      </TableBody>
    </ResourceTable>
  );
}

export function ApiKeysPanel({ suggestedProfileName }: { suggestedProfileName: string }) {
  // The page seeded the profile (WithProfile): without one there are no keys to ask for.
  const hasProfile = useProfile().data != null;
  const keys = useApiKeys({ enabled: hasProfile });

  if (!hasProfile) return <ProfileRequired what="API keys" suggestedName={suggestedProfileName} />;
  return (
    <ResourceList
      summary={(all) => `${all.filter((k) => isKeyActive(k)).length} active of ${all.length}`}
      action={<CreateKeyDialog />}
      items={keys.data}
      error={keys.error}
      onRetry={() => keys.refetch()}
      errorTitle="Could not load your API keys"
      empty={{
        icon: KeyRoundIcon,
        title: "No API keys yet",
        description: "Create a key to call the API from your code. Its secret is shown once, when you create it.",
      }}
    >
      {(all) => <KeysTable keys={all} />}
    </ResourceList>
  );
}
