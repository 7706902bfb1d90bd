"use client";

import * as React from "react";
import { PlusIcon } from "lucide-react";
import { scopes } from "@/lib/contract/vocabulary";
import { useCreateApiKey } from "@/components/data/api-keys";
import type { Scope } from "@/components/data/types";
import { ChoiceList } from "@/components/resource/choice-list";
import { DoneFooter, ResourceDialog, ResourceDialogHeader, ResourceForm } from "@/components/resource/resource-dialog";
import { Button } from "@/components/ui/button";
import { TextField } from "@/components/ui/text-field";
import { defaultScopes, scopeDescriptions } from "./scope-labels";
import { ApiKeySecret } from "./api-key-secret";
import { CreditLimitFields, draftOf, limitOf } from "./credit-limit-fields";

function tomorrow(): string {
  const d = new Date();
  d.setDate(d.getDate() + 1);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/** A date picked in the browser means "through the end of that day", local time. */
const endOfLocalDay = (date: string) => new Date(`${date}T23:59:59.999`).toISOString();

export function CreateKeyDialog() {
  const [name, setName] = React.useState("");
  const [selected, setSelected] = React.useState<Scope[]>(defaultScopes);
  const [expiry, setExpiry] = React.useState("");
  const [limit, setLimit] = React.useState(draftOf);
  const [formError, setFormError] = React.useState<string | null>(null);
  // The secret shows at once; the list refreshes behind the dialog.
  const createKey = useCreateApiKey();
  const created = createKey.data ?? null;

  function forget() {
    // The secret first.
    createKey.reset();
    setName("");
    setSelected(defaultScopes);
    setExpiry("");
    setLimit(draftOf());
    setFormError(null);
  }

  function submit() {
    createKey.reset();
    const trimmed = name.trim();
    if (!trimmed) return setFormError("Give the key a name, e.g. where it will be used.");
    if (trimmed.length > 80) return setFormError("Use at most 80 characters for the name.");
    if (selected.length === 0) return setFormError("Choose at least one scope.");
    const creditLimit = limitOf(limit);
    if ("error" in creditLimit) return setFormError(creditLimit.error);
    setFormError(null);
    createKey.mutate({
      name: trimmed,
      scopes: selected,
      ...(expiry ? { expiresAt: endOfLocalDay(expiry) } : {}),
      ...(creditLimit.creditLimit !== null ? creditLimit : {}),
    });
  }

  return (
    <ResourceDialog
      trigger={
        <Button>
          <PlusIcon /> Create key
        </Button>
      }
      secret={created?.key ?? null}
      secretName="key"
      isBusy={createKey.isPending}
      onClosed={forget}
    >
      {created ? (
        <>
          <ResourceDialogHeader
            title="API key created"
            description={
              <>
                <span className="font-medium text-foreground">{created.name}</span> can use: {created.scopes.join(", ")}
                .
              </>
            }
          />
          <ApiKeySecret secret={created.key} />
          <DoneFooter />
        </>
      ) : (
        <ResourceForm
          title="Create an API key"
          description="Keys authenticate your code with the x-api-key header. Give each app its own key."
          onSubmit={submit}
          submitLabel="Create key"
          formError={formError}
          requestError={createKey.error}
          errorTitle="Could not create the key"
          isPending={createKey.isPending}
        >
          <TextField
            id="key-name"
            label="Name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={80}
            placeholder="e.g. Production backend"
            autoComplete="off"
            autoFocus
          />
          <ChoiceList
            legend="Scopes"
            idPrefix="scope"
            options={scopes.map((scope) => ({ value: scope, description: scopeDescriptions[scope] }))}
            selected={selected}
            onChange={setSelected}
          />
          <TextField
            id="key-expiry"
            label="Expires (optional)"
            type="date"
            min={tomorrow()}
            value={expiry}
            onChange={(e) => setExpiry(e.target.value)}
            className="w-fit"
            hint="The key stops working after the end of this day. Leave empty for a key that does not expire."
          />
          <CreditLimitFields id="key-limit" draft={limit} onChange={setLimit} />
        </ResourceForm>
      )}
    </ResourceDialog>
  );
}
