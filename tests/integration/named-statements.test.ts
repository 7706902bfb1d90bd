// Hot statements run as named prepared statements (lib/db/prepared-statements.ts executeShaped): a name may cover a few
// shapes of one statement, never a text that changes with its values.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { executeShaped, maxShapesPerName } from "@/lib/db/prepared-statements";
import { isUniqueViolation } from "@/lib/domain/idempotency";
import { db } from "@/lib/domain/database";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 0 });
});
afterAll(() => server?.close());

describe("a named statement", () => {
  const one = () => sql`select ${sql.placeholder("one")}::int as one`;
  const two = () => sql`select ${sql.placeholder("two")}::int as two`;

  it("runs each shape it is given, as often as it is asked", async () => {
    const d = await db();
    const shape = (withTwo: boolean) => () =>
      sql`select ${sql.placeholder("one")}::int as one${withTwo ? sql`, ${sql.placeholder("two")}::int as two` : sql``}`;
    for (let i = 0; i < 3; i++) {
      expect(await executeShaped(d, "test_shapes", "one", shape(false), { one: 1 })).toEqual([{ one: 1 }]);
      expect(await executeShaped(d, "test_shapes", "two", shape(true), { one: 1, two: 2 })).toEqual([
        { one: 1, two: 2 },
      ]);
    }
  });

  it("keeps one text per prepared name when the module is loaded twice over one pool, as a production build bundles it", async () => {
    const d = await db();
    vi.resetModules();
    const { executeShaped: fromAnotherCopy } = await import("@/lib/db/prepared-statements");
    // Each copy meets a different shape first; the pool (a process singleton) and its connections are shared.
    expect(await executeShaped(d, "test_copies", "one", one, { one: 1 })).toEqual([{ one: 1 }]);
    expect(await fromAnotherCopy(d, "test_copies", "two", two, { two: 2 })).toEqual([{ two: 2 }]);
    for (let i = 0; i < 3; i++) {
      expect(await fromAnotherCopy(d, "test_copies", "one", one, { one: 1 })).toEqual([{ one: 1 }]);
      expect(await executeShaped(d, "test_copies", "two", two, { two: 2 })).toEqual([{ two: 2 }]);
    }
  });

  it("is refused when its text keeps changing, as it does with a value interpolated into it", async () => {
    const d = await db();
    const interpolated = (n: number) => () => sql.raw(`select ${n} as n`);
    for (let n = 0; n < maxShapesPerName; n++)
      await executeShaped(d, "test_interpolated", `n${n}`, interpolated(n), {});
    await expect(
      executeShaped(d, "test_interpolated", `n${maxShapesPerName}`, interpolated(maxShapesPerName), {}),
    ).rejects.toThrow(/interpolated/);
  });
});

describe("a statement compiled once per shape", () => {
  it("is built on the first use of its shape only outside tests, and binds each call's values", async () => {
    const d = await db();
    // A copy of the module that reads its configuration afresh: the shape check off, as in production.
    process.env.CHECK_STATEMENT_SHAPES = "false";
    vi.resetModules();
    const { executeShaped: unchecked } = await import("@/lib/db/prepared-statements");
    try {
      let builds = 0;
      const build = (withTwo: boolean) => () => {
        builds++;
        return sql`select ${sql.placeholder("one")}::int as one${withTwo ? sql`, ${sql.placeholder("two")}::int as two` : sql``}`;
      };
      for (let i = 0; i < 3; i++) {
        expect(await unchecked(d, "test_compiled", "one", build(false), { one: i })).toEqual([{ one: i }]);
        expect(await unchecked(d, "test_compiled", "two", build(true), { one: i, two: i * 2 })).toEqual([
          { one: i, two: i * 2 },
        ]);
      }
      expect(builds).toBe(2);
    } finally {
      delete process.env.CHECK_STATEMENT_SHAPES;
    }
  });

  it("is refused in tests when its shape leaves out an input that changes its text", async () => {
    const d = await db();
    const build = (withTwo: boolean) => () =>
      sql`select ${sql.placeholder("one")}::int as one${withTwo ? sql`, ${sql.placeholder("two")}::int as two` : sql``}`;
    // One shape for both texts: outside tests the second call would run the first text with its values.
    expect(await executeShaped(d, "test_wrong_shape", "always", build(false), { one: 1 })).toEqual([{ one: 1 }]);
    await expect(executeShaped(d, "test_wrong_shape", "always", build(true), { one: 1, two: 2 })).rejects.toThrow(
      /different text under the shape 'always'/,
    );
  });

  it("refuses a value built into its text, which would be the first call's on every later call", async () => {
    const d = await db();
    await expect(executeShaped(d, "test_compiled_value", "n", () => sql`select ${7}::int as n`, {})).rejects.toThrow(
      /placeholder/,
    );
  });

  it("fails as drizzle's queries fail (the database's code, named by its query), and the next call runs", async () => {
    const d = await db();
    await d.execute(sql`create table if not exists test_compiled_unique (id int primary key)`);
    const insert = () => sql`insert into test_compiled_unique (id) values (${sql.placeholder("id")}::int) returning id`;
    expect(await executeShaped(d, "test_compiled_insert", "one", insert, { id: 1 })).toEqual([{ id: 1 }]);
    const failure = await executeShaped(d, "test_compiled_insert", "one", insert, { id: 1 }).catch((e: unknown) => e);
    expect(isUniqueViolation(failure)).toBe(true);
    expect(failure).toMatchObject({ query: expect.stringContaining("insert into test_compiled_unique"), params: [1] });
    expect(await executeShaped(d, "test_compiled_insert", "one", insert, { id: 2 })).toEqual([{ id: 2 }]);
  });

  it("never runs inside another caller's open transaction", async () => {
    const d = await db();
    await d.execute(sql`create table if not exists test_compiled_isolated (id int primary key)`);
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => (inserted = resolve));
    const rolledBack = d
      .transaction(async (tx) => {
        await tx.execute(sql`insert into test_compiled_isolated (id) values (1)`);
        inserted();
        await new Promise((resolve) => setTimeout(resolve, 200));
        throw new Error("rolled back on purpose");
      })
      .catch(() => undefined);
    await insertedYet;
    const count = () =>
      sql`select count(*)::int as n from test_compiled_isolated where id > ${sql.placeholder("above")}::int`;
    // Outside the transaction it sees nothing of it: not its uncommitted row (PGlite would, if it ran inside).
    expect(await executeShaped(d, "test_compiled_isolation", "count", count, { above: 0 })).toEqual([{ n: 0 }]);
    await rolledBack;
  });
});
