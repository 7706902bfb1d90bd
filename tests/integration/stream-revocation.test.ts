import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limits } from "@/lib/limits";
import { signUpDeveloper, type Developer } from "../support/developer";
import { submit } from "../support/jobs";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
let dev: Developer;
beforeAll(async () => {
  // No nodes: the job stays open, so only the credential can end its stream.
  server = await startTestServer({ embeddedNodes: 0, env: { ROUTING_TIMEOUT_MS: "600000" } });
  dev = await signUpDeveloper(server.baseUrl);
});
afterAll(() => server.close());

/** The id of the newest key (keys are listed newest first). */
async function newestKeyId(): Promise<string> {
  const keys = (await (await dev.session("/api/developers/keys")).json()) as { keyId: string }[];
  return keys[0].keyId;
}

/** Reads the stream to its end and returns the text. */
async function readAll(res: Response): Promise<string> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text;
    text += decoder.decode(value);
  }
}

describe("event streams end with their credential", () => {
  it("a stream opened with a key ends with an error message within seconds of the key's revocation", async () => {
    const key = await dev.createApiKey();
    const id = await newestKeyId();
    const job = await submit(dev, key, "token-count", { text: "hello" });
    const res = await dev.withKey(key, `/api/developers/jobs/${job.jobId}/events`);
    expect(res.status).toBe(200);
    const reading = readAll(res);
    await new Promise((r) => setTimeout(r, 300));
    const revokedAt = Date.now();
    expect((await dev.session(`/api/developers/keys/${id}`, { method: "DELETE" })).status).toBe(200);
    const text = await reading;
    expect(Date.now() - revokedAt).toBeLessThan(limits.streamCredentialRecheckMs + 5_000);
    expect(text).toContain("event: status");
    expect(text.trimEnd()).toMatch(/event: error\ndata: \{"code":"INVALID_API_KEY"[^\n]*$/);
  });

  it(`caps concurrent streams per account at ${limits.streamsPerAccount}; closing one frees a place`, async () => {
    const key = await dev.createApiKey();
    const job = await submit(dev, key, "token-count", { text: "hello" });
    const aborters = Array.from({ length: limits.streamsPerAccount }, () => new AbortController());
    const open = await Promise.all(
      aborters.map((a) => dev.withKey(key, `/api/developers/jobs/${job.jobId}/events`, { signal: a.signal })),
    );
    for (const r of open)
      r.body
        ?.getReader()
        .read()
        .catch(() => undefined);
    expect(open.map((r) => r.status)).toEqual(open.map(() => 200));
    const refused = await dev.withKey(key, `/api/developers/jobs/${job.jobId}/events`);
    expect(refused.status).toBe(429);
    expect((await refused.json()).error.code).toBe("RATE_LIMITED");
    aborters[0].abort();
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const again = await dev.withKey(key, `/api/developers/jobs/${job.jobId}/events`);
      status = again.status;
      await again.body?.cancel();
    }
    expect(status).toBe(200);
    for (const a of aborters) a.abort();
  });
});
