"use client";

// A secret shown the one time the API returns it (an API key, a node token, a webhook signing secret): a
// read-only field, a copy button and the warning. The secret lives only in the state of the dialog showing
// it; inside a ResourceDialog, copying it (with the button or from the field) lets the dialog close unasked.
import * as React from "react";
import { TriangleAlertIcon } from "lucide-react";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { CopyButton } from "@/components/ui/copy-button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useResourceDialog } from "./resource-dialog";

export function SecretShownOnce({
  id,
  label,
  copyWhat,
  secret,
  children,
}: {
  id: string;
  label: string;
  /** What the copy button copies, e.g. "API key": it reads "Copy API key". */
  copyWhat: string;
  secret: string;
  /** How to keep it, and anything else to know now. */
  children: React.ReactNode;
}) {
  const dialog = useResourceDialog();
  const onCopy = () => dialog?.onCopy(secret);
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
            onCopy={onCopy}
          />
          <CopyButton value={secret} what={copyWhat} onCopied={onCopy} />
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
