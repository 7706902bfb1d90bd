"use client";

import { KeyRoundIcon } from "lucide-react";
import { useProfile } from "@/components/data/profile";
import { isKeyActive, useApiKeys } from "@/components/data/api-keys";
import type { ApiKey } from "@/components/data/types";
import { formatDate, formatDateTime, keyPreview } from "@/components/dashboard/format";
import { EmptyState, ErrorState } from "@/components/dashboard/states";
import { ProfileRequired } from "@/components/profile/profile-required";
import { Badge, CodeBadges } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
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

/**
 * The actions column sticks to the table's right edge from md up: when the columns are wider than the card
 * (many scopes, a long name) the rest scrolls under it and a row's actions stay on the screen. On a phone the
 * rows stack and the actions take a line of their own.
 */
const stickyActions =
  "md:sticky md:right-0 md:z-10 md:bg-card md:shadow-[inset_1px_0_0_var(--color-border),-8px_0_8px_-8px_rgb(0_0_0/0.2)]";

function KeysTable({ keys }: { keys: ApiKey[] }) {
  return (
    <Card className="py-0">
      <Table stackOnPhone>
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
            <TableHead className={`text-right ${stickyActions}`}>
              <span className="sr-only">Actions</span>
            </TableHead>
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
              <TableCell className={`max-md:basis-full ${stickyActions}`}>
                {!key.revokedAt && (
                  <div className="flex gap-1 md:justify-end">
                    <KeyLimitDialog apiKey={key} />
                    {/* Rotating would show its new secret here; the dashboard's key is revoked instead. */}
                    {key.kind !== "dashboard" && <RotateKeyDialog apiKey={key} />}
                    <RevokeKeyDialog apiKey={key} />
                  </div>
                )}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </Card>
  );
}

export function ApiKeysPanel({ suggestedProfileName }: { suggestedProfileName: string }) {
  // The page seeded the profile (WithProfile): without one there are no keys to ask for.
  const hasProfile = useProfile().data != null;
  const keys = useApiKeys({ enabled: hasProfile });

  if (!hasProfile) return <ProfileRequired what="API keys" suggestedName={suggestedProfileName} />;
  if (keys.isPending) {
    return (
      <div className="grid gap-2" aria-busy="true">
        <Skeleton className="h-10" />
        <Skeleton className="h-12" />
        <Skeleton className="h-12" />
      </div>
    );
  }
  if (keys.isError)
    return <ErrorState title="Could not load your API keys" error={keys.error} onRetry={() => keys.refetch()} />;

  // One dialog instance in a fixed place: it must outlive the list changing from empty to non-empty while
  // it shows a new secret.
  return (
    <div className="flex flex-col gap-4">
      <div className="flex items-center justify-between gap-4">
        <p className="text-sm text-muted-foreground">
          {keys.data.length > 0 && `${keys.data.filter((k) => isKeyActive(k)).length} active of ${keys.data.length}`}
        </p>
        <CreateKeyDialog />
      </div>
      {keys.data.length === 0 ? (
        <EmptyState
          icon={KeyRoundIcon}
          title="No API keys yet"
          description="Create a key to call the API from your code. Its secret is shown once, when you create it."
        />
      ) : (
        <KeysTable keys={keys.data} />
      )}
    </div>
  );
}
