"use client";

// A destructive action asked for in an alert dialog: the trigger opens it, the confirm button runs
// `onConfirm`, and the dialog closes once that resolves. While it runs the dialog cannot be dismissed; a
// failure stays in the dialog, right above its buttons, until the person tries again or cancels.
import * as React from "react";
import { Loader2Icon, Trash2Icon } from "lucide-react";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "@/components/ui/alert-dialog";
import { Button, type ButtonProps } from "@/components/ui/button";
import { DialogError } from "./resource-dialog";

type Outcome = { status: "idle" } | { status: "pending" } | { status: "failed"; error: unknown };

/** A row's destructive action (Revoke, Delete): quiet until hovered, red, with a bin. */
export function DangerButton({ children, ...props }: Omit<ButtonProps, "variant" | "size">) {
  return (
    <Button
      variant="ghost"
      size="sm"
      className="text-destructive hover:bg-destructive/10 hover:text-destructive"
      {...props}
    >
      <Trash2Icon /> {children}
    </Button>
  );
}

export function ConfirmDialog({
  trigger,
  title,
  description,
  confirmLabel,
  onConfirm,
  errorTitle,
}: {
  /** The button that opens the dialog. */
  trigger: React.ReactElement;
  title: React.ReactNode;
  description: React.ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  /** The heading of a failure: "Could not revoke the key". */
  errorTitle: string;
}) {
  const [open, setOpen] = React.useState(false);
  const [outcome, setOutcome] = React.useState<Outcome>({ status: "idle" });
  const isPending = outcome.status === "pending";

  async function confirm() {
    setOutcome({ status: "pending" });
    try {
      await onConfirm();
    } catch (error) {
      setOutcome({ status: "failed", error });
      return;
    }
    setOpen(false);
    setOutcome({ status: "idle" });
  }

  return (
    <AlertDialog
      open={open}
      onOpenChange={(next) => {
        if (isPending) return;
        setOpen(next);
        if (!next) setOutcome({ status: "idle" });
      }}
    >
      <AlertDialogTrigger asChild>{trigger}</AlertDialogTrigger>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>{title}</AlertDialogTitle>
          <AlertDialogDescription>{description}</AlertDialogDescription>
        </AlertDialogHeader>
        <DialogError title={errorTitle} error={outcome.status === "failed" ? outcome.error : null} />
        <AlertDialogFooter>
          <AlertDialogCancel disabled={isPending}>Cancel</AlertDialogCancel>
          <Button variant="destructive" onClick={confirm} disabled={isPending}>
            {isPending && <Loader2Icon className="animate-spin" />}
            {confirmLabel}
          </Button>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
