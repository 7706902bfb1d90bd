import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { appOrigins, envVariables, parseEnv } from "./env";

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

describe("the README's configuration tables", () => {
  // Every row of the tables under "## Configuration" (its subsections included): name and default column.
  const readme = readFileSync(path.join(import.meta.dirname, "..", "README.md"), "utf8");
  const section = readme.slice(
    readme.indexOf("\n## Configuration\n"),
    readme.indexOf("\n## ", readme.indexOf("\n## Configuration\n") + 1),
  );
  const rows = [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` +\| ([^|]*)\|/gm)].map(([, name, fallback]) => ({
    name,
    fallback: fallback.trim(),
  }));

  it("list every variable the server reads, each once, and no other", () => {
    expect(rows.map((r) => r.name).sort()).toEqual([...envVariables].sort());
  });

  it("give each variable's default as the server applies it", () => {
    const defaults = parseEnv({}) as Record<string, unknown>;
    for (const { name, fallback } of rows) {
      const literal = /^`([^`]*)`$/.exec(fallback)?.[1];
      const applied = defaults[name];
      // Unset (or empty) in the schema: the README may tell what the code does instead (e.g. APP_ORIGIN from PORT).
      if (applied === undefined || (Array.isArray(applied) && applied.length === 0)) continue;
      expect.soft(literal, name).toBe(Array.isArray(applied) ? applied.join(",") : String(applied));
    }
  });
});
