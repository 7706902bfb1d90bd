// Reads the wallet session in server components (pages and layouts), from the request's cookie header, and
// sends a visitor without one to sign-in, carrying the page they asked for so signing in returns there.
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { signInHref } from "@/lib/contract/return-to";
import { requestPathHeader } from "@/lib/http/request-path";
import { readSession, signedInOf } from "@/lib/http/session";

export interface SignedInSession {
  accountId: string;
  address: string;
  chainId: number;
}

export async function currentSession(): Promise<SignedInSession | null> {
  const cookie = (await headers()).get("cookie");
  if (!cookie) return null;
  // readSession takes a Request; hand it one carrying only this request's cookies.
  const signedIn = signedInOf(await readSession(new Request("http://session.invalid/", { headers: { cookie } })));
  return signedIn && { accountId: signedIn.accountId, address: signedIn.address, chainId: signedIn.chainId };
}

/**
 * The session of a dashboard page, or a redirect to `/sign-in?next=<this page>`. The path comes from the
 * proxy (requestPathHeader) and passes the same return-to rule as the sign-in page's `next`, so it can only
 * ever name a page of this site.
 */
export async function requireSession(): Promise<SignedInSession> {
  const session = await currentSession();
  if (session) return session;
  redirect(signInHref((await headers()).get(requestPathHeader)));
}
