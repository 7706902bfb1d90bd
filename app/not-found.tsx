import Link from "next/link";
import { Logo } from "@/components/dashboard/logo";
import { Button } from "@/components/ui/button";

// Outside the dashboard (which has its own, inside its layout): a page of the site that does not exist.
export default function NotFound() {
  return (
    <div className="flex min-h-dvh flex-col bg-muted/40">
      <header className="flex h-14 items-center px-6">
        <Logo />
      </header>
      <main className="flex flex-1 flex-col items-center justify-center gap-3 px-4 pb-24 text-center">
        <h1 className="text-2xl font-semibold tracking-tight">Page not found</h1>
        <p className="max-w-sm text-sm text-muted-foreground">
          There is no page at this address. The link may be mistyped or out of date.
        </p>
        <Button asChild className="mt-2">
          <Link href="/">Go to the home page</Link>
        </Button>
      </main>
    </div>
  );
}
