"use client";

import * as React from "react";
import { Loader2Icon, RefreshCwIcon } from "lucide-react";
import { useRotateApiKey } from "@/components/data/api-keys";
import type { ApiKey } from "@/components/data/types";
import { formatDateTime, keyPreview } from "@/components/dashboard/format";
import { ErrorState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "@/components/ui/dialog";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { NativeSelect } from "@/components/ui/native-select";
import { useSecretCloseGuard } from "@/components/ui/secret-reveal";
import { ApiKeySecret } from "./api-key-secret";

const units = { seconds: 1, minutes: 60, hours: 3600 } as const;
type Unit = keyof typeof units;
const maxGraceSeconds = 7 * 24 * 3600;

export function RotateKeyDialog({ apiKey }: { apiKey: ApiKey }) {
  const [open, setOpen] = React.useState(false);
  const [amount, setAmount] = React.useState("");
  const [unit, setUnit] = React.useState<Unit>("minutes");
  const [formError, setFormError] = React.useState<string | null>(null);
  // The secret shows at once; the list refreshes behind the dialog.
  const rotate = useRotateApiKey(apiKey.keyId);
  const rotated = rotate.data ?? null;
  const guard = useSecretCloseGuard({ what: "key", close: () => openChange(false) });

  function openChange(next: boolean) {
    // Closing mid-request would drop the secret the answer carries.
    if (rotate.isPending) return;
    setOpen(next);
    if (!next) {
      guard.reset();
      rotate.reset();
      setAmount("");
      setUnit("minutes");
      setFormError(null);
    }
  }

  function submit(event: React.FormEvent) {
    event.preventDefault();
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
    <Dialog open={open} onOpenChange={openChange}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm">
          <RefreshCwIcon /> Rotate
        </Button>
      </DialogTrigger>
      <DialogContent
        onInteractOutside={(e) => rotated && e.preventDefault()}
        onEscapeKeyDown={(e) => rotated && guard.onEscapeKeyDown(e)}
      >
        {guard.confirmation}
        {rotated ? (
          <>
            <DialogHeader>
              <DialogTitle>Key rotated</DialogTitle>
              <DialogDescription>
                <span className="font-medium text-foreground">{rotated.key.name}</span> keeps its id and scopes and has
                a new secret.
              </DialogDescription>
            </DialogHeader>
            <ApiKeySecret secret={rotated.key.key} onCopy={guard.onCopy}>
              <p>
                {rotated.oldSecretValidUntil
                  ? `The old secret keeps working until about ${formatDateTime(rotated.oldSecretValidUntil.toISOString())}.`
                  : "The old secret has stopped working."}
              </p>
            </ApiKeySecret>
            <DialogFooter>
              <Button onClick={() => openChange(false)}>Done</Button>
            </DialogFooter>
          </>
        ) : (
          <form onSubmit={submit} noValidate className="grid gap-5">
            <DialogHeader>
              <DialogTitle>Rotate “{apiKey.name}”</DialogTitle>
              <DialogDescription>
                Issues a new secret for <span className="font-mono">{keyPreview(apiKey.prefix)}</span>. The key keeps
                its id, name and scopes.
              </DialogDescription>
            </DialogHeader>
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
            {formError && (
              <p role="alert" className="text-sm text-destructive">
                {formError}
              </p>
            )}
            {rotate.isError && <ErrorState title="Could not rotate the key" error={rotate.error} />}
            <DialogFooter>
              <Button type="button" variant="outline" onClick={() => openChange(false)} disabled={rotate.isPending}>
                Cancel
              </Button>
              <Button type="submit" disabled={rotate.isPending}>
                {rotate.isPending && <Loader2Icon className="animate-spin" />}
                Rotate key
              </Button>
            </DialogFooter>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}
