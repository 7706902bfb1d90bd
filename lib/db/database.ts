// What the rest of the app sees of the database, whichever driver opened it: the drizzle handle, its
// transactions, and notifications. Types only: lib/db/open.ts chooses and opens the driver.
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type * as schema from "./schema";

export type Schema = typeof schema;
/** Both drivers' databases share this base type. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A transaction or the database itself: domain functions accept either. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

/** Runs `text` as the prepared statement `name` and returns its rows as drizzle's raw queries return them. */
export type RunPrepared = (name: string, text: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

export interface PipelinedConnection {
  db: Db;
  release(): void;
}

export interface Database {
  db: Db;
  driver: "pglite" | "postgres";
  /**
   * PGlite only: runs a statement outside any transaction, parsed and described once per database (its
   * driver otherwise parses, describes and plans every statement, each step a trip into the engine).
   * executeShaped's path, not the callers' (lib/db/prepared-statements.ts says which way to run SQL).
   */
  runPrepared?: RunPrepared;
  /**
   * PostgreSQL only: a connection of the pool held for statements sent one right behind another, each without
   * waiting for the answers to those before it (pipelining). The database runs them in the order they were
   * sent, each its own transaction, and the next one starts as the one before it commits, with no round trip
   * between them. `release` gives the connection back once they have all answered.
   */
  pipelinedConnection?(): Promise<PipelinedConnection>;
  /** Runs `listener` when `channel` is notified (PostgreSQL LISTEN, or in-process for PGlite). */
  listen(channel: string, listener: (payload: string) => void): Promise<() => Promise<void>>;
  /** Notifies `channel` as part of `tx`: PostgreSQL delivers on commit; PGlite runs one transaction at a time. */
  notify(tx: Tx, channel: string, payload: string): Promise<void>;
  /**
   * How many processes listen on this database now (each has one listening connection): the instances that
   * hear a signal. PGlite: this one, the only process that can open its directory.
   */
  listeningInstances(): Promise<number>;
  close(): Promise<void>;
}
