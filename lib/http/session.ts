// The wallet session: an iron-session sealed cookie naming a server-side session (lib/domain/sessions),
// read from and written to plain Request/Response. A revoked or expired session reads as signed out.
import { sealData, unsealData } from "iron-session";
import { isSessionLive } from "@/lib/domain/sessions";
import type { IssuedNonce } from "@/lib/domain/sign-in";
import { env } from "@/lib/env";
import { limits } from "@/lib/limits";
import { serverSecret } from "@/lib/server-secret";

export const sessionCookieName = "en_session";
const sessionMaxAgeSeconds = limits.sessionMaxAgeSeconds;

export interface SessionData {
  /** Set once signed in: the server-side session and its account. */
  sessionId?: string;
  accountId?: string;
  address?: string;
  chainId?: number;
  /** The SIWE nonces issued to this browser and still outstanding (a few, newest last). */
  nonces?: IssuedNonce[];
}

export interface SignedIn {
  accountId: string;
  address: string;
  chainId: number;
}

/** Who the session is signed in as, or null: the one signed-in test (API guards and server components). */
export function signedInOf(session: SessionData): SignedIn | null {
  if (!session.accountId || !session.address) return null;
  return { accountId: session.accountId, address: session.address, chainId: session.chainId ?? 1 };
}

const sessionSecret = serverSecret;

function cookieValue(req: Request): string | undefined {
  const header = req.headers.get("cookie");
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === sessionCookieName) return rest.join("=");
  }
  return undefined;
}

async function unsealCookie(sealed: string): Promise<SessionData> {
  try {
    return await unsealData<SessionData>(decodeURIComponent(sealed), {
      password: sessionSecret(),
      ttl: sessionMaxAgeSeconds,
    });
  } catch {
    return {};
  }
}

/** The cookie's data; its signed-in part only while the server-side session is live (checked on every read). */
export async function readSession(req: Request): Promise<SessionData> {
  const sealed = cookieValue(req);
  if (!sealed) return {};
  const data = await unsealCookie(sealed);
  if (data.accountId === undefined) return data;
  if (data.sessionId && (await isSessionLive(data.sessionId, data.accountId))) return data;
  return { nonces: data.nonces };
}

function cookieAttributes(maxAge: number): string {
  const secure = env().NODE_ENV === "production" ? "; Secure" : "";
  return `Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure}`;
}

/** A Set-Cookie value holding `data`. */
export async function sessionCookie(data: SessionData): Promise<string> {
  const sealed = await sealData(data, { password: sessionSecret(), ttl: sessionMaxAgeSeconds });
  return `${sessionCookieName}=${encodeURIComponent(sealed)}; ${cookieAttributes(sessionMaxAgeSeconds)}`;
}

export function clearedSessionCookie(): string {
  return `${sessionCookieName}=; ${cookieAttributes(0)}`;
}
