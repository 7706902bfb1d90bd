"use client";

import * as React from "react";
import { TriangleAlertIcon } from "lucide-react";
import { Alert, AlertDescription, AlertTitle } from "./alert";
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "./alert-dialog";
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
  onCopy,
  children,
}: {
  id: string;
  label: string;
  copyLabel: string;
  secret: string;
  /** The secret was copied, with the button or from the field (useSecretCloseGuard's `onCopy`). */
  onCopy?: () => void;
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
            onCopy={onCopy}
          />
          <CopyButton value={secret} aria-label={copyLabel} onCopied={onCopy} />
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

/**
 * Escape is easy to press by habit, and closing the dialog of a secret nobody copied loses it for good: with
 * this guard the dialog asks first. Wire `onEscapeKeyDown` to the dialog's content while the secret shows,
 * `onCopy` to SecretReveal, render `confirmation`, and call `reset` when the dialog closes; `close` closes it.
 */
export function useSecretCloseGuard({ what, close }: { what: string; close: () => void }) {
  const [isCopied, setCopied] = React.useState(false);
  const [isAsking, setAsking] = React.useState(false);
  return {
    onCopy: () => setCopied(true),
    onEscapeKeyDown: (event: KeyboardEvent) => {
      if (isCopied) return;
      event.preventDefault();
      setAsking(true);
    },
    reset: () => {
      setCopied(false);
      setAsking(false);
    },
    confirmation: (
      <AlertDialog open={isAsking} onOpenChange={setAsking}>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>Close without copying the {what}?</AlertDialogTitle>
            <AlertDialogDescription>
              It is shown only this once. Once closed, it cannot be shown again: you would have to replace it.
            </AlertDialogDescription>
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel>Keep it open</AlertDialogCancel>
            <AlertDialogAction variant="destructive" onClick={close}>
              Close anyway
            </AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
    ),
  };
}
