// One developer's burst of submissions waits in the server, one at a time, not inside PostgreSQL: each
// charge locks the developer's balance row, and a burst that waited in the database would hold every pooled
// connection of the instance, so another developer's request would wait for the first one's burst.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { eventually, execute } from "../support/jobs";
import { usePostgres } from "../support/postgres";
import { withDeveloper } from "../support/with-developer";

const ctx = withDeveloper({ embeddedNodes: 0, env: { RATE_LIMIT_PER_MINUTE: "0", ACCOUNT_RATE_PER_MINUTE: "0" } });

/** More than the instance's pool (10 connections, lib/db/postgres.ts). */
const burst = 12;

// The pool and the row lock are PostgreSQL's; PGlite runs one statement at a time anyway.
describe.skipIf(!usePostgres())("one developer's burst of submissions on PostgreSQL", () => {
  let other: Developer;
  let otherKey: string;
  let locker: pg.Client;

  beforeAll(async () => {
    other = await signUpDeveloper(ctx.server.baseUrl);
    otherKey = await other.createApiKey();
    locker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await locker.connect();
  });
  afterAll(() => locker.end());

  /** Backends of this database waiting for a lock, read afresh (a transaction otherwise keeps its first reading). */
  const lockWaiters = async () => {
    await locker.query("select pg_stat_clear_snapshot()");
    const { rows } = await locker.query<{ n: string }>(
      "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
    );
    return Number(rows[0].n);
  };

  it("waits in the server, one charge at a time, and another developer is answered meanwhile", async () => {
    // The developer's balance row is held by another transaction (as a long charge or top-up would).
    await locker.query("begin");
    await locker.query("select 1 from accounts where wallet_address = $1 for update", [ctx.dev.address]);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      return locker.query("commit");
    };
    try {
      const submissions = Array.from({ length: burst }, (_, i) =>
        execute(ctx.dev, ctx.key, "token-count", { text: `burst ${i}` }),
      );
      // The first of them reaches the lock; the rest of the burst has time to arrive behind it.
      await eventually(lockWaiters, (n) => n >= 1, 10_000);
      await new Promise((r) => setTimeout(r, 300));
      // One of them waits in the database; the pool would otherwise be full of them (9 of its 10 connections).
      expect(await lockWaiters()).toBe(1);

      // Another developer is not kept waiting by the first one's burst.
      const answer = await Promise.race([
        execute(other, otherKey, "token-count", { text: "another developer" }).then((r) => r.status),
        new Promise<string>((r) => setTimeout(() => r("still waiting after 5 s"), 5_000)),
      ]);
      expect(answer).toBe(202);

      await release();
      const statuses = await Promise.all(submissions.map((s) => s.then((r) => r.status)));
      expect(statuses).toEqual(Array.from({ length: burst }, () => 202));
      const history = await (await ctx.dev.withKey(ctx.key, `/api/credits/history?limit=${burst + 5}`)).json();
      expect(history.data.filter((e: { type: string }) => e.type === "charge")).toHaveLength(burst);
    } finally {
      await release();
    }
  });
});
