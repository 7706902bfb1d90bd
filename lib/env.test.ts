import { describe, expect, it } from "vitest";
import { appOrigins, parseEnv } from "./env";

describe("configuration", () => {
  it("has the contract's defaults", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      PORT: 3000,
      DATA_DIR: "./.data",
      STARTER_CREDITS: 100,
      EMBEDDED_NODES: 1,
      EMBEDDED_NODE_CONCURRENCY: 8,
      ROUTING_TIMEOUT_MS: 30_000,
      JOB_MAX_ATTEMPTS: 3,
    });
    expect(env.DATABASE_URL).toBeUndefined();
  });

  it("treats empty variables as unset", () => {
    expect(parseEnv({ LLM_BASE_URL: "", PORT: "" }).LLM_BASE_URL).toBeUndefined();
  });

  it("fails with a readable message naming the variable", () => {
    expect(() => parseEnv({ SESSION_SECRET: "short" })).toThrow(
      /SESSION_SECRET: SESSION_SECRET must be at least 32 characters/,
    );
    expect(() => parseEnv({ EMBEDDED_NODES: "-1" })).toThrow(/EMBEDDED_NODES/);
    expect(() => parseEnv({ DATABASE_URL: "not a url" })).toThrow(/DATABASE_URL/);
  });

  it("takes the app's origins from APP_ORIGIN only, with local defaults on PORT", () => {
    expect(appOrigins(parseEnv({ PORT: "4100" }))).toEqual(["http://localhost:4100", "http://127.0.0.1:4100"]);
    expect(
      appOrigins(parseEnv({ APP_ORIGIN: "https://app.example.com/, https://console.example.com:8443/x" })),
    ).toEqual(["https://app.example.com", "https://console.example.com:8443"]);
    expect(() => parseEnv({ APP_ORIGIN: "ftp://example.com" })).toThrow(/APP_ORIGIN/);
  });

  it("parses SIWE_CHAIN_IDS and TRUST_PROXY", () => {
    expect(parseEnv({}).SIWE_CHAIN_IDS).toEqual([1]);
    expect(parseEnv({ SIWE_CHAIN_IDS: "1, 8453" }).SIWE_CHAIN_IDS).toEqual([1, 8453]);
    expect(() => parseEnv({ SIWE_CHAIN_IDS: "1,x" })).toThrow(/SIWE_CHAIN_IDS/);
    expect(parseEnv({}).TRUST_PROXY).toBe(false);
    expect(parseEnv({ TRUST_PROXY: "true" }).TRUST_PROXY).toBe(true);
  });
});
