// The database handle: embedded PGlite under DATA_DIR by default, PostgreSQL when DATABASE_URL is set.
// One instance per process (lib/singleton.ts).
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fillPlaceholders, is, Param, Placeholder, sql, type Query, type SQL } from "drizzle-orm";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { PgDialect, type PgDatabase, type PgQueryResultHKT } from "drizzle-orm/pg-core";
import { env, isBuildPhase } from "@/lib/env";
import { log } from "@/lib/log";
import { processSingleton } from "@/lib/singleton";
import { lockDataDir } from "./data-dir-lock";
import * as schema from "./schema";

export type Schema = typeof schema;
/** Both drivers' databases share this base type. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction or the database itself: domain functions accept either. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

export interface Database {
  db: Db;
  driver: "pglite" | "postgres";
  /**
   * PGlite only: runs `text` as the named prepared statement `name` outside any transaction, parsed and planned
   * once per database (its driver otherwise parses, describes and plans every statement, each step a trip into
   * the engine). Rows as drizzle's raw queries return them.
   */
  runPrepared?(name: string, text: string, params: unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs `listener` when `channel` is notified (PostgreSQL LISTEN, or in-process for PGlite). */
  listen(channel: string, listener: (payload: string) => void): Promise<() => Promise<void>>;
  /** Notifies `channel` as part of `tx`: PostgreSQL delivers on commit; PGlite runs one transaction at a time. */
  notify(tx: Tx, channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

const dialect = new PgDialect();
/**
 * The texts run under each statement name, and the prepared name of each: the name plus a digest of the text.
 * Derived from the text, not numbered in order of first use: a production build bundles this module into
 * several chunks that share one connection pool, and each copy would number its shapes from 1 — two texts
 * under one prepared name on one connection ("Prepared statements must be unique").
 */
const namedShapes = new Map<string, Map<string, string>>();
/** More shapes than this under one name means a value is interpolated into its text: a bug, refused. */
export const maxShapesPerName = 64;

function preparedNameOf(name: string, text: string): string {
  let shapes = namedShapes.get(name);
  if (!shapes) namedShapes.set(name, (shapes = new Map()));
  let prepared = shapes.get(text);
  if (prepared === undefined) {
    if (shapes.size >= maxShapesPerName)
      throw new Error(
        `The statement '${name}' has more than ${maxShapesPerName} texts: a value is interpolated into it.`,
      );
    prepared = `${name}_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
    shapes.set(text, prepared);
  }
  return prepared;
}

/** Words of our own fixed vocabulary (statuses, event types, channels) as SQL literals: part of a statement's text. */
export const sqlLiterals = (words: readonly string[]) =>
  sql.raw(words.map((word) => `'${word.replace(/'/g, "''")}'`).join(", "));

const boundLater = (param: unknown) => is(param, Placeholder) || (is(param, Param) && is(param.value, Placeholder));
const compiledShapes = new Map<string, { query: Query; prepared: string }>();

/**
 * Runs a statement as a named prepared statement (on PostgreSQL each connection parses it once, then only
 * binds and executes it; PGlite through runPrepared), built and compiled once per `shape` (a key the caller derives
 * from everything that changes the text), then only bound and run. Building a large statement with the query
 * builder costs more of the server's CPU than the database spends running it. `build` must take every value
 * from a placeholder (`sql.placeholder(name)`), filled from `values` on each call: a value built into the
 * text would be the first call's forever, so it is refused.
 */
export async function executeShaped<Row>(
  tx: Tx,
  name: string,
  shape: string,
  build: () => SQL,
  values: Record<string, unknown>,
): Promise<Row[]> {
  const key = `${name}\u0000${shape}`;
  let compiled = compiledShapes.get(key);
  if (!compiled) {
    const query = dialect.sqlToQuery(build());
    if (!query.params.every(boundLater))
      throw new Error(`The statement '${name}' has a value built into its text: bind it with a placeholder.`);
    compiled = { query, prepared: preparedNameOf(name, query.sql) };
    compiledShapes.set(key, compiled);
  }
  const database = await getDatabase();
  if (database.runPrepared && tx === database.db) {
    const params = fillPlaceholders(compiled.query.params, values);
    try {
      return (await database.runPrepared(compiled.prepared, compiled.query.sql, params)) as Row[];
    } catch (error) {
      // As drizzle reports a failed query: lib/log.ts logs it by name, without its parameter values.
      throw new DrizzleQueryError(compiled.query.sql, params, error as Error);
    }
  }
  const result = await tx._.session.prepareQuery(compiled.query, undefined, compiled.prepared, false).execute(values);
  return (result as { rows: Row[] }).rows;
}

/** Every text compiled so far under `name`, one per shape (for tests that read the plans they get). */
export const compiledTexts = (name: string): string[] =>
  [...compiledShapes.entries()]
    .filter(([key]) => key.startsWith(`${name}\u0000`))
    .map(([, compiled]) => compiled.query.sql);

/** A drizzle query with placeholders, prepared (named, on PostgreSQL) once per database instead of built on every call. */
export function preparedPerDatabase<Query>(prepare: (d: Db) => Query): (d: Db) => Query {
  const prepared = new WeakMap<Db, Query>();
  return (d) => {
    let query = prepared.get(d);
    if (!query) prepared.set(d, (query = prepare(d)));
    return query;
  };
}

export const migrationsFolder = path.join(process.cwd(), "drizzle");

async function openPglite(dataDir: string): Promise<Database> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { migrate } = await import("drizzle-orm/pglite/migrator");
  const inMemory = dataDir.startsWith("memory://");
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const dataDirLock = inMemory ? undefined : lockDataDir(dataDir);
  const template = env().EMBEDDED_DB_TEMPLATE;
  let client: InstanceType<typeof PGlite> | undefined;
  try {
    client =
      inMemory && template
        ? new PGlite({ loadDataDir: new Blob([readFileSync(template)]) })
        : new PGlite(inMemory ? undefined : path.join(dataDir, "pg"));
    await client.waitReady;
    await migrate(drizzle({ client, schema }), { migrationsFolder });
  } catch (error) {
    // A failed open must not keep the directory: the next attempt (or the next process) takes it again.
    await client?.close().catch(() => undefined);
    dataDirLock?.release();
    throw error;
  }
  const db = drizzle({ client, schema });
  const { parse, protocol, types } = await import("@electric-sql/pglite");
  const { serialize } = protocol;
  // As drizzle reads raw rows: times stay text, its columns decode them.
  const keepText = (value: string) => value;
  const parsers = {
    ...client.parsers,
    [types.TIMESTAMP]: keepText,
    [types.TIMESTAMPTZ]: keepText,
    [types.INTERVAL]: keepText,
    [types.DATE]: keepText,
  };
  const parameterTypes = new Map<string, number[]>();
  const concat = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
  const runPrepared = (name: string, text: string, params: unknown[]) =>
    // The locks PGlite's own query() takes: never inside another caller's open transaction.
    client._runExclusiveTransaction(() =>
      client._runExclusiveQuery(async () => {
        let oids = parameterTypes.get(name);
        if (!oids) {
          const described = await client.execProtocol(
            concat([serialize.parse({ name, text }), serialize.describe({ type: "S", name }), serialize.sync()]),
          );
          oids = parse.parseDescribeStatementResults(described.messages);
          parameterTypes.set(name, oids);
        }
        const types = oids;
        const values = params.map((value, i) =>
          value === null || value === undefined ? null : (client.serializers[types[i]] ?? String)(value),
        );
        const { messages } = await client.execProtocol(
          concat([
            serialize.bind({ statement: name, values }),
            serialize.describe({ type: "P" }),
            serialize.execute({}),
            serialize.sync(),
          ]),
        );
        return parse.parseResults(messages, parsers, { rowMode: "object" })[0].rows as Record<string, unknown>[];
      }),
    );
  // A single process owns the embedded database, so notifications never leave it.
  const { EventEmitter } = await import("node:events");
  const bus = new EventEmitter();
  bus.setMaxListeners(0);
  return {
    db: db as unknown as Db,
    driver: "pglite",
    runPrepared,
    async listen(channel, listener) {
      bus.on(channel, listener);
      return async () => void bus.off(channel, listener);
    },
    async notify(_tx, channel, payload) {
      bus.emit(channel, payload);
    },
    async close() {
      await client.close();
      dataDirLock?.release();
    },
  };
}

async function openPostgres(url: string): Promise<Database> {
  const pg = (await import("pg")).default;
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // A connection the server ends (restart, failover, outage) must not crash the process: idle ones are
  // reported by the pool, checked-out ones (between a transaction's queries) by their own listener; the
  // query in flight fails (503) and the pool replaces the connection.
  pool.on("error", (err) => log.warn("database connection lost", { err }));
  pool.on("connect", (client) => client.on("error", (err) => log.warn("database connection lost", { err })));
  const db = drizzle({ client: pool, schema });
  // Several instances may start at once: one migrates while the others wait on an advisory lock.
  const migrator = await pool.connect();
  try {
    await migrator.query("select pg_advisory_lock(727274001)");
    await migrate(drizzle({ client: migrator, schema }), { migrationsFolder });
  } finally {
    await migrator.query("select pg_advisory_unlock(727274001)").catch(() => undefined);
    migrator.release();
  }
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
    db: db as unknown as Db,
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
    async close() {
      closed = true;
      const client = await listener?.catch(() => undefined);
      if (client && !releasedListeners.has(client)) {
        releasedListeners.add(client);
        client.release();
      }
      await pool.end();
    },
  };
}

const database = processSingleton("database", async () => {
  // `next build` renders in worker processes that are then killed: a database opened there would be
  // migrated by a build, and an embedded one left locked by nobody.
  if (isBuildPhase())
    throw new Error("The database may not be opened during `next build`: a page or route ran at build time.");
  const { DATABASE_URL, DATA_DIR } = env();
  return DATABASE_URL ? openPostgres(DATABASE_URL) : openPglite(DATA_DIR);
});

/** The process's database, opened and migrated on first use. A failed open is retried on the next call. */
export const getDatabase = (): Promise<Database> => database.get();

/** Closes the process's database (tests, graceful shutdown). */
export async function closeDatabase(): Promise<void> {
  const current = database.take();
  if (current) await (await current).close();
}
