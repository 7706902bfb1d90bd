// The dashboard's own API key per developer: created on first use with only services:execute, its secret
// kept sealed (sealing.ts) because the API stores only hashes, and replaced when revoked or expired.
import { and, eq, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { accounts, apiKeys, dashboardKeys } from "@/lib/db/schema";
import { requireProfile } from "./accounts";
import { signalApiKeyChange } from "./api-key-cache";
import { hashSecret, insertApiKey } from "./api-keys";
import { db } from "./database";
import { seal, unseal } from "./sealing";
import type { Scope } from "@/lib/contract/vocabulary";

export const dashboardKeyScopes: Scope[] = ["services:execute"];
export const dashboardKeyName = "Dashboard (playground)";

export interface DashboardKey {
  keyId: string;
  /** Server-side only: never put it in a response, a page or a log. */
  secret: string;
}

/** The live dashboard key whose sealed secret opens and still matches the stored hash, or null. */
async function liveDashboardKey(tx: Tx, accountId: string): Promise<DashboardKey | null> {
  const [row] = await tx
    .select({ keyId: apiKeys.id, secretHash: apiKeys.secretHash, sealedSecret: dashboardKeys.sealedSecret })
    .from(dashboardKeys)
    .innerJoin(apiKeys, eq(apiKeys.id, dashboardKeys.apiKeyId))
    .where(
      and(
        eq(dashboardKeys.accountId, accountId),
        isNotNull(dashboardKeys.sealedSecret),
        isNull(apiKeys.revokedAt),
        or(isNull(apiKeys.expiresAt), sql`${apiKeys.expiresAt} > now()`),
      ),
    );
  if (!row?.sealedSecret) return null;
  // A secret sealed under another session secret, or no longer the key's (rotated), is not usable.
  const secret = unseal("dashboard-keys", row.sealedSecret, row.keyId);
  return secret !== null && hashSecret(secret) === row.secretHash ? { keyId: row.keyId, secret } : null;
}

/**
 * The developer's dashboard key, created (or replaced) when there is no usable one. Concurrent first
 * Runs create one key: the account row is locked while the key is replaced.
 */
export async function dashboardKeyFor(accountId: string): Promise<DashboardKey> {
  const d = await db();
  const live = await liveDashboardKey(d, accountId);
  if (live) return live;
  await requireProfile(accountId);
  return d.transaction(async (tx) => {
    await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId)).for("update");
    const raced = await liveDashboardKey(tx, accountId);
    if (raced) return raced;
    // Retire the previous one: forget its secret and make sure it no longer works.
    const retired = await tx
      .update(dashboardKeys)
      .set({ sealedSecret: null })
      .where(and(eq(dashboardKeys.accountId, accountId), isNotNull(dashboardKeys.sealedSecret)))
      .returning({ apiKeyId: dashboardKeys.apiKeyId });
    for (const { apiKeyId } of retired) {
      await tx
        .update(apiKeys)
        .set({ revokedAt: sql`coalesce(${apiKeys.revokedAt}, now())` })
        .where(eq(apiKeys.id, apiKeyId));
      await signalApiKeyChange(tx, apiKeyId);
    }
    const { row, secret } = await insertApiKey(tx, accountId, {
      name: dashboardKeyName,
      scopes: dashboardKeyScopes,
      kind: "dashboard",
    });
    await tx
      .insert(dashboardKeys)
      .values({ apiKeyId: row.id, accountId, sealedSecret: seal("dashboard-keys", secret, row.id) });
    return { keyId: row.id, secret };
  });
}
