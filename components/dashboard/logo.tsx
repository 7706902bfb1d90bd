import Link from "next/link";

export function Logo({ href = "/" }: { href?: string }) {
  return (
    <Link href={href} className="flex items-center gap-2 text-sm font-semibold tracking-tight">
      <svg viewBox="0 0 24 24" className="size-6" aria-hidden>
        <rect width="24" height="24" rx="6" className="fill-foreground" />
        <path d="M7 7h10M7 12h7M7 17h10" className="stroke-background" strokeWidth="2" strokeLinecap="round" />
      </svg>
      Execution Network
    </Link>
  );
}
