// The PostgreSQL pool: a job after a quiet spell finds warm connections (the pool closes those idle past pg's 10 s
// but keeps `warmConnections`, whose sessions have already planned the hot path's statements), close() returns
// only once every connection has gone, and a pipelined connection sends a statement without waiting for the
// answers to those before it.
import { once } from "node:events";
import net from "node:net";
import { sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createScratchDatabase, otherConnections } from "@/tests/support/postgres";
import { openPostgres, warmConnections } from "./postgres";

const idleTimeoutMs = 10_000;

describe("the PostgreSQL pool", () => {
  // The pglite project runs this file; PostgreSQL is there whenever the suite found it (vitest.config.mts).
  it.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    "keeps its warm connections past the idle timeout, and closes the others",
    async () => {
      const scratch = await createScratchDatabase();
      const database = await openPostgres(scratch.url);
      const admin = new pg.Client({ connectionString: scratch.url });
      try {
        await admin.connect();
        // A burst that needs eight connections at once.
        await Promise.all(Array.from({ length: 8 }, () => database.db.execute(sql`select pg_sleep(0.1)`)));
        expect(await otherConnections(admin)).toBeGreaterThanOrEqual(8);
        await new Promise((resolve) => setTimeout(resolve, idleTimeoutMs + 1_500));
        expect(await otherConnections(admin)).toBe(warmConnections);
      } finally {
        await admin.end();
        await database.close();
        await scratch.drop();
      }
    },
    30_000,
  );

  // pg-pool's end() resolves once it has asked its connections to end, while their backends may still be exiting
  // (4 of 40 closes were still counted right after, before close() waited for them).
  it.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    "has closed every connection when close() returns: a count right after finds none",
    async () => {
      const scratch = await createScratchDatabase();
      const admin = new pg.Client({ connectionString: scratch.url });
      try {
        await admin.connect();
        const stillConnected: number[] = [];
        for (let i = 0; i < 40; i++) {
          const database = await openPostgres(scratch.url);
          await database.db.execute(sql`select 1`);
          await database.close();
          if ((await otherConnections(admin)) > 0) stillConnected.push(i);
        }
        expect(stillConnected).toEqual([]);
      } finally {
        await admin.end();
        await scratch.drop();
      }
    },
    60_000,
  );

  // What PostgreSQL receives, seen through a proxy: the second statement arrives while the first still waits on
  // a lock (a pool that waited for each answer would send it only once the lock is released).
  it.runIf(Boolean(process.env.TEST_DATABASE_URL))(
    "sends a pipelined connection's next statement while the one before it is still running",
    async () => {
      const scratch = await createScratchDatabase();
      const target = new URL(scratch.url);
      let received = "";
      const proxy = net.createServer((incoming) => {
        const outgoing = net.connect(Number(target.port || 5432), target.hostname);
        incoming.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
        incoming.pipe(outgoing).pipe(incoming);
        const close = () => (incoming.destroy(), outgoing.destroy());
        incoming.on("error", close).on("close", close);
        outgoing.on("error", close).on("close", close);
      });
      proxy.listen(0, "127.0.0.1");
      await once(proxy, "listening");
      const through = new URL(scratch.url);
      through.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
      const database = await openPostgres(through.toString());
      const admin = new pg.Client({ connectionString: scratch.url });
      await admin.connect();
      await admin.query("select pg_advisory_lock(4711)");
      const connection = await database.pipelinedConnection!();
      // (drizzle sends a statement when its result is asked for)
      const sent = [
        connection.db.execute(sql`select pg_advisory_lock(4711), 'the first'`).then((r) => r),
        connection.db.execute(sql`select 'the second'`).then((r) => r),
      ];
      try {
        await expect.poll(() => received.includes("the second"), { timeout: 3_000 }).toBe(true);
      } finally {
        await admin.end(); // its lock goes with it
        await Promise.allSettled(sent);
        connection.release();
        await database.close();
        proxy.close();
        await scratch.drop();
      }
    },
    30_000,
  );
});
