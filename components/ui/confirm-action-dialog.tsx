"use client";

// A destructive action asked for in an alert dialog: the trigger opens it, the confirm button runs
// `onConfirm`, and the dialog closes once that resolves. While it runs the dialog cannot be dismissed; a
// failure stays in the dialog (as `renderError` draws it) until the person tries again or cancels.
import * as React from "react";
import { Loader2Icon } from "lucide-react";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
  AlertDialogTrigger,
} from "./alert-dialog";
import { Button } from "./button";

type Outcome = { status: "idle" } | { status: "pending" } | { status: "failed"; error: unknown };

export function ConfirmActionDialog({
  trigger,
  title,
  description,
  confirmLabel,
  onConfirm,
  renderError,
}: {
  /** The button that opens the dialog. */
  trigger: React.ReactElement;
  title: React.ReactNode;
  description: React.ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  renderError: (error: unknown) => React.ReactNode;
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
        {outcome.status === "failed" && renderError(outcome.error)}
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
