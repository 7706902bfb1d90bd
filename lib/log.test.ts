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
    const cause = Object.assign(new Error('duplicate key value violates unique constraint "api_keys_secret_hash_unique"'), {
      code: "23505",
      constraint: "api_keys_secret_hash_unique",
      detail: "Key (secret_hash)=(5e9b0c0ffee) already exists.",
    });
    const failure = new DrizzleQueryError(
      'insert into "api_keys" ("account_id", "secret_hash") values ($1, $2) returning "id"',
      ["0b0e6c1a-account", "5e9b0c0ffee"],
      cause,
    );
    createLogger({ component: "test" }).error("unhandled error", { err: failure });
    const line = JSON.parse(output()) as { err: Record<string, unknown> };
    expect(line.err).toMatchObject({ name: "DrizzleQueryError", query: "insert api_keys", code: "23505", constraint: "api_keys_secret_hash_unique" });
    expect(output()).not.toContain("5e9b0c0ffee");
    expect(output()).not.toContain("0b0e6c1a-account");
  });

  it("names statements by verb and table", () => {
    expect(queryName('select "id" from "jobs" where "jobs"."id" = $1')).toBe("select jobs");
    expect(queryName('update "accounts" set "name" = $1')).toBe("update accounts");
    expect(queryName('delete from "auth_nonces" where "used_at" is not null')).toBe("delete auth_nonces");
  });
});
