"use client";

import * as React from "react";
import { Loader2Icon, PlusIcon } from "lucide-react";
import { scopes } from "@/lib/contract/vocabulary";
import { useCreateApiKey } from "@/components/data/api-keys";
import type { Scope } from "@/components/data/types";
import { ErrorState } from "@/components/dashboard/states";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
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
import { defaultScopes, scopeDescriptions } from "./scope-labels";
import { useSecretCloseGuard } from "@/components/ui/secret-reveal";
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
  const [open, setOpen] = React.useState(false);
  const [name, setName] = React.useState("");
  const [selected, setSelected] = React.useState<Scope[]>(defaultScopes);
  const [expiry, setExpiry] = React.useState("");
  const [limit, setLimit] = React.useState(draftOf);
  const [formError, setFormError] = React.useState<string | null>(null);
  // The secret shows at once; the list refreshes behind the dialog.
  const createKey = useCreateApiKey();
  const created = createKey.data ?? null;
  const guard = useSecretCloseGuard({ what: "key", close: () => openChange(false) });

  function openChange(next: boolean) {
    // Closing mid-request would drop the secret the answer carries.
    if (createKey.isPending) return;
    setOpen(next);
    if (!next) {
      guard.reset();
      // Forget everything, the secret first.
      createKey.reset();
      setName("");
      setSelected(defaultScopes);
      setExpiry("");
      setLimit(draftOf());
      setFormError(null);
    }
  }

  const toggle = (scope: Scope, checked: boolean) =>
    setSelected((s) => (checked ? scopes.filter((x) => x === scope || s.includes(x)) : s.filter((x) => x !== scope)));

  function submit(event: React.FormEvent) {
    event.preventDefault();
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
    <Dialog open={open} onOpenChange={openChange}>
      <DialogTrigger asChild>
        <Button>
          <PlusIcon /> Create key
        </Button>
      </DialogTrigger>
      <DialogContent
        onInteractOutside={(e) => created && e.preventDefault()}
        onEscapeKeyDown={(e) => created && guard.onEscapeKeyDown(e)}
      >
        {guard.confirmation}
        {created ? (
          <>
            <DialogHeader>
              <DialogTitle>API key created</DialogTitle>
              <DialogDescription>
                <span className="font-medium text-foreground">{created.name}</span> can use: {created.scopes.join(", ")}
                .
              </DialogDescription>
            </DialogHeader>
            <ApiKeySecret secret={created.key} onCopy={guard.onCopy} />
            <DialogFooter>
              <Button onClick={() => openChange(false)}>Done</Button>
            </DialogFooter>
          </>
        ) : (
          <form onSubmit={submit} noValidate className="grid gap-5">
            <DialogHeader>
              <DialogTitle>Create an API key</DialogTitle>
              <DialogDescription>
                Keys authenticate your code with the x-api-key header. Give each app its own key.
              </DialogDescription>
            </DialogHeader>
            <div className="grid gap-2">
              <Label htmlFor="key-name">Name</Label>
              <Input
                id="key-name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                maxLength={80}
                placeholder="e.g. Production backend"
                autoComplete="off"
                autoFocus
              />
            </div>
            <fieldset className="grid gap-3">
              <legend className="mb-2 text-sm font-medium">Scopes</legend>
              {scopes.map((scope) => (
                <div key={scope} className="flex items-start gap-3">
                  <Checkbox
                    id={`scope-${scope}`}
                    checked={selected.includes(scope)}
                    onCheckedChange={(checked) => toggle(scope, checked === true)}
                    className="mt-0.5"
                  />
                  <div className="grid gap-0.5">
                    <Label htmlFor={`scope-${scope}`} className="font-mono text-xs">
                      {scope}
                    </Label>
                    <p className="text-xs text-muted-foreground">{scopeDescriptions[scope]}</p>
                  </div>
                </div>
              ))}
            </fieldset>
            <div className="grid gap-2">
              <Label htmlFor="key-expiry">Expires (optional)</Label>
              <Input
                id="key-expiry"
                type="date"
                min={tomorrow()}
                value={expiry}
                onChange={(e) => setExpiry(e.target.value)}
                className="w-fit"
                aria-describedby="key-expiry-hint"
              />
              <p id="key-expiry-hint" className="text-xs text-muted-foreground">
                The key stops working after the end of this day. Leave empty for a key that does not expire.
              </p>
            </div>
            <CreditLimitFields id="key-limit" draft={limit} onChange={setLimit} />
            {formError && (
              <p role="alert" className="text-sm text-destructive">
                {formError}
              </p>
            )}
            {createKey.isError && <ErrorState title="Could not create the key" error={createKey.error} />}
            <DialogFooter>
              <Button type="button" variant="outline" onClick={() => openChange(false)} disabled={createKey.isPending}>
                Cancel
              </Button>
              <Button type="submit" disabled={createKey.isPending}>
                {createKey.isPending && <Loader2Icon className="animate-spin" />}
                Create key
              </Button>
            </DialogFooter>
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}
