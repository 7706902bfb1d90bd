// A node's reports name the attempt they belong to; the jobs table keeps it as a PostgreSQL integer.
import { describe, expect, it } from "vitest";
import { StartRequest } from "./node-protocol";

describe("a node report's attempt", () => {
  it("is refused past the largest PostgreSQL integer (a 400, never the database's 500), and accepted up to it", () => {
    expect(StartRequest.safeParse({ attempt: 2_147_483_647 }).success).toBe(true);
    expect(StartRequest.safeParse({ attempt: 2_147_483_648 }).success).toBe(false);
    expect(StartRequest.safeParse({ attempt: 0 }).success).toBe(false);
  });
});
