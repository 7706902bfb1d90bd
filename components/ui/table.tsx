import * as React from "react";
import { cn } from "./cn";

/**
 * Below the md breakpoint each row becomes a card: the header is hidden and a row's cells (flex items)
 * flow and wrap; cells choose with `max-md:` classes (`max-md:basis-full` for a line of their own,
 * `max-md:hidden` to leave the card).
 */
const stackedOnPhone =
  "max-md:block max-md:[&_thead]:hidden max-md:[&_tbody]:block max-md:[&_tr]:flex max-md:[&_tr]:flex-wrap max-md:[&_tr]:items-center max-md:[&_tr]:gap-x-3 max-md:[&_tr]:gap-y-2 max-md:[&_tr]:px-3 max-md:[&_tr]:py-3 max-md:[&_td]:p-0";

export function Table({
  className,
  stackOnPhone = false,
  ...props
}: React.ComponentProps<"table"> & { stackOnPhone?: boolean }) {
  // On a narrow screen the table scrolls sideways (unless its rows stack); a tab stop lets keyboard users
  // scroll it too (axe: scrollable-region-focusable).
  return (
    <div
      data-slot="table-container"
      tabIndex={0}
      className="relative w-full overflow-x-auto rounded-[inherit] outline-none focus-visible:ring-[3px] focus-visible:ring-ring/50"
    >
      <table
        data-slot="table"
        className={cn("w-full caption-bottom text-sm", stackOnPhone && stackedOnPhone, className)}
        {...props}
      />
    </div>
  );
}

export function TableHeader({ className, ...props }: React.ComponentProps<"thead">) {
  return <thead data-slot="table-header" className={cn("[&_tr]:border-b", className)} {...props} />;
}

export function TableBody({ className, ...props }: React.ComponentProps<"tbody">) {
  return <tbody data-slot="table-body" className={cn("[&_tr:last-child]:border-0", className)} {...props} />;
}

export function TableRow({ className, ...props }: React.ComponentProps<"tr">) {
  return (
    <tr
      data-slot="table-row"
      className={cn("border-b transition-colors hover:bg-muted/40 data-[state=selected]:bg-muted", className)}
      {...props}
    />
  );
}

export function TableHead({ className, ...props }: React.ComponentProps<"th">) {
  return (
    <th
      data-slot="table-head"
      className={cn(
        "h-10 px-3 text-left align-middle text-xs font-medium tracking-wide whitespace-nowrap text-muted-foreground uppercase",
        className,
      )}
      {...props}
    />
  );
}

export function TableCell({ className, ...props }: React.ComponentProps<"td">) {
  return <td data-slot="table-cell" className={cn("px-3 py-2.5 align-middle", className)} {...props} />;
}

export function TableCaption({ className, ...props }: React.ComponentProps<"caption">) {
  return (
    <caption data-slot="table-caption" className={cn("mt-4 text-sm text-muted-foreground", className)} {...props} />
  );
}
