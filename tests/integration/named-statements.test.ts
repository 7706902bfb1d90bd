// Hot statements run as named prepared statements on PostgreSQL (lib/db/client.ts executeNamed): a name
// may cover a few shapes of one statement, never a text that changes with its values.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { executeNamed } from "@/lib/db/client";
import { db } from "@/lib/domain/database";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 0 });
});
afterAll(() => server?.close());

describe("a named statement", () => {
  it("runs each shape it is given, as often as it is asked", async () => {
    const d = await db();
    const shape = (withTwo: boolean) => sql`select ${1}::int as one${withTwo ? sql`, ${2}::int as two` : sql``}`;
    for (let i = 0; i < 3; i++) {
      expect(await executeNamed(d, "test_shapes", shape(false))).toEqual([{ one: 1 }]);
      expect(await executeNamed(d, "test_shapes", shape(true))).toEqual([{ one: 1, two: 2 }]);
    }
  });

  it("keeps one text per prepared name when the module is loaded twice over one pool, as a production build bundles it", async () => {
    const d = await db();
    vi.resetModules();
    const { executeNamed: fromAnotherCopy } = await import("@/lib/db/client");
    // Each copy meets a different shape first; the pool (a process singleton) and its connections are shared.
    expect(await executeNamed(d, "test_copies", sql`select ${1}::int as one`)).toEqual([{ one: 1 }]);
    expect(await fromAnotherCopy(d, "test_copies", sql`select ${2}::int as two`)).toEqual([{ two: 2 }]);
    for (let i = 0; i < 3; i++) {
      expect(await fromAnotherCopy(d, "test_copies", sql`select ${1}::int as one`)).toEqual([{ one: 1 }]);
      expect(await executeNamed(d, "test_copies", sql`select ${2}::int as two`)).toEqual([{ two: 2 }]);
    }
  });

  it("is refused when its text keeps changing, as it does with a value interpolated into it", async () => {
    const d = await db();
    const interpolated = (n: number) => sql.raw(`select ${n} as n`);
    for (let n = 0; n < 32; n++) await executeNamed(d, "test_interpolated", interpolated(n));
    await expect(executeNamed(d, "test_interpolated", interpolated(32))).rejects.toThrow(/interpolated/);
  });
});
