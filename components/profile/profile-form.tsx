"use client";

import * as React from "react";
import { useRouter } from "next/navigation";
import { Loader2Icon } from "lucide-react";
import { ApiError } from "@/components/data/fetch-api";
import { useSaveProfile, type ProfileFields } from "@/components/data/profile";
import type { Profile } from "@/components/data/types";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { ErrorState } from "@/components/dashboard/states";
import { emailAddressPattern } from "@/lib/contract/vocabulary";

interface Fields {
  name: string;
  email: string;
  organization: string;
  /** Credits as typed; empty: no low-balance alert. */
  lowBalanceThreshold: string;
}
type FieldErrors = Partial<Record<keyof Fields, string>>;

function validate(fields: Fields, previous: Profile | null): FieldErrors {
  const errors: FieldErrors = {};
  const name = fields.name.trim();
  if (!name) errors.name = "Enter a name.";
  else if (name.length > 80) errors.name = "Use at most 80 characters.";
  const email = fields.email.trim();
  if (email && (email.length > 254 || !emailAddressPattern.test(email))) errors.email = "Enter a valid email address.";
  if (!email && previous?.email) errors.email = "An email cannot be removed once set; enter a new address instead.";
  if (fields.organization.trim().length > 80) errors.organization = "Use at most 80 characters.";
  if (fields.lowBalanceThreshold.trim() && !/^\d{1,15}$/.test(fields.lowBalanceThreshold.trim())) {
    errors.lowBalanceThreshold = "Enter a whole number of credits, or leave it empty for no alert.";
  }
  return errors;
}

/** Create: every filled field. Edit: only what changed (PATCH is partial). */
function requestBody(fields: Fields, previous: Profile | null): ProfileFields {
  const next = { name: fields.name.trim(), email: fields.email.trim(), organization: fields.organization.trim() };
  const body: ProfileFields = {};
  if (!previous) {
    body.name = next.name;
    if (next.email) body.email = next.email;
    if (next.organization) body.organization = next.organization;
    return body;
  }
  if (next.name !== previous.name) body.name = next.name;
  if (next.email && next.email !== (previous.email ?? "")) body.email = next.email;
  if (next.organization !== (previous.organization ?? "")) body.organization = next.organization;
  const threshold = fields.lowBalanceThreshold.trim() === "" ? null : Number(fields.lowBalanceThreshold.trim());
  if (threshold !== previous.lowBalanceThreshold) body.lowBalanceThreshold = threshold;
  return body;
}

/** Field errors the server reported as `details.issues: [{path, message}]`. */
function serverFieldErrors(error: unknown): FieldErrors {
  if (!(error instanceof ApiError) || !Array.isArray(error.details?.issues)) return {};
  const errors: FieldErrors = {};
  for (const issue of error.details.issues as { path?: unknown; message?: unknown }[]) {
    const field = String(Array.isArray(issue.path) ? issue.path[0] : (issue.path ?? ""));
    if (
      (field === "name" || field === "email" || field === "organization" || field === "lowBalanceThreshold") &&
      typeof issue.message === "string"
    ) {
      errors[field] = issue.message;
    }
  }
  return errors;
}

export function ProfileForm({
  profile,
  onSaved,
  onCancel,
  initialName = "",
  nameOnly = false,
}: {
  /** The current profile when editing; null to create one. */
  profile: Profile | null;
  onSaved: (profile: Profile) => void;
  onCancel?: () => void;
  /** The name a new profile starts with. */
  initialName?: string;
  /** Only the name (email and organization can be added later on Profile). */
  nameOnly?: boolean;
}) {
  const [fields, setFields] = React.useState<Fields>({
    name: profile?.name ?? initialName,
    email: profile?.email ?? "",
    organization: profile?.organization ?? "",
    lowBalanceThreshold:
      profile?.lowBalanceThreshold === null || profile?.lowBalanceThreshold === undefined
        ? ""
        : String(profile.lowBalanceThreshold),
  });
  const [errors, setErrors] = React.useState<FieldErrors>({});
  const router = useRouter();
  const save = useSaveProfile(profile);

  const set = (field: keyof Fields) => (event: React.ChangeEvent<HTMLInputElement>) =>
    setFields((f) => ({ ...f, [field]: event.target.value }));

  function submit(event: React.FormEvent) {
    event.preventDefault();
    save.reset();
    const found = validate(fields, profile);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const body = requestBody(fields, profile);
    if (profile && Object.keys(body).length === 0) {
      onSaved(profile);
      return;
    }
    save.mutate(body, {
      onSuccess: (saved) => {
        onSaved(saved);
        // The layout renders the low-balance banner from the profile's threshold on the server.
        router.refresh();
      },
      onError: (error) => setErrors(serverFieldErrors(error)),
    });
  }

  const field = (name: keyof Fields, label: string, props: React.ComponentProps<typeof Input>, hint?: string) => (
    <div className="grid gap-2">
      <Label htmlFor={`profile-${name}`}>{label}</Label>
      <Input
        id={`profile-${name}`}
        value={fields[name]}
        onChange={set(name)}
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={errors[name] ? `profile-${name}-error` : hint ? `profile-${name}-hint` : undefined}
        {...props}
      />
      {errors[name] ? (
        <p id={`profile-${name}-error`} className="text-xs text-destructive">
          {errors[name]}
        </p>
      ) : (
        hint && (
          <p id={`profile-${name}-hint`} className="text-xs text-muted-foreground">
            {hint}
          </p>
        )
      )}
    </div>
  );

  return (
    <form onSubmit={submit} noValidate className="grid max-w-md gap-5">
      {field("name", "Name", { autoComplete: "name", maxLength: 80, required: true, placeholder: "Ada Lovelace" })}
      {!nameOnly &&
        field(
          "email",
          "Email (optional)",
          { type: "email", autoComplete: "email", placeholder: "ada@example.com" },
          "For notices about your account. Never shown publicly.",
        )}
      {!nameOnly &&
        field("organization", "Organization (optional)", {
          autoComplete: "organization",
          maxLength: 80,
          placeholder: "Analytical Engines Ltd",
        })}
      {/* The alert needs the profile first: POST /api/developers takes only the fields above. */}
      {profile &&
        !nameOnly &&
        field(
          "lowBalanceThreshold",
          "Low-balance alert (optional)",
          { inputMode: "numeric", autoComplete: "off", placeholder: "No alert" },
          "Credits. Below this, the dashboard shows a banner and a credits.low webhook event is sent once.",
        )}
      {save.isError &&
        !(
          save.error instanceof ApiError &&
          save.error.code === "INVALID_REQUEST" &&
          Object.keys(errors).length > 0
        ) && (
          <ErrorState
            title={profile ? "Could not save the profile" : "Could not create the profile"}
            error={save.error}
          />
        )}
      <div className="flex gap-2">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending && <Loader2Icon className="animate-spin" />}
          {profile ? "Save changes" : "Create profile"}
        </Button>
        {onCancel && (
          <Button type="button" variant="outline" onClick={onCancel} disabled={save.isPending}>
            Cancel
          </Button>
        )}
      </div>
    </form>
  );
}
