// Constructing the client: server-side only, required options checked, identifying headers on every
// request.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ExecutionClient, ExecutionNetworkError, VERSION } from "@/lib/client/src/index";
import { jobFixture, startFakeApi, type FakeApi } from "./fake-api";

let api: FakeApi;
afterEach(() => api?.close());

function inFakeBrowser<T>(run: () => T): T {
  const g = globalThis as { window?: unknown; document?: unknown };
  g.window = {};
  g.document = {};
  try {
    return run();
  } finally {
    delete g.window;
    delete g.document;
  }
}

describe("constructing the client", () => {
  it("refuses to construct in a browser, where the key would be public", () => {
    expect(() => inFakeBrowser(() => new ExecutionClient({ apiKey: "dev_x", baseUrl: "https://api.example" }))).toThrow(
      /server-side only.*dangerouslyAllowBrowser/s,
    );
  });

  it("constructs in a browser only when explicitly allowed", () => {
    const client = inFakeBrowser(
      () => new ExecutionClient({ apiKey: "dev_x", baseUrl: "https://api.example", dangerouslyAllowBrowser: true }),
    );
    expect(client).toBeInstanceOf(ExecutionClient);
  });

  it("requires an API key and an absolute http(s) base URL", () => {
    expect(() => new ExecutionClient({ apiKey: "", baseUrl: "https://api.example" })).toThrow(ExecutionNetworkError);
    expect(() => new ExecutionClient({ apiKey: "dev_x", baseUrl: "/relative" })).toThrow(/baseUrl/);
    expect(() => new ExecutionClient({ apiKey: "dev_x", baseUrl: "ftp://api.example" })).toThrow(/baseUrl/);
    expect(() => new ExecutionClient({ apiKey: "dev_x", baseUrl: "https://api.example", maxRetries: -1 })).toThrow(
      /maxRetries/,
    );
    expect(() => new ExecutionClient({ apiKey: "dev_x", baseUrl: "https://api.example", timeoutMs: 0 })).toThrow(
      /timeoutMs/,
    );
  });

  it("has the documented defaults", () => {
    const client = new ExecutionClient({ apiKey: "dev_x", baseUrl: "https://api.example/" });
    expect(client).toMatchObject({ timeoutMs: 30_000, maxRetries: 2, baseUrl: "https://api.example" });
  });

  it("sends x-api-key and user-agent on every request", async () => {
    api = await startFakeApi((req) => ({
      status: 200,
      body: req.url.startsWith("/api/developers/jobs/") ? jobFixture({}) : [],
    }));
    const client = new ExecutionClient({ apiKey: "dev_secret", baseUrl: api.baseUrl });
    await client.listServices();
    await client.getJob("job_1");
    expect(api.requests.map((r) => [r.url, r.headers["x-api-key"], r.headers["user-agent"]])).toEqual(
      ["/api/marketplace/services", "/api/developers/jobs/job_1"].map((url) => [
        url,
        "dev_secret",
        `execution-network-client/${VERSION} node/${process.versions.node}`,
      ]),
    );
  });

  it("keeps a path prefix of the base URL", async () => {
    api = await startFakeApi(() => ({ status: 200, body: [] }));
    await new ExecutionClient({ apiKey: "dev_x", baseUrl: `${api.baseUrl}/execution/` }).listServices();
    expect(api.requests[0]?.url).toBe("/execution/api/marketplace/services");
  });

  it("reports the package's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../lib/client/package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(VERSION).toBe(pkg.version);
    expect(VERSION).toBe("0.2.0");
  });
});
