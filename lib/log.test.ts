import { DrizzleQueryError } from "drizzle-orm/errors";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogger, queryName } from "./log";

afterEach(() => vi.restoreAllMocks());

function captureStderr(): () => string {
  let written = "";
  vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    written += String(chunk);
    return true;
  });
  return () => written;
}

describe("logs of database failures", () => {
  it("name the query and the database's error code, never the parameter values", () => {
    const output = captureStderr();
    const cause = Object.assign(
      new Error('duplicate key value violates unique constraint "api_keys_secret_hash_unique"'),
      {
        code: "23505",
        constraint: "api_keys_secret_hash_unique",
        detail: "Key (secret_hash)=(5e9b0c0ffee) already exists.",
      },
    );
    const failure = new DrizzleQueryError(
      'insert into "api_keys" ("account_id", "secret_hash") values ($1, $2) returning "id"',
      ["0b0e6c1a-account", "5e9b0c0ffee"],
      cause,
    );
    createLogger({ component: "test" }).error("unhandled error", { err: failure });
    const line = JSON.parse(output()) as { err: Record<string, unknown> };
    expect(line.err).toMatchObject({
      name: "DrizzleQueryError",
      query: "insert api_keys",
      code: "23505",
      constraint: "api_keys_secret_hash_unique",
    });
    expect(output()).not.toContain("5e9b0c0ffee");
    expect(output()).not.toContain("0b0e6c1a-account");
  });

  it("keep the parameter values out for a failed query from another copy of drizzle's error class", () => {
    const output = captureStderr();
    // A production build may bundle the class twice: the error is recognised by its shape.
    const failure = Object.assign(
      new Error('Failed query: update "jobs" set "error" = $1\nparams: secret-input-value'),
      {
        query: 'update "jobs" set "error" = $1',
        params: ["secret-input-value"],
        cause: Object.assign(new Error("Prepared statements must be unique"), { code: "XX000" }),
      },
    );
    createLogger({ component: "test" }).error("unhandled error", { err: failure });
    expect(JSON.parse(output()).err).toMatchObject({ query: "update jobs", code: "XX000" });
    expect(output()).not.toContain("secret-input-value");
  });

  it("names statements by verb and table", () => {
    expect(queryName('select "id" from "jobs" where "jobs"."id" = $1')).toBe("select jobs");
    expect(queryName('update "accounts" set "name" = $1')).toBe("update accounts");
    expect(queryName('delete from "auth_nonces" where "used_at" is not null')).toBe("delete auth_nonces");
  });
});
