// A developer driving the real sign-in: a viem local account signs a real EIP-4361 message.
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";

export interface Developer {
  account: PrivateKeyAccount;
  address: string;
  /** The session cookie (`en_session=…`). */
  cookie: string;
  baseUrl: string;
  /** fetch with the session cookie and the app's Origin. */
  session(path: string, init?: RequestInit): Promise<Response>;
  /** fetch with an API key. */
  withKey(key: string, path: string, init?: RequestInit): Promise<Response>;
  createApiKey(scopes?: string[], extra?: Record<string, unknown>): Promise<string>;
}

export const allScopes = [
  "services:read",
  "services:execute",
  "jobs:read",
  "telemetry:read",
  "credits:read",
  "webhooks:manage",
  "nodes:manage",
];

/**
 * The scopes a workload needs (submit, follow, webhooks): the bench's keys, which must also be accepted by a
 * baseline checkout from before a newer scope (nodes:manage) existed.
 */
export const workloadScopes = allScopes.filter((scope) => scope !== "nodes:manage");

export function cookieFrom(res: Response): string | undefined {
  const set = res.headers.getSetCookie().find((c) => c.startsWith("en_session="));
  return set?.split(";")[0];
}

export interface SiweMessageOptions {
  address: `0x${string}`;
  host: string;
  nonce: string;
  expirationTime?: Date;
  chainId?: number;
  /** Default: http://<host>. */
  uri?: string;
  issuedAt?: Date;
}

export function siweMessage(opts: SiweMessageOptions) {
  return createSiweMessage({
    address: opts.address,
    chainId: opts.chainId ?? 1,
    domain: opts.host,
    nonce: opts.nonce,
    uri: opts.uri ?? `http://${opts.host}`,
    version: "1",
    statement: "Sign in to Execution Network",
    issuedAt: opts.issuedAt ?? new Date(),
    expirationTime: opts.expirationTime ?? new Date(Date.now() + 10 * 60_000),
  });
}

/** GET /api/auth/nonce → { nonce, cookie } */
export async function requestNonce(baseUrl: string, cookie?: string) {
  const res = await fetch(`${baseUrl}/api/auth/nonce`, { headers: cookie ? { cookie } : {} });
  const { nonce } = (await res.json()) as { nonce: string };
  return { nonce, cookie: cookieFrom(res) ?? "" };
}

export async function signIn(baseUrl: string, account: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey())) {
  const host = new URL(baseUrl).host;
  const { nonce, cookie } = await requestNonce(baseUrl);
  const message = siweMessage({ address: account.address, host, nonce });
  const signature = await account.signMessage({ message });
  const res = await fetch(`${baseUrl}/api/auth/verify`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl, cookie },
    body: JSON.stringify({ message, signature }),
  });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return { account, cookie: cookieFrom(res) ?? "" };
}

export async function signUpDeveloper(
  baseUrl: string,
  opts: { profile?: boolean; name?: string; account?: PrivateKeyAccount } = {},
): Promise<Developer> {
  const { account, cookie } = await signIn(baseUrl, opts.account);
  const session = (path: string, init: RequestInit = {}) =>
    fetch(`${baseUrl}${path}`, {
      ...init,
      headers: {
        origin: baseUrl,
        cookie,
        ...(init.body ? { "content-type": "application/json" } : {}),
        ...(init.headers as Record<string, string>),
      },
    });
  if (opts.profile !== false) {
    const res = await session("/api/developers", {
      method: "POST",
      body: JSON.stringify({ name: opts.name ?? "Ada Developer" }),
    });
    if (res.status !== 201) throw new Error(`profile creation failed: ${res.status} ${await res.text()}`);
  }
  return {
    account,
    address: account.address,
    cookie,
    baseUrl,
    session,
    withKey: (key, path, init = {}) =>
      fetch(`${baseUrl}${path}`, {
        ...init,
        headers: {
          "x-api-key": key,
          ...(init.body ? { "content-type": "application/json" } : {}),
          ...(init.headers as Record<string, string>),
        },
      }),
    async createApiKey(scopes = allScopes, extra = {}) {
      const res = await session("/api/developers/keys", {
        method: "POST",
        body: JSON.stringify({ name: "test key", scopes, ...extra }),
      });
      if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { key: string }).key;
    },
  };
}
