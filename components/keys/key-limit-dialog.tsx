"use client";

// Set, change or remove a key's credit limit from its row (PATCH /api/developers/keys/:keyId).
import * as React from "react";
import { GaugeIcon, Loader2Icon } from "lucide-react";
import { useUpdateApiKey } from "@/components/data/api-keys";
import type { ApiKey } from "@/components/data/types";
import { formatCredits, formatNumber } from "@/components/dashboard/format";
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
import { CreditLimitFields, draftOf, limitOf } from "./credit-limit-fields";

export function KeyLimitDialog({ apiKey }: { apiKey: ApiKey }) {
  const [open, setOpen] = React.useState(false);
  const [draft, setDraft] = React.useState(() => draftOf(apiKey));
  const [formError, setFormError] = React.useState<string | null>(null);
  const save = useUpdateApiKey(apiKey.keyId);
  const saveLimit = (limit: Pick<ApiKey, "creditLimit" | "creditLimitReset">) =>
    save.mutate(limit, { onSuccess: () => setOpen(false) });

  function openChange(next: boolean) {
    if (save.isPending) return;
    setOpen(next);
    if (next) setDraft(draftOf(apiKey));
    save.reset();
    setFormError(null);
  }

  function submit(event: React.FormEvent) {
    event.preventDefault();
    const limit = limitOf(draft);
    if ("error" in limit) return setFormError(limit.error);
    setFormError(null);
    saveLimit(limit);
  }

  return (
    <Dialog open={open} onOpenChange={openChange}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm">
          <GaugeIcon /> Limit
        </Button>
      </DialogTrigger>
      <DialogContent>
        <form onSubmit={submit} noValidate className="grid gap-5">
          <DialogHeader>
            <DialogTitle>Credit limit of {apiKey.name}</DialogTitle>
            <DialogDescription>
              {apiKey.creditLimit === null
                ? `No limit yet. This key spent ${formatCredits(apiKey.usage.monthly)} this month.`
                : `${formatNumber(apiKey.creditLimitRemaining ?? 0)} of ${formatCredits(apiKey.creditLimit)} left. What it already spent counts against a new limit.`}
            </DialogDescription>
          </DialogHeader>
          <CreditLimitFields id={`limit-${apiKey.keyId}`} draft={draft} onChange={setDraft} />
          {formError && (
            <p role="alert" className="text-sm text-destructive">
              {formError}
            </p>
          )}
          {save.isError && <ErrorState title="Could not save the limit" error={save.error} />}
          <DialogFooter>
            {apiKey.creditLimit !== null && (
              <Button
                type="button"
                variant="outline"
                onClick={() => saveLimit({ creditLimit: null, creditLimitReset: null })}
                disabled={save.isPending}
              >
                Remove limit
              </Button>
            )}
            <Button type="submit" disabled={save.isPending}>
              {save.isPending && <Loader2Icon className="animate-spin" />}
              Save limit
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
