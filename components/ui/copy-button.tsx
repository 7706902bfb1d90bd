"use client";

import * as React from "react";
import { CheckIcon, CopyIcon } from "lucide-react";
import { Button, type ButtonProps } from "./button";

/** Copies `value` to the clipboard and says so for a moment; `onCopied` hears of each copy that worked. */
export function CopyButton({
  value,
  label = "Copy",
  onCopied,
  ...props
}: Omit<ButtonProps, "onClick" | "children"> & { value: string; label?: string; onCopied?: () => void }) {
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
    </Button>
  );
}
