"use client";

// The credit limit's two fields, shared by the create dialog and the key's limit dialog: an amount (empty
// for no limit) and when it resets.
import type { ApiKey } from "@/components/data/types";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { NativeSelect } from "@/components/ui/native-select";

export interface CreditLimitDraft {
  /** Credits as typed; empty: no limit. */
  amount: string;
  reset: "" | NonNullable<ApiKey["creditLimitReset"]>;
}

export const draftOf = (key?: Pick<ApiKey, "creditLimit" | "creditLimitReset">): CreditLimitDraft => ({
  amount: key?.creditLimit === null || key?.creditLimit === undefined ? "" : String(key.creditLimit),
  reset: key?.creditLimitReset ?? "",
});

/** The request's fields for a draft, or an error to show: a limit is a whole number of credits above 0. */
export function limitOf(draft: CreditLimitDraft): Pick<ApiKey, "creditLimit" | "creditLimitReset"> | { error: string } {
  const amount = draft.amount.trim();
  if (amount === "") return { creditLimit: null, creditLimitReset: null };
  if (!/^\d{1,15}$/.test(amount) || Number(amount) < 1)
    return { error: "Enter a whole number of credits, at least 1, or leave it empty for no limit." };
  return { creditLimit: Number(amount), creditLimitReset: draft.reset || null };
}

export function CreditLimitFields({
  id,
  draft,
  onChange,
}: {
  id: string;
  draft: CreditLimitDraft;
  onChange: (draft: CreditLimitDraft) => void;
}) {
  return (
    <div className="grid gap-3 sm:grid-cols-[1fr_auto]">
      <div className="grid gap-2">
        <Label htmlFor={`${id}-amount`}>Credit limit (optional)</Label>
        <Input
          id={`${id}-amount`}
          inputMode="numeric"
          value={draft.amount}
          onChange={(e) => onChange({ ...draft, amount: e.target.value })}
          placeholder="No limit"
          autoComplete="off"
          aria-describedby={`${id}-hint`}
        />
      </div>
      <div className="grid gap-2">
        <Label htmlFor={`${id}-reset`}>Resets</Label>
        <NativeSelect
          id={`${id}-reset`}
          value={draft.reset}
          onChange={(e) => onChange({ ...draft, reset: e.target.value as CreditLimitDraft["reset"] })}
          disabled={draft.amount.trim() === ""}
        >
          <option value="">Never</option>
          <option value="daily">Daily</option>
          <option value="weekly">Weekly</option>
          <option value="monthly">Monthly</option>
        </NativeSelect>
      </div>
      <p id={`${id}-hint`} className="text-xs text-muted-foreground sm:col-span-2">
        The most this key may spend; a job that would pass it is refused (402). Resets at 00:00 UTC; weeks start on
        Monday.
      </p>
    </div>
  );
}
