"use client";

import { TriangleAlertIcon } from "lucide-react";
import { Alert, AlertDescription, AlertTitle } from "./alert";
import { CopyButton } from "./copy-button";
import { Input } from "./input";
import { Label } from "./label";

/**
 * A secret shown the one time the API returns it (an API key, a webhook signing secret): a read-only
 * field, a copy button and the warning. The secret lives only in the state of the dialog rendering this;
 * closing the dialog drops it for good. `children` says how to keep it.
 */
export function SecretReveal({
  id,
  label,
  copyLabel,
  secret,
  children,
}: {
  id: string;
  label: string;
  copyLabel: string;
  secret: string;
  children: React.ReactNode;
}) {
  return (
    <div className="grid gap-4">
      <div className="grid gap-2">
        <Label htmlFor={id}>{label}</Label>
        <div className="flex gap-2">
          <Input
            id={id}
            readOnly
            value={secret}
            spellCheck={false}
            autoComplete="off"
            className="font-mono text-xs"
            onFocus={(e) => e.currentTarget.select()}
          />
          <CopyButton value={secret} aria-label={copyLabel} />
        </div>
      </div>
      <Alert variant="warning">
        <TriangleAlertIcon />
        <AlertTitle>Copy it now: you won&apos;t see it again</AlertTitle>
        <AlertDescription>{children}</AlertDescription>
      </Alert>
    </div>
  );
}
