// The way to more credits, offered wherever the dashboard says the balance is short or running low: the
// Credits page's "Add credits" (?add=1 opens it; where top-ups are disabled the page says who grants them).
import Link from "next/link";
import { CoinsIcon } from "lucide-react";
import { cn } from "@/components/ui/cn";

export const addCreditsHref = "/credits?add=1";

export function AddCreditsLink({ className }: { className?: string }) {
  return (
    <Link
      href={addCreditsHref}
      className={cn(
        "inline-flex items-center gap-1 font-medium text-foreground underline underline-offset-4",
        className,
      )}
    >
      <CoinsIcon className="size-3.5" aria-hidden /> Add credits
    </Link>
  );
}
