// Hot statements compiled once and run as named prepared statements.
//
// The ways to run SQL, and when to use each:
// - drizzle's query builder (`d.select()…`, `tx.insert()…`) or `tx.execute(sql…)`: the default, for
//   everything that is not on a hot path;
// - `preparedPerDatabase` + the builder's `.prepare(name)`: a hot builder query whose text never changes
//   (a key or node token lookup on every request);
// - `executeShaped`: a hot statement too large to build on every call, whose text takes a few shapes (a
//   submission, a job change): compiled once per shape, every value bound from a placeholder.
import { createHash } from "node:crypto";
import { fillPlaceholders, is, Param, Placeholder, sql, type Query, type SQL } from "drizzle-orm";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { PgDialect } from "drizzle-orm/pg-core";
import { env } from "@/lib/env";
import type { Db, Tx } from "./database";
import { executeNamedInSession } from "./driver-internals";
import { getDatabase } from "./open";

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

function compile(name: string, build: () => SQL): Query {
  const query = dialect.sqlToQuery(build());
  if (!query.params.every(boundLater))
    throw new Error(`The statement '${name}' has a value built into its text: bind it with a placeholder.`);
  return query;
}

/**
 * In tests, every call builds its statement again and compares it with the text compiled first under its
 * shape: a shape that leaves out an input that changes the text would otherwise run the wrong statement.
 */
function checksShapes(): boolean {
  const config = env();
  return config.CHECK_STATEMENT_SHAPES ?? config.NODE_ENV === "test";
}

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
    const query = compile(name, build);
    compiled = { query, prepared: preparedNameOf(name, query.sql) };
    compiledShapes.set(key, compiled);
  } else if (checksShapes() && compile(name, build).sql !== compiled.query.sql) {
    throw new Error(
      `The statement '${name}' built a different text under the shape '${shape}': its shape leaves out an input that changes the text.`,
    );
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
  return executeNamedInSession<Row>(tx, compiled.query, compiled.prepared, values);
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
