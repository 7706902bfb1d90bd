"use client";

// Set, change or remove a key's credit limit from its row (PATCH /api/developers/keys/:keyId).
import * as React from "react";
import { GaugeIcon } from "lucide-react";
import { useUpdateApiKey } from "@/components/data/api-keys";
import type { ApiKey } from "@/components/data/types";
import { formatCredits, formatNumber } from "@/components/dashboard/format";
import { ResourceDialog, ResourceForm } from "@/components/resource/resource-dialog";
import { Button } from "@/components/ui/button";
import { CreditLimitFields, draftOf, limitOf } from "./credit-limit-fields";

export function KeyLimitDialog({ apiKey }: { apiKey: ApiKey }) {
  const [open, setOpen] = React.useState(false);
  const [draft, setDraft] = React.useState(() => draftOf(apiKey));
  const [formError, setFormError] = React.useState<string | null>(null);
  const save = useUpdateApiKey(apiKey.keyId);
  const saveLimit = (limit: Pick<ApiKey, "creditLimit" | "creditLimitReset">) =>
    save.mutate(limit, { onSuccess: () => setOpen(false) });

  function openChange(next: boolean) {
    setOpen(next);
    if (next) setDraft(draftOf(apiKey));
    save.reset();
    setFormError(null);
  }

  function submit() {
    const limit = limitOf(draft);
    if ("error" in limit) return setFormError(limit.error);
    setFormError(null);
    saveLimit(limit);
  }

  return (
    <ResourceDialog
      trigger={
        <Button variant="outline" size="sm">
          <GaugeIcon /> Limit
        </Button>
      }
      open={open}
      onOpenChange={openChange}
      isBusy={save.isPending}
    >
      <ResourceForm
        title={<>Credit limit of {apiKey.name}</>}
        description={
          apiKey.creditLimit === null
            ? `No limit yet. This key spent ${formatCredits(apiKey.usage.monthly)} this month.`
            : `${formatNumber(apiKey.creditLimitRemaining ?? 0)} of ${formatCredits(apiKey.creditLimit)} left. What it already spent counts against a new limit.`
        }
        onSubmit={submit}
        submitLabel="Save limit"
        formError={formError}
        requestError={save.error}
        errorTitle="Could not save the limit"
        isPending={save.isPending}
        secondaryAction={
          apiKey.creditLimit !== null && (
            <Button
              type="button"
              variant="outline"
              onClick={() => saveLimit({ creditLimit: null, creditLimitReset: null })}
              disabled={save.isPending}
            >
              Remove limit
            </Button>
          )
        }
      >
        <CreditLimitFields id={`limit-${apiKey.keyId}`} draft={draft} onChange={setDraft} />
      </ResourceForm>
    </ResourceDialog>
  );
}
