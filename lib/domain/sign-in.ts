// Sign-In with Ethereum (EIP-4361): single-use server-side nonces, domain/expiry checks, signature check.
import { randomBytes } from "node:crypto";
import { and, eq, gt, isNull, isNotNull, lt, or, sql } from "drizzle-orm";
import { createPublicClient, getAddress, http, verifyMessage, type Hex } from "viem";
import { mainnet } from "viem/chains";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { authNonces } from "@/lib/db/schema";
import { appOrigins, env, signInChainIds } from "@/lib/env";
import { findOrCreateAccount } from "./accounts";
import { attributeTopUps } from "./top-ups";
import { DomainError } from "./errors";
import { db } from "./database";

/** A nonce is good for this long after it is issued (CONTRACT §2), and once. */
export const nonceTtlMs = 10 * 60 * 1000;
/**
 * A visitor holds up to this many outstanding nonces (the newest), so a page that fetched a nonce twice (a
 * re-render, a double click) still signs in with the first: a small bound keeps the cookie small.
 */
export const outstandingNoncesPerVisitor = 5;

export interface IssuedNonce {
  nonce: string;
  /** When it was issued (ms since the epoch). */
  issuedAt: number;
}

export async function issueNonce(): Promise<IssuedNonce> {
  const nonce = randomBytes(16).toString("hex");
  await (await db()).insert(authNonces).values({ nonce });
  return { nonce, issuedAt: Date.now() };
}

/** The visitor's outstanding nonces once `issued` joins them: expired ones dropped, the newest few kept. */
export function withIssuedNonce(outstanding: readonly IssuedNonce[], issued: IssuedNonce): IssuedNonce[] {
  const fresh = outstanding.filter((n) => n.issuedAt > issued.issuedAt - nonceTtlMs);
  return [...fresh, issued].slice(-outstandingNoncesPerVisitor);
}

/** Sweeper: nonces used, or too old to be used, are dropped. */
export async function purgeSpentNonces(): Promise<number> {
  const rows = await (
    await db()
  )
    .delete(authNonces)
    .where(
      or(
        isNotNull(authNonces.usedAt),
        lt(authNonces.createdAt, sql`now() - make_interval(secs => ${nonceTtlMs / 1000})`),
      ),
    )
    .returning({ nonce: authNonces.nonce });
  return rows.length;
}

const unauthenticated = (why: string) => new DomainError("UNAUTHENTICATED", `Sign-in failed: ${why}.`);

/**
 * EOAs are verified locally (no RPC). With SIWE_RPC_URL configured, smart-contract wallets
 * (ERC-1271 / ERC-6492) are verified through that RPC as well.
 */
async function isValidSignature(address: Hex, message: string, signature: Hex): Promise<boolean> {
  const rpcUrl = env().SIWE_RPC_URL;
  if (rpcUrl) {
    const client = createPublicClient({ chain: mainnet, transport: http(rpcUrl) });
    return client.verifyMessage({ address, message, signature });
  }
  return verifyMessage({ address, message, signature }).catch(() => false);
}

export interface VerifySignInInput {
  message: string;
  signature: Hex;
  /** The nonces issued to the caller's session cookie and not yet pushed out by newer ones. */
  sessionNonces: readonly string[];
}

/** How far a wallet's clock may run ahead of ours before its `issuedAt` counts as "in the future". */
export const issuedAtSkewMs = 60_000;

function parseMessage(message: string) {
  try {
    return parseSiweMessage(message);
  } catch {
    return undefined;
  }
}

/**
 * Which app the message asks to sign in to: its domain and URI must both name one of the configured origins
 * (APP_ORIGIN). Nothing the request says about its host counts: a phishing site relaying a victim's
 * signature for its own domain is refused whatever headers it sends.
 */
function isForThisApp(parsed: { domain?: string; uri?: string; scheme?: string }): boolean {
  const uriOrigin = parsed.uri && URL.canParse(parsed.uri) ? new URL(parsed.uri).origin : undefined;
  return appOrigins().some((origin) => {
    const url = new URL(origin);
    return (
      parsed.domain === url.host &&
      uriOrigin === origin &&
      (parsed.scheme === undefined || `${parsed.scheme}:` === url.protocol)
    );
  });
}

export async function verifySignIn(input: VerifySignInInput) {
  const parsed = parseMessage(input.message);
  if (!parsed?.address || !parsed.nonce || !parsed.domain || !parsed.issuedAt) {
    throw unauthenticated("the message is not an EIP-4361 message");
  }
  if (parsed.version !== "1")
    throw unauthenticated(`the message's Version must be 1 (EIP-4361), not ${parsed.version}`);
  // EIP-4361 requires the EIP-55 form, and so does the reference `siwe` library: a wallet showing a lower-case
  // address gives the signer one check less, so such a message is refused rather than silently normalised.
  if (parsed.address !== getAddress(parsed.address)) {
    throw unauthenticated(`the address must be EIP-55 checksummed (mixed case): ${getAddress(parsed.address)}`);
  }
  if (!input.sessionNonces.includes(parsed.nonce)) {
    throw unauthenticated(
      `the nonce was not issued to this browser, or ${outstandingNoncesPerVisitor} newer ones replaced it`,
    );
  }
  if (!isForThisApp(parsed)) throw unauthenticated("the message is for another domain");
  if (parsed.chainId === undefined || !signInChainIds().includes(parsed.chainId)) {
    throw unauthenticated("the message names a chain this app does not accept");
  }
  const now = new Date();
  if (parsed.issuedAt.getTime() > now.getTime() + issuedAtSkewMs)
    throw unauthenticated("the message was issued in the future");
  if (!validateSiweMessage({ message: parsed, domain: parsed.domain, nonce: parsed.nonce, time: now })) {
    throw unauthenticated("the message is expired or not yet valid");
  }
  const address = parsed.address;
  if (!(await isValidSignature(address, input.message, input.signature)))
    throw unauthenticated("the signature is invalid");

  // Consume the nonce exactly once, and only while it is fresh: a replayed message fails here forever.
  const [consumed] = await (
    await db()
  )
    .update(authNonces)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(authNonces.nonce, parsed.nonce),
        isNull(authNonces.usedAt),
        gt(authNonces.createdAt, sql`now() - make_interval(secs => ${nonceTtlMs / 1000})`),
      ),
    )
    .returning({ nonce: authNonces.nonce });
  if (!consumed) throw unauthenticated("the nonce was already used or has expired");

  const { accountId } = await findOrCreateAccount(address);
  // Payments this address made before it had an account become its own (credited by the watcher).
  await attributeTopUps(accountId, address);
  return { accountId, address, chainId: parsed.chainId };
}
