"use client";

import * as React from "react";
import { CheckIcon, CopyIcon } from "lucide-react";
import { Button, type ButtonProps } from "./button";

/**
 * Copies `value` to the clipboard and says so for a moment; `onCopied` hears of each copy that worked. `what`
 * names what it copies for screen readers ("Copy" + "start command"): it follows the visible text, never
 * replaces it as an aria-label would, so the accessible name always contains what is shown, "Copied" too.
 */
export function CopyButton({
  value,
  label = "Copy",
  what,
  onCopied,
  ...props
}: Omit<ButtonProps, "onClick" | "children" | "aria-label"> & {
  value: string;
  label?: string;
  what?: string;
  onCopied?: () => void;
}) {
  const [state, setState] = React.useState<"idle" | "copied" | "failed">("idle");

  React.useEffect(() => {
    if (state === "idle") return;
    const timer = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(timer);
  }, [state]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setState("copied");
      onCopied?.();
    } catch {
      setState("failed");
    }
  }

  return (
    <Button type="button" variant="outline" size="sm" onClick={copy} {...props}>
      {state === "copied" ? <CheckIcon className="text-success" /> : <CopyIcon />}
      <span aria-live="polite">{state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : label}</span>
      {what && <span className="sr-only"> {what}</span>}
    </Button>
  );
}
