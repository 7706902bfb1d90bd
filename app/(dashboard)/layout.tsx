import { requireSession } from "@/lib/http/page-session";
import { getLowBalanceThreshold } from "@/lib/domain/accounts";
import { Logo } from "@/components/dashboard/logo";
import { MobileNav } from "@/components/dashboard/mobile-nav";
import { NavLinks } from "@/components/dashboard/nav-links";
import { SignOutButton } from "@/components/dashboard/sign-out-button";
import { ThemeSwitcher } from "@/components/dashboard/theme-switcher";
import { LowBalanceBanner } from "@/components/credits/low-balance-banner";
import { shortAddress } from "@/components/dashboard/format";
import { SessionEndedDialog, SignedInAs } from "@/components/dashboard/session-ended";

export default async function DashboardLayout({ children }: { children: React.ReactNode }) {
  const session = await requireSession();
  const threshold = await getLowBalanceThreshold(session.accountId);

  const account = <SignedInAs address={session.address} shortAddress={shortAddress(session.address)} />;

  return (
    <div className="min-h-dvh md:grid md:grid-cols-[15rem_1fr]">
      <aside className="hidden border-r bg-sidebar md:sticky md:top-0 md:flex md:h-dvh md:flex-col">
        <div className="flex h-14 items-center px-4">
          <Logo href="/overview" />
        </div>
        <nav aria-label="Dashboard" className="flex-1 px-3 py-2">
          <NavLinks />
        </nav>
        <div className="grid gap-3 border-t p-3">
          {account}
          <ThemeSwitcher className="mx-2.5 w-fit" />
          <SignOutButton />
        </div>
      </aside>

      {/* Phones: one row, the navigation behind Menu (its sheet's nav carries the contract's name too). */}
      <header className="sticky top-0 z-40 border-b bg-sidebar md:hidden">
        <div className="flex h-14 items-center justify-between gap-3 px-4">
          <Logo href="/overview" />
          <div className="flex items-center gap-2">
            <ThemeSwitcher />
            <MobileNav
              footer={
                <>
                  {account}
                  <SignOutButton />
                </>
              }
            />
          </div>
        </div>
      </header>

      <SessionEndedDialog />
      <main className="min-w-0">
        <div className="mx-auto flex w-full max-w-6xl flex-col gap-6 px-4 py-8 sm:px-8">
          <LowBalanceBanner threshold={threshold} />
          {children}
        </div>
      </main>
    </div>
  );
}
