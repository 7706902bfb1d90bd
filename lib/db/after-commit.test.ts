// Commit effects: run once the transaction that registered them commits, never for one that rolls back, a
// released savepoint's with its parent's, a rolled-back savepoint's never, and at once outside a transaction.
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { afterCommit, withCommitEffects } from "./after-commit";
import type { Db } from "./database";

const client = new PGlite();
const d = withCommitEffects(drizzle({ client }) as unknown as Db);
afterAll(() => client.close());

describe("afterCommit", () => {
  it("runs an effect after its transaction commits, not before", async () => {
    const ran: string[] = [];
    await d.transaction(async (tx) => {
      afterCommit(tx, () => ran.push("committed"));
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(["committed"]);
  });

  it("drops the effects of a transaction that rolls back", async () => {
    const ran: string[] = [];
    await expect(
      d.transaction(async (tx) => {
        afterCommit(tx, () => ran.push("rolled back"));
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(ran).toEqual([]);
  });

  it("keeps a released savepoint's effects for its parent's commit and drops a rolled-back one's", async () => {
    const ran: string[] = [];
    await d.transaction(async (tx) => {
      await tx.transaction(async (inner) => afterCommit(inner, () => ran.push("released")));
      await tx
        .transaction(async (inner) => {
          afterCommit(inner, () => ran.push("rolled back"));
          throw new Error("roll back the savepoint");
        })
        .catch(() => undefined);
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(["released"]);
  });

  it("runs at once outside a transaction", () => {
    const ran: string[] = [];
    afterCommit(d, () => ran.push("now"));
    expect(ran).toEqual(["now"]);
  });
});
