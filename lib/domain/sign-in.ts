// Sign-In with Ethereum (EIP-4361): single-use server-side nonces, domain/expiry checks, signature check.
import { randomBytes } from "node:crypto";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { createPublicClient, getAddress, http, verifyMessage, type Hex } from "viem";
import { mainnet } from "viem/chains";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import { authNonces } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { findOrCreateAccount } from "./accounts";
import { DomainError } from "./errors";
import { db } from "./ready";

export const nonceTtlMs = 10 * 60 * 1000;

export async function issueNonce(): Promise<{ nonce: string; issuedAt: number }> {
  const nonce = randomBytes(16).toString("hex");
  await (await db()).insert(authNonces).values({ nonce });
  return { nonce, issuedAt: Date.now() };
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
  /** The Host the request was sent to: the message's domain must equal it. */
  host: string;
  /** The nonce bound to the caller's session cookie. */
  sessionNonce: string | undefined;
}

export async function verifySignIn(input: VerifySignInInput) {
  const parsed = (() => {
    try {
      return parseSiweMessage(input.message);
    } catch {
      return undefined;
    }
  })();
  if (!parsed?.address || !parsed.nonce || !parsed.domain) throw unauthenticated("the message is not an EIP-4361 message");
  if (!input.sessionNonce || parsed.nonce !== input.sessionNonce) throw unauthenticated("the nonce does not match this session");
  if (parsed.domain !== input.host) throw unauthenticated("the message is for another domain");
  if (!validateSiweMessage({ message: parsed, domain: input.host, nonce: input.sessionNonce, time: new Date() })) {
    throw unauthenticated("the message is expired or not yet valid");
  }
  const address = getAddress(parsed.address);
  if (!(await isValidSignature(address, input.message, input.signature))) throw unauthenticated("the signature is invalid");

  // Consume the nonce exactly once, and only while it is fresh: a replayed message fails here forever.
  const [consumed] = await (await db())
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
  return { accountId, address, chainId: parsed.chainId ?? 1 };
}
