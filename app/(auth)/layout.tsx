import { WalletProvider } from "@/components/wallet/wallet-provider";
import { Logo } from "@/components/dashboard/logo";

export default function AuthLayout({ children }: { children: React.ReactNode }) {
  return (
    <WalletProvider>
      <div className="flex min-h-dvh flex-col bg-muted/40">
        <header className="flex h-14 items-center px-6">
          <Logo />
        </header>
        <main className="flex flex-1 items-start justify-center px-4 pt-[12vh] pb-16">{children}</main>
      </div>
    </WalletProvider>
  );
}
