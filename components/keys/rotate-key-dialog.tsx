"use client";

import * as React from "react";
import { RefreshCwIcon } from "lucide-react";
import { useRotateApiKey } from "@/components/data/api-keys";
import type { ApiKey } from "@/components/data/types";
import { formatDateTime, keyPreview } from "@/components/dashboard/format";
import { DoneFooter, ResourceDialog, ResourceDialogHeader, ResourceForm } from "@/components/resource/resource-dialog";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { NativeSelect } from "@/components/ui/native-select";
import { ApiKeySecret } from "./api-key-secret";

const units = { seconds: 1, minutes: 60, hours: 3600 } as const;
type Unit = keyof typeof units;
const maxGraceSeconds = 7 * 24 * 3600;

export function RotateKeyDialog({ apiKey }: { apiKey: ApiKey }) {
  const [amount, setAmount] = React.useState("");
  const [unit, setUnit] = React.useState<Unit>("minutes");
  const [formError, setFormError] = React.useState<string | null>(null);
  // The secret shows at once; the list refreshes behind the dialog.
  const rotate = useRotateApiKey(apiKey.keyId);
  const rotated = rotate.data ?? null;

  function forget() {
    rotate.reset();
    setAmount("");
    setUnit("minutes");
    setFormError(null);
  }

  function submit() {
    rotate.reset();
    let gracePeriodSeconds: number | undefined;
    if (amount.trim() !== "") {
      const n = Number(amount);
      if (!Number.isInteger(n) || n < 0) return setFormError("Enter a whole number, or leave empty.");
      gracePeriodSeconds = n * units[unit];
      if (gracePeriodSeconds > maxGraceSeconds) return setFormError("The grace period can be at most 7 days.");
    }
    setFormError(null);
    rotate.mutate(gracePeriodSeconds);
  }

  return (
    <ResourceDialog
      trigger={
        <Button variant="outline" size="sm">
          <RefreshCwIcon /> Rotate
        </Button>
      }
      secret={rotated?.key.key ?? null}
      secretName="key"
      isBusy={rotate.isPending}
      onClosed={forget}
    >
      {rotated ? (
        <>
          <ResourceDialogHeader
            title="Key rotated"
            description={
              <>
                <span className="font-medium text-foreground">{rotated.key.name}</span> keeps its id and scopes and has
                a new secret.
              </>
            }
          />
          <ApiKeySecret secret={rotated.key.key}>
            <p>
              {rotated.oldSecretValidUntil
                ? `The old secret keeps working until about ${formatDateTime(rotated.oldSecretValidUntil.toISOString())}.`
                : "The old secret has stopped working."}
            </p>
          </ApiKeySecret>
          <DoneFooter />
        </>
      ) : (
        <ResourceForm
          title={<>Rotate “{apiKey.name}”</>}
          description={
            <>
              Issues a new secret for <span className="font-mono">{keyPreview(apiKey.prefix)}</span>. The key keeps its
              id, name and scopes.
            </>
          }
          onSubmit={submit}
          submitLabel="Rotate key"
          formError={formError}
          requestError={rotate.error}
          errorTitle="Could not rotate the key"
          isPending={rotate.isPending}
        >
          <div className="grid gap-2">
            <Label htmlFor="grace-amount">Grace period for the old secret (optional)</Label>
            <div className="flex gap-2">
              <Input
                id="grace-amount"
                type="number"
                inputMode="numeric"
                min={0}
                step={1}
                placeholder="0"
                value={amount}
                onChange={(e) => setAmount(e.target.value)}
                className="w-32"
                aria-describedby="grace-hint"
              />
              <NativeSelect
                aria-label="Grace period unit"
                value={unit}
                onChange={(e) => setUnit(e.target.value as Unit)}
              >
                <option value="seconds">seconds</option>
                <option value="minutes">minutes</option>
                <option value="hours">hours</option>
              </NativeSelect>
            </div>
            <p id="grace-hint" className="text-xs text-muted-foreground">
              Leave empty to stop the old secret at once. A grace period (up to 7 days) lets you deploy the new secret
              first.
            </p>
          </div>
        </ResourceForm>
      )}
    </ResourceDialog>
  );
}
