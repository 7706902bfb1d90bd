// Reads the wallet session in server components (pages and layouts), from the request's cookie header.
import { headers } from "next/headers";
import { readSession, type SessionData } from "@/lib/http/session";

export interface SignedInSession {
  accountId: string;
  address: string;
  chainId: number;
}

export async function currentSession(): Promise<SignedInSession | null> {
  const cookie = (await headers()).get("cookie");
  if (!cookie) return null;
  // readSession takes a Request; hand it one carrying only this request's cookies.
  const session: SessionData = await readSession(new Request("http://session.invalid/", { headers: { cookie } }));
  // The same test the API's session guard applies.
  if (!session.accountId || !session.address) return null;
  return { accountId: session.accountId, address: session.address, chainId: session.chainId ?? 1 };
}
