import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ShieldCheckIcon } from "lucide-react";
import { currentSession } from "@/lib/http/page-session";
import { walletConnectSettings } from "@/lib/env";
import { safeReturnTo } from "@/lib/contract/return-to";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { SignInPanel } from "@/components/wallet/sign-in-panel";

export const metadata: Metadata = { title: "Sign in" };

export default async function SignInPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  // The page the developer was on when the session ended; only a path on this site (never an open redirect).
  const returnTo = safeReturnTo((await searchParams).next) ?? "/overview";
  if (await currentSession()) redirect(returnTo);
  return (
    <Card className="w-full max-w-sm">
      <CardHeader>
        <CardTitle className="text-xl">
          <h1>Sign in</h1>
        </CardTitle>
        <CardDescription>
          Connect an Ethereum wallet and sign a message to prove it is yours. No transaction, no gas.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <SignInPanel walletConnect={walletConnectSettings()} returnTo={returnTo} />
      </CardContent>
      <CardFooter className="gap-2 border-t pt-5 text-xs text-muted-foreground">
        <ShieldCheckIcon className="size-4 shrink-0" aria-hidden />
        Sign-In with Ethereum (EIP-4361). Your first sign-in creates your account with starter credits.
      </CardFooter>
    </Card>
  );
}
