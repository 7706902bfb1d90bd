import { describe, expect, it } from "vitest";
import { parseEnv } from "./env";

describe("configuration", () => {
  it("has the contract's defaults", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({ PORT: 3000, DATA_DIR: "./.data", STARTER_CREDITS: 100, EMBEDDED_NODES: 1, ROUTING_TIMEOUT_MS: 30_000, JOB_MAX_ATTEMPTS: 3 });
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it("treats empty variables as unset", () => {
    expect(parseEnv({ LLM_BASE_URL: "", PORT: "" }).LLM_BASE_URL).toBeUndefined();
  });

  it("fails with a readable message naming the variable", () => {
    expect(() => parseEnv({ SESSION_SECRET: "short" })).toThrow(/SESSION_SECRET: SESSION_SECRET must be at least 32 characters/);
    expect(() => parseEnv({ EMBEDDED_NODES: "-1" })).toThrow(/EMBEDDED_NODES/);
    expect(() => parseEnv({ DATABASE_URL: "not a url" })).toThrow(/DATABASE_URL/);
  });
});
