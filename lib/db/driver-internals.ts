// Every use of Drizzle's and PGlite's private APIs, and nothing else: the one file a driver upgrade can break
// silently. Written against drizzle-orm 0.45.4 and @electric-sql/pglite 0.5.16;
// tests/integration/driver-internals.test.ts fails when an upgrade changes what it relies on.
import type { Query } from "drizzle-orm";
import type { PGlite } from "@electric-sql/pglite";
import type { RunPrepared, Tx } from "./database";

/**
 * Runs a compiled query in `tx`'s session under a prepared-statement name: on PostgreSQL each connection
 * parses and plans it once, then only binds and executes it (drizzle's public API names only the statements
 * of its query builder). Drizzle's PGlite session ignores the name.
 */
export async function executeNamedInSession<Row>(
  tx: Tx,
  query: Query,
  name: string,
  values: Record<string, unknown>,
): Promise<Row[]> {
  const result = await tx._.session.prepareQuery(query, undefined, name, false).execute(values);
  return (result as { rows: Row[] }).rows;
}

/**
 * PGlite's named prepared statements, which its query() does not offer: a statement is parsed and described
 * once, then each call only binds and executes it, through its wire protocol. Runs under the locks PGlite's
 * own query() takes, so never inside another caller's open transaction.
 */
export async function pglitePreparedStatements(client: PGlite): Promise<RunPrepared> {
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
  return (name, text, params) =>
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
        const known = oids;
        const values = params.map((value, i) =>
          value === null || value === undefined ? null : (client.serializers[known[i]] ?? String)(value),
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
}
