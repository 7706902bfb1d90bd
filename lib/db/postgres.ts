// PostgreSQL (DATABASE_URL): a pool of at most 10 connections shared by every request (4 kept however long they
// are idle), migrated on open under an advisory lock (several instances may start at once), and one connection of
// it that LISTENs for them all.
import { withCommitEffects } from "./after-commit";
import { sql } from "drizzle-orm";
import { log } from "@/lib/log";
import type { Database, Db } from "./database";
import {
  migrationTableExistsQuery,
  migrationsFolder,
  newestAppliedMigrationQuery,
  OlderInstancesRunning,
  pendingMigrations,
  refuseNewerDatabase,
} from "./migrations";
import * as schema from "./schema";

/**
 * The listening connection's application_name, naming its process: instances count one another by it, and an
 * operator reading pg_stat_activity sees which process a connection serves.
 */
export const listenerApplicationName = (pid: number) => `execution-network listener ${pid}`;
const listenerNamePattern = "execution-network listener %";

/** Under the migration lock: an instance connected while migrations are pending runs an older build. */
async function refuseMigratingUnderOlderInstances(client: import("pg").PoolClient): Promise<void> {
  const { rows: table } = await client.query<{ exists: boolean }>(migrationTableExistsQuery);
  if (!table[0].exists) return;
  const { rows } = await client.query<{ newest: string | null }>(newestAppliedMigrationQuery);
  const pending = pendingMigrations(rows[0]?.newest);
  if (pending.length === 0) return;
  const { rows: instances } = await client.query<{ name: string; address: string | null }>(
    "select application_name as name, client_addr::text as address from pg_stat_activity " +
      "where datname = current_database() and application_name like $1",
    [listenerNamePattern],
  );
  if (instances.length > 0)
    throw new OlderInstancesRunning(
      instances.map(
        (i) => `${i.name.replace("execution-network listener ", "pid ")}${i.address ? ` at ${i.address}` : ""}`,
      ),
      pending,
    );
}

/**
 * Ends the pool once every connection it opened has closed. pg-pool's end() resolves as soon as it has asked its
 * idle connections to end, while their backends may still be exiting: a caller that then counts connections
 * (an upgrade waiting for older instances, a test, an operator) would still see them.
 */
function poolClosing(pool: import("pg").Pool): () => Promise<void> {
  let open = 0;
  let allClosed: (() => void) | undefined;
  pool.on("connect", () => void open++);
  // "remove" comes once the connection's socket has closed, after its backend left pg_stat_activity.
  pool.on("remove", () => {
    open--;
    if (open === 0) allClosed?.();
  });
  return async () => {
    const closed = open === 0 ? Promise.resolve() : new Promise<void>((resolve) => (allClosed = resolve));
    await pool.end();
    await closed;
  };
}

/** Connections the pool keeps however long they are idle: the LISTEN connection and three for the hot path. */
export const warmConnections = 4;

export async function openPostgres(url: string): Promise<Database> {
  const pg = (await import("pg")).default;
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  // The pool closes a connection idle for 10 s (pg's default), but not below `min`: the LISTEN connection and
  // three more stay open, so a job after a quiet spell finds connections that have already planned its
  // statements (PostgreSQL plans a prepared statement anew for its first five runs on each connection, 1–4 ms for
  // the submission's) rather than opening new ones.
  // Pipelining (each statement written at once, not after the previous one's answer) changes nothing for a
  // connection used one statement at a time, which is how the pool's users use theirs; pipelinedConnection's
  // users send several at once.
  const pool = new pg.Pool({ connectionString: url, max: 10, min: warmConnections, pipeline: true });
  // A connection the server ends (restart, failover, outage) must not crash the process: idle ones are
  // reported by the pool, checked-out ones (between a transaction's queries) by their own listener; the
  // query in flight fails (503) and the pool replaces the connection.
  pool.on("error", (err) => log.warn("database connection lost", { err }));
  pool.on("connect", (client) => client.on("error", (err) => log.warn("database connection lost", { err })));
  const endPool = poolClosing(pool);
  const db = drizzle({ client: pool, schema });
  // A drizzle handle per connection, made once (it derives the schema's relations when made).
  const connectionDbs = new WeakMap<import("pg").PoolClient, Db>();
  // Several instances may start at once: one migrates while the others wait on an advisory lock.
  const migrator = await pool.connect();
  try {
    await migrator.query("select pg_advisory_lock(727274001)");
    await refuseMigratingUnderOlderInstances(migrator);
    await migrate(drizzle({ client: migrator, schema }), { migrationsFolder });
    const { rows } = await migrator.query<{ newest: string | null }>(newestAppliedMigrationQuery);
    refuseNewerDatabase(rows[0]?.newest);
  } catch (error) {
    migrator.release();
    await endPool().catch(() => undefined);
    throw error;
  }
  await migrator.query("select pg_advisory_unlock(727274001)").catch(() => undefined);
  migrator.release();
  const handlers = new Map<string, Set<(payload: string) => void>>();
  const quote = (channel: string) => `"${channel.replace(/"/g, "")}"`;
  let closed = false;
  let reconnectMs = 250;
  // One connection LISTENs on every channel; when it is lost it is re-opened (with backoff) and LISTENs again.
  let listener: Promise<import("pg").PoolClient> | undefined;
  const releasedListeners = new WeakSet<import("pg").PoolClient>();
  const connectListener = (): Promise<import("pg").PoolClient> => {
    const opening = (async () => {
      const client = await pool.connect();
      await client.query(`set application_name = '${listenerApplicationName(process.pid)}'`);
      client.on("notification", (msg) => {
        for (const h of handlers.get(msg.channel) ?? []) h(msg.payload ?? "");
      });
      // A dying connection can emit several errors, possibly after close() has released it: release it once.
      client.on("error", (err) => {
        if (releasedListeners.has(client)) return;
        releasedListeners.add(client);
        log.warn("notification connection lost", { err });
        if (listener === opening) listener = undefined;
        client.release(err);
        scheduleReconnect();
      });
      for (const channel of handlers.keys()) await client.query(`LISTEN ${quote(channel)}`);
      reconnectMs = 250;
      return client;
    })();
    opening.catch(() => {
      if (listener === opening) listener = undefined;
    });
    listener = opening;
    return opening;
  };
  const scheduleReconnect = () => {
    if (closed || handlers.size === 0) return;
    const delay = reconnectMs;
    reconnectMs = Math.min(reconnectMs * 2, 5_000);
    setTimeout(() => {
      if (closed || listener) return;
      connectListener().catch((err: unknown) => {
        log.warn("notification connection not restored yet", { err });
        scheduleReconnect();
      });
    }, delay).unref();
  };
  return {
    db: withCommitEffects(db as unknown as Db),
    driver: "postgres",
    async listen(channel, handler) {
      const isNew = !handlers.has(channel);
      if (isNew) handlers.set(channel, new Set());
      handlers.get(channel)?.add(handler);
      try {
        const client = await (listener ?? connectListener());
        if (isNew) await client.query(`LISTEN ${quote(channel)}`);
      } catch (err) {
        handlers.get(channel)?.delete(handler);
        throw err;
      }
      return async () => void handlers.get(channel)?.delete(handler);
    },
    async notify(tx, channel, payload) {
      await tx.execute(sql`select pg_notify(${channel}, ${payload})`);
    },
    async pipelinedConnection() {
      const client = await pool.connect();
      let connectionDb = connectionDbs.get(client);
      if (!connectionDb) {
        connectionDb = withCommitEffects(drizzle({ client, schema }) as unknown as Db);
        connectionDbs.set(client, connectionDb);
      }
      return { db: connectionDb, release: () => client.release() };
    },
    async listeningInstances() {
      const { rows } = await pool.query<{ instances: number }>(
        "select count(*)::int as instances from pg_stat_activity where datname = current_database() and application_name like $1",
        [listenerNamePattern],
      );
      return rows[0].instances;
    },
    async close() {
      closed = true;
      const client = await listener?.catch(() => undefined);
      if (client && !releasedListeners.has(client)) {
        releasedListeners.add(client);
        client.release();
      }
      await endPool();
    },
  };
}
