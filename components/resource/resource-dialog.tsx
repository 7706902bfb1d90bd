"use client";

// The dialog every resource page (keys, nodes, webhooks) creates and changes things in, and where a secret the
// API returns once is shown: one place owns when it may close. While a request runs it cannot; while a secret
// nobody copied shows, Escape and the close button ask first ("Close without copying…?") and a click outside
// does nothing, because closing loses that secret for good.
import * as React from "react";
import { Loader2Icon } from "lucide-react";
import { ErrorState } from "@/components/dashboard/states";
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import {
  Dialog,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogTitle,
  DialogTrigger,
} from "@/components/ui/dialog";

interface ResourceDialogContext {
  /** Closes the dialog without asking (Cancel, Done). */
  close: () => void;
  /** The secret `value` was copied: closing no longer asks. */
  onCopy: (value: string) => void;
  isBusy: boolean;
}

const Context = React.createContext<ResourceDialogContext | null>(null);

export function useResourceDialog(): ResourceDialogContext | null {
  return React.useContext(Context);
}

/** What a dialog decides when asked to close (Escape, its close button). */
function closeDecision({
  isBusy,
  secret,
  copied,
}: {
  isBusy: boolean;
  secret: string | null;
  copied: string | null;
}): "stay" | "ask" | "close" {
  if (isBusy) return "stay";
  return secret !== null && copied !== secret ? "ask" : "close";
}

export function ResourceDialog({
  trigger,
  open: controlledOpen,
  onOpenChange,
  secret = null,
  secretName = "secret",
  isBusy = false,
  onClosed,
  className,
  children,
}: {
  /** The button that opens the dialog; without one, `open` and `onOpenChange` control it. */
  trigger?: React.ReactElement;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  /** The secret shown now, if any: closing before it is copied asks first. */
  secret?: string | null;
  /** The secret's name in the question: "key" reads "Close without copying the key?". */
  secretName?: string;
  /** A request is running (its answer may carry the secret): the dialog stays open. */
  isBusy?: boolean;
  /** Runs once it closed: forget the form, and the secret first. */
  onClosed?: () => void;
  className?: string;
  children: React.ReactNode;
}) {
  const [uncontrolledOpen, setUncontrolledOpen] = React.useState(false);
  const open = controlledOpen ?? uncontrolledOpen;
  const setOpen = onOpenChange ?? setUncontrolledOpen;
  // Which secret was copied, not whether: a rotation shows a new one that must be copied again.
  const [copied, setCopied] = React.useState<string | null>(null);
  const [isAsking, setAsking] = React.useState(false);

  const close = () => {
    if (isBusy) return;
    setAsking(false);
    setCopied(null);
    setOpen(false);
    onClosed?.();
  };

  function openChange(next: boolean) {
    if (next) return setOpen(true);
    const decision = closeDecision({ isBusy, secret, copied });
    if (decision === "ask") setAsking(true);
    if (decision === "close") close();
  }

  return (
    <Dialog open={open} onOpenChange={openChange}>
      {trigger && <DialogTrigger asChild>{trigger}</DialogTrigger>}
      <DialogContent className={className} onInteractOutside={(e) => (secret !== null || isBusy) && e.preventDefault()}>
        <Context.Provider value={{ close, onCopy: setCopied, isBusy }}>{children}</Context.Provider>
        <AlertDialog open={isAsking} onOpenChange={setAsking}>
          <AlertDialogContent>
            <AlertDialogHeader>
              <AlertDialogTitle>Close without copying the {secretName}?</AlertDialogTitle>
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
      </DialogContent>
    </Dialog>
  );
}

export function ResourceDialogHeader({ title, description }: { title: React.ReactNode; description: React.ReactNode }) {
  return (
    <DialogHeader>
      <DialogTitle>{title}</DialogTitle>
      <DialogDescription>{description}</DialogDescription>
    </DialogHeader>
  );
}

/** The end of a dialog that showed its result (a secret): Done closes it, copied or not. */
export function DoneFooter() {
  const dialog = useResourceDialog();
  return (
    <DialogFooter>
      <Button onClick={dialog?.close}>Done</Button>
    </DialogFooter>
  );
}

/**
 * A failure said inside the dialog, right above its buttons, and scrolled into view when it appears: in a
 * long form (or on a phone) it would otherwise sit below the fold while the person looks at the button.
 */
export function DialogError({ title, error }: { title: string; error: unknown }) {
  const ref = React.useRef<HTMLDivElement>(null);
  React.useEffect(() => {
    if (error != null) ref.current?.scrollIntoView?.({ block: "nearest" });
  }, [error]);
  if (error == null) return null;
  return (
    <div ref={ref}>
      {typeof error === "string" ? (
        <p role="alert" className="text-sm text-destructive">
          {error}
        </p>
      ) : (
        <ErrorState title={title} error={error} />
      )}
    </div>
  );
}

/**
 * A dialog's form: its heading, fields, the first problem (the form's own check, else the request's failure)
 * next to the buttons, and Cancel and the submit button, which spins while the request runs.
 */
export function ResourceForm({
  title,
  description,
  onSubmit,
  submitLabel,
  formError,
  requestError,
  errorTitle,
  isPending,
  canSubmit = true,
  secondaryAction,
  children,
}: {
  title: React.ReactNode;
  description: React.ReactNode;
  onSubmit: () => void;
  submitLabel: string;
  /** The form's own check, in a sentence; shown before the request's failure. */
  formError?: string | null;
  requestError?: unknown;
  /** The heading of the request's failure: "Could not create the key". */
  errorTitle: string;
  isPending: boolean;
  canSubmit?: boolean;
  /** Another button beside Cancel (e.g. "Remove limit"). */
  secondaryAction?: React.ReactNode;
  /** The fields; none where the dialog only asks. */
  children?: React.ReactNode;
}) {
  const dialog = useResourceDialog();
  return (
    <form
      noValidate
      className="grid gap-5"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    >
      <ResourceDialogHeader title={title} description={description} />
      {children}
      <DialogError title={errorTitle} error={formError || requestError} />
      <DialogFooter>
        {secondaryAction}
        <Button type="button" variant="outline" onClick={dialog?.close} disabled={isPending}>
          Cancel
        </Button>
        <Button type="submit" disabled={isPending || !canSubmit}>
          {isPending && <Loader2Icon className="animate-spin" />}
          {submitLabel}
        </Button>
      </DialogFooter>
    </form>
  );
}
