// Reads the wallet session in server components (pages and layouts), from the request's cookie header.
import { headers } from "next/headers";
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
