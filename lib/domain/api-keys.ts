// API keys: show-once secrets, stored only as SHA-256 hashes, scoped, revocable, rotatable with grace.
import { createHash, randomInt, timingSafeEqual } from "node:crypto";
import { and, count, desc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { preparedPerDatabase } from "@/lib/db/prepared-statements";
import { accounts, apiKeys } from "@/lib/db/schema";
import { limits } from "@/lib/limits";
import { log } from "@/lib/log";
import { requireProfile } from "./accounts";
import { changeApiKey, keyCache, signalApiKeyChange, type CachedKey } from "./api-key-cache";
import { DomainError, notFound } from "./errors";
import { isUuid } from "./ids";
import { db } from "./database";
import { keySpendOf } from "./spend-controls";
import type { CreditLimitReset, Scope } from "@/lib/contract/vocabulary";
import type * as wire from "@/lib/contract/schemas";

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 43 base62 characters ≈ 256 bits (the contract asks for ≥ 190). */
const secretLength = 43;

export function generateSecret(): string {
  let body = "";
  for (let i = 0; i < secretLength; i++) body += base62[randomInt(62)];
  return `dev_${body}`;
}

// The secrets are 256-bit random strings, so a fast hash is enough (no dictionary to defend against).
export const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");
const prefixOf = (secret: string) => secret.slice(4, 12);

type KeyRow = typeof apiKeys.$inferSelect;

export function toApiKey(row: KeyRow): wire.ApiKey {
  return {
    keyId: row.id,
    name: row.name,
    scopes: row.scopes,
    prefix: row.prefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    kind: row.kind as ApiKeyKind,
    ...keySpendOf(row),
  };
}

/** "dashboard": the key the dashboard runs services with; its secret never leaves the server. */
export type ApiKeyKind = "standard" | "dashboard";

/** A key's spending cap (CONTRACT §11): `creditLimit` null removes it (and its reset). */
export interface CreditLimitInput {
  creditLimit?: number | null;
  creditLimitReset?: CreditLimitReset | null;
}

export interface NewApiKey extends CreditLimitInput {
  name: string;
  scopes: Scope[];
  expiresAt?: string;
  kind?: ApiKeyKind;
}

/** The columns a limit change sets: a removed limit takes its reset with it. */
function creditLimitColumns(input: CreditLimitInput): Partial<Pick<KeyRow, "creditLimit" | "creditLimitReset">> {
  if (input.creditLimit === null) return { creditLimit: null, creditLimitReset: null };
  return {
    ...(input.creditLimit !== undefined ? { creditLimit: input.creditLimit } : {}),
    ...(input.creditLimitReset !== undefined ? { creditLimitReset: input.creditLimitReset } : {}),
  };
}

/** Inserts a key (the caller checked the profile); returns its row and the one copy of its secret. */
export async function insertApiKey(
  tx: Tx,
  accountId: string,
  input: NewApiKey,
): Promise<{ row: KeyRow; secret: string }> {
  const secret = generateSecret();
  const [row] = await tx
    .insert(apiKeys)
    .values({
      accountId,
      name: input.name,
      scopes: input.scopes,
      prefix: prefixOf(secret),
      secretHash: hashSecret(secret),
      expiresAt: input.expiresAt ? new Date(input.expiresAt) : null,
      kind: input.kind ?? "standard",
      ...creditLimitColumns(input),
    })
    .returning();
  return { row, secret };
}

export async function createApiKey(accountId: string, input: Omit<NewApiKey, "kind">): Promise<wire.ApiKeyWithSecret> {
  await requireProfile(accountId);
  const { row, secret } = await (
    await db()
  ).transaction(async (tx) => {
    // The account row's lock serialises concurrent creations, so the cap holds under races.
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
    const [{ live }] = await tx
      .select({ live: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)));
    if (live >= limits.apiKeysPerAccount) {
      throw new DomainError(
        "LIMIT_REACHED",
        `An account may hold at most ${limits.apiKeysPerAccount} live API keys; revoke one first.`,
        {
          limit: limits.apiKeysPerAccount,
        },
      );
    }
    return insertApiKey(tx, accountId, input);
  });
  return { ...toApiKey(row), key: secret };
}

export async function listApiKeys(accountId: string) {
  await requireProfile(accountId);
  const rows = await (
    await db()
  )
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.accountId, accountId))
    .orderBy(desc(apiKeys.createdAt));
  return rows.map(toApiKey);
}

const ownKey = (accountId: string, keyId: string) => and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId));

/** Revokes at once; revoking again returns the same revoked key. */
export async function revokeApiKey(accountId: string, keyId: string) {
  if (!isUuid(keyId)) throw notFound("KEY_NOT_FOUND", "The API key");
  const d = await db();
  const row = await changeApiKey(keyId, () =>
    d.transaction(async (tx) => {
      const [revoked] = await tx
        .update(apiKeys)
        .set({
          revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())`,
          previousSecretHash: null,
          previousExpiresAt: null,
        })
        .where(ownKey(accountId, keyId))
        .returning();
      if (!revoked) throw notFound("KEY_NOT_FOUND", "The API key");
      await signalApiKeyChange(tx, keyId);
      return revoked;
    }),
  );
  return toApiKey(row);
}

/**
 * Renames a key or sets, changes or removes its credit limit (CONTRACT §11). Its usage stays: a new limit
 * counts what the key already spent in the current period. A revoked key may still be changed (its record).
 */
export async function updateApiKey(accountId: string, keyId: string, input: CreditLimitInput & { name?: string }) {
  if (!isUuid(keyId)) throw notFound("KEY_NOT_FOUND", "The API key");
  const set = { ...(input.name !== undefined ? { name: input.name } : {}), ...creditLimitColumns(input) };
  const d = await db();
  const [row] =
    Object.keys(set).length === 0
      ? await d.select().from(apiKeys).where(ownKey(accountId, keyId))
      : await d.update(apiKeys).set(set).where(ownKey(accountId, keyId)).returning();
  if (!row) throw notFound("KEY_NOT_FOUND", "The API key");
  return toApiKey(row);
}

/** Same keyId, name and scopes; a new secret. The old one dies now or after `gracePeriodSeconds`. */
export async function rotateApiKey(accountId: string, keyId: string, gracePeriodSeconds = 0) {
  if (!isUuid(keyId)) throw notFound("KEY_NOT_FOUND", "The API key");
  const secret = generateSecret();
  const d = await db();
  return changeApiKey(keyId, () =>
    d.transaction(async (tx) => {
      const [current] = await tx.select().from(apiKeys).where(ownKey(accountId, keyId)).for("update");
      if (!current) throw notFound("KEY_NOT_FOUND", "The API key");
      if (current.revokedAt) throw new DomainError("KEY_REVOKED", "A revoked key cannot be rotated.");
      // Its new secret would be shown to the browser; revoking it makes the dashboard create a fresh one.
      if (current.kind === "dashboard") {
        throw new DomainError(
          "KEY_MANAGED",
          "The dashboard's own key cannot be rotated; revoke it and the dashboard creates a new one on its next Run.",
        );
      }
      const [row] = await tx
        .update(apiKeys)
        .set({
          secretHash: hashSecret(secret),
          prefix: prefixOf(secret),
          previousSecretHash: gracePeriodSeconds > 0 ? current.secretHash : null,
          previousExpiresAt: gracePeriodSeconds > 0 ? sql`now() + make_interval(secs => ${gracePeriodSeconds})` : null,
        })
        .where(eq(apiKeys.id, keyId))
        .returning();
      await signalApiKeyChange(tx, keyId);
      return { ...toApiKey(row), key: secret };
    }),
  );
}

export interface ApiKeyPrincipal {
  accountId: string;
  keyId: string;
  scopes: Scope[];
}

const sameHash = (a: string, b: string | null) =>
  b !== null && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const lastUsedResolutionMs = 30_000;
/** How soon a use that found the key's row locked is recorded again. */
const keyUseRetryMs = 1_000;

/** The principal of a live secret, or null (unknown, revoked, expired, or rotated past its grace). */
export async function authenticateApiKey(secret: string): Promise<ApiKeyPrincipal | null> {
  if (!/^dev_[0-9A-Za-z]{32,64}$/.test(secret)) return null;
  const hash = hashSecret(secret);
  const cache = await keyCache();
  let key = cache.get(hash);
  if (!key) {
    key = await lookUpKey(hash);
    if (!key) return null;
    cache.set(hash, key);
  }
  // lastUsedAt is kept to within 30 s, so a busy key does not write on every request.
  if (Date.now() - key.lastUsedAtMs > lastUsedResolutionMs) await recordKeyUse(key);
  return { accountId: key.accountId, keyId: key.keyId, scopes: key.scopes };
}

/**
 * Sets the key's lastUsedAt, unless a charge holds the key's row (a submission's write moves its spend
 * counters): the request must not wait behind that lock, holding a pooled connection. The key is in use right
 * then anyway, so the next request a second later tries again.
 */
async function recordKeyUse(key: CachedKey): Promise<void> {
  key.lastUsedAtMs = Date.now();
  const d = await db();
  const unlocked = d
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(eq(apiKeys.id, key.keyId))
    .for("update", { skipLocked: true });
  try {
    const touched = await d
      .update(apiKeys)
      .set({ lastUsedAt: sql`now()` })
      .where(inArray(apiKeys.id, unlocked))
      .returning({ id: apiKeys.id });
    if (touched.length === 0) key.lastUsedAtMs = Date.now() - lastUsedResolutionMs + keyUseRetryMs;
  } catch (err) {
    log.warn("could not record key use", { keyId: key.keyId, err });
  }
}

/** A cache miss's query: the key a secret hash opens. */
const liveKeyByHash = preparedPerDatabase((d) => {
  const hash = sql.placeholder("hash");
  return d
    .select()
    .from(apiKeys)
    .where(
      and(
        or(
          eq(apiKeys.secretHash, hash),
          and(eq(apiKeys.previousSecretHash, hash), sql`${apiKeys.previousExpiresAt} > now()`),
        ),
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), sql`${apiKeys.expiresAt} > now()`),
      ),
    )
    .prepare("api_key_by_hash");
});

async function lookUpKey(hash: string): Promise<CachedKey | undefined> {
  const [row] = await liveKeyByHash(await db()).execute({ hash });
  if (!row) return undefined;
  const isCurrent = sameHash(hash, row.secretHash);
  if (!isCurrent && !sameHash(hash, row.previousSecretHash)) return undefined;
  const ends = [row.expiresAt, isCurrent ? null : row.previousExpiresAt].flatMap((at) => (at ? [at.getTime()] : []));
  return {
    accountId: row.accountId,
    keyId: row.id,
    scopes: row.scopes,
    validUntilMs: Math.min(Infinity, ...ends),
    lastUsedAtMs: row.lastUsedAt?.getTime() ?? 0,
  };
}
