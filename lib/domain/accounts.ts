// Accounts (one per wallet) and the developer profile kept on the same row.
import { eq, sql } from "drizzle-orm";
import { accounts } from "@/lib/db/schema";
import { env } from "@/lib/env";
import { applyLedgerEntry } from "./credits";
import { DomainError, notFound } from "./errors";
import { db } from "./database";
import type * as wire from "@/lib/contract/schemas";

/** Finds the account of a (checksummed) address, creating it with its starter grant on first sign-in. */
export async function findOrCreateAccount(walletAddress: string): Promise<{ accountId: string; created: boolean }> {
  const d = await db();
  return d.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(accounts)
      .values({ walletAddress })
      .onConflictDoNothing()
      .returning({ id: accounts.id });
    if (inserted) {
      const starter = env().STARTER_CREDITS;
      if (starter > 0) {
        await applyLedgerEntry(tx, {
          accountId: inserted.id,
          type: "grant",
          amount: starter,
          description: "Starter credits",
        });
      }
      return { accountId: inserted.id, created: true };
    }
    const [existing] = await tx
      .select({ id: accounts.id })
      .from(accounts)
      .where(eq(accounts.walletAddress, walletAddress));
    if (!existing) throw new Error("account vanished during sign-in");
    return { accountId: existing.id, created: false };
  });
}

export interface ProfileInput {
  name: string;
  email?: string;
  organization?: string;
}

function toProfile(row: typeof accounts.$inferSelect): wire.Profile {
  if (!row.profileCreatedAt || row.name === null) throw notFound("PROFILE_NOT_FOUND", "The developer profile");
  return {
    developerId: row.id,
    walletAddress: row.walletAddress,
    name: row.name,
    email: row.email,
    organization: row.organization,
    lowBalanceThreshold: row.lowBalanceThreshold,
    createdAt: row.profileCreatedAt.toISOString(),
  };
}

export async function createProfile(accountId: string, input: ProfileInput) {
  const [row] = await (
    await db()
  )
    .update(accounts)
    .set({
      name: input.name,
      email: input.email ?? null,
      organization: input.organization ?? null,
      profileCreatedAt: sql`now()`,
    })
    .where(sql`${accounts.id} = ${accountId} and ${accounts.profileCreatedAt} is null`)
    .returning();
  if (!row) throw new DomainError("PROFILE_EXISTS", "A developer profile already exists for this account.");
  return toProfile(row);
}

export async function getProfile(accountId: string) {
  const [row] = await (await db()).select().from(accounts).where(eq(accounts.id, accountId));
  if (!row) throw notFound("PROFILE_NOT_FOUND", "The developer profile");
  return toProfile(row);
}

/** The profile, or null before the developer has created one (an expected state, not an error). */
export async function findProfile(accountId: string): Promise<wire.Profile | null> {
  try {
    return await getProfile(accountId);
  } catch (error) {
    if (error instanceof DomainError && error.code === "PROFILE_NOT_FOUND") return null;
    throw error;
  }
}

export interface ProfileUpdate {
  name?: string;
  email?: string | null;
  organization?: string | null;
  /** The low-balance alert's threshold (CONTRACT §11); null turns the alert off. */
  lowBalanceThreshold?: number | null;
}

export async function updateProfile(accountId: string, input: ProfileUpdate) {
  if (Object.values(input).every((value) => value === undefined)) return getProfile(accountId);
  const [row] = await (
    await db()
  )
    .update(accounts)
    .set({
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.email !== undefined ? { email: input.email } : {}),
      ...(input.organization !== undefined ? { organization: input.organization } : {}),
      ...(input.lowBalanceThreshold !== undefined ? { lowBalanceThreshold: input.lowBalanceThreshold } : {}),
    })
    .where(sql`${accounts.id} = ${accountId} and ${accounts.profileCreatedAt} is not null`)
    .returning();
  if (!row) throw notFound("PROFILE_NOT_FOUND", "The developer profile");
  return toProfile(row);
}

/** The low-balance alert's threshold (null: none, or no profile yet), for the dashboard's banner. */
export async function getLowBalanceThreshold(accountId: string): Promise<number | null> {
  const [row] = await (
    await db()
  )
    .select({ threshold: accounts.lowBalanceThreshold })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return row?.threshold ?? null;
}

/** Keys need a profile first (CONTRACT §3). */
export async function requireProfile(accountId: string): Promise<void> {
  await getProfile(accountId);
}
