import * as React from "react";
import { Input } from "./input";
import { Label } from "./label";

/** A labelled input, with a hint under it when there is something to say (tied to it for screen readers). */
export function TextField({
  id,
  label,
  hint,
  ...props
}: Omit<React.ComponentProps<typeof Input>, "id"> & { id: string; label: string; hint?: React.ReactNode }) {
  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>{label}</Label>
      <Input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...props} />
      {hint && (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          {hint}
        </p>
      )}
    </div>
  );
}
