"use client";

import * as React from "react";
import { CopyButton } from "./copy-button";

/**
 * A shell command to copy: shown in parts (the program, then each flag with its value) that wrap only between
 * each other, never inside a URL or a token; a part wider than the box scrolls sideways in it. The copy button
 * copies the exact command, the parts joined by single spaces.
 */
export function CommandBlock({
  parts,
  label,
  copyWhat,
  onCopied,
}: {
  parts: readonly string[];
  /** The block's accessible name, e.g. "Start command". */
  label: string;
  /** What the copy button copies, e.g. "API key": it reads "Copy API key". */
  copyWhat: string;
  onCopied?: () => void;
}) {
  return (
    <div className="flex items-start gap-2">
      <div
        role="group"
        aria-label={label}
        tabIndex={0}
        className="min-w-0 flex-1 overflow-x-auto rounded-md border bg-muted px-3 py-2 font-mono text-xs leading-relaxed outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50"
      >
        {parts.map((part, i) => (
          <React.Fragment key={i}>
            {i > 0 && " "}
            <span className="whitespace-nowrap">{part}</span>
          </React.Fragment>
        ))}
      </div>
      <CopyButton value={parts.join(" ")} what={copyWhat} onCopied={onCopied} />
    </div>
  );
}
