// Wallet sessions held server-side: the sealed cookie only names a session, this table says whether it
// still counts. Logout revokes one; "sign out everywhere" revokes every session of the account.
import { and, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import { sessions } from "@/lib/db/schema";
import { limits } from "@/lib/limits";
import { db } from "./database";

export async function startSession(accountId: string): Promise<string> {
  const [row] = await (
    await db()
  )
    .insert(sessions)
    .values({ accountId, expiresAt: sql`now() + make_interval(secs => ${limits.sessionMaxAgeSeconds})` })
    .returning({ id: sessions.id });
  return row.id;
}

/** True while the session exists for this account, is not revoked and has not expired. */
export async function isSessionLive(sessionId: string, accountId: string): Promise<boolean> {
  const [row] = await (
    await db()
  )
    .select({ id: sessions.id })
    .from(sessions)
    .where(
      and(
        eq(sessions.id, sessionId),
        eq(sessions.accountId, accountId),
        isNull(sessions.revokedAt),
        gt(sessions.expiresAt, sql`now()`),
      ),
    );
  return Boolean(row);
}

export async function revokeSession(sessionId: string): Promise<void> {
  await (
    await db()
  )
    .update(sessions)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
}

/** "Sign out everywhere": every browser signed in to this account must sign in again. */
export async function revokeAllSessions(accountId: string): Promise<number> {
  const rows = await (
    await db()
  )
    .update(sessions)
    .set({ revokedAt: sql`now()` })
    .where(and(eq(sessions.accountId, accountId), isNull(sessions.revokedAt)))
    .returning({ id: sessions.id });
  return rows.length;
}

/** Sweeper: drop sessions that can never count again. */
export async function purgeDeadSessions(): Promise<number> {
  const rows = await (
    await db()
  )
    .delete(sessions)
    .where(or(lt(sessions.expiresAt, sql`now()`), lt(sessions.revokedAt, sql`now() - interval '1 day'`)))
    .returning({ id: sessions.id });
  return rows.length;
}
