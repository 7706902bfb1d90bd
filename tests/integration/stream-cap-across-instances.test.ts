// The cap on concurrent event streams is per account, not per server instance: places are database rows
// with a lease, so two instances on one PostgreSQL share the count, and a dead instance's places lapse.
import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseStreamPlace, takeStreamPlace } from "@/lib/domain/event-streams";
import { limits } from "@/lib/limits";
import { signUpDeveloper, type Developer } from "../support/developer";
import { submit } from "../support/jobs";
import { createScratchDatabase, usePostgres } from "../support/postgres";
import { startServerProcess, type Child } from "../support/processes";
import { withDeveloper } from "../support/with-developer";

const fixture = withDeveloper({ embeddedNodes: 0 });

describe("places for event streams", () => {
  let accountId: string;
  beforeAll(async () => {
    accountId = ((await (await fixture.dev.session("/api/developers/me")).json()) as { developerId: string })
      .developerId;
  });

  it("gives at most `cap` places to an account; a released place is free again", async () => {
    const first = await takeStreamPlace(accountId, 2, 60_000);
    const second = await takeStreamPlace(accountId, 2, 60_000);
    expect([first, second]).toEqual([expect.any(String), expect.any(String)]);
    expect(await takeStreamPlace(accountId, 2, 60_000)).toBeNull();
    await releaseStreamPlace(first as string);
    const third = await takeStreamPlace(accountId, 2, 60_000);
    expect(third).toEqual(expect.any(String));
    await Promise.all([second, third].map((id) => releaseStreamPlace(id as string)));
  });

  it("stops counting a place whose lease lapsed (its stream's instance died without releasing it)", async () => {
    // Long enough for the third take to find both still held on a loaded machine (with 300 ms, three
    // transactions on a busy PostgreSQL could outlast the leases), short enough to wait out.
    const leaseMs = 2_000;
    const held = await Promise.all([takeStreamPlace(accountId, 2, leaseMs), takeStreamPlace(accountId, 2, leaseMs)]);
    expect(held).toEqual([expect.any(String), expect.any(String)]);
    expect(await takeStreamPlace(accountId, 2, leaseMs)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, leaseMs + 100));
    const after = await takeStreamPlace(accountId, 2, 60_000);
    expect(after).toEqual(expect.any(String));
    await releaseStreamPlace(after as string);
  });

  it("never gives out more places than the cap to concurrent requests", async () => {
    for (let round = 0; round < 5; round++) {
      const taken = await Promise.all(Array.from({ length: 10 }, () => takeStreamPlace(accountId, 3, 60_000)));
      await Promise.all(taken.filter((id): id is string => id !== null).map(releaseStreamPlace));
      expect(taken.filter(Boolean)).toHaveLength(3);
    }
  });
});

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

// Two server processes on one PostgreSQL database: the postgres project only.
describe.skipIf(!usePostgres())("two server instances on one PostgreSQL", () => {
  const children: Child[] = [];
  let drop: () => Promise<void> = async () => undefined;
  let urls: string[];
  let dev: Developer;
  let key: string;
  let jobId: string;
  beforeAll(async () => {
    const database = await createScratchDatabase();
    drop = database.drop;
    // No nodes: the job stays open, so its streams stay open until closed.
    const env = {
      DATABASE_URL: database.url,
      EMBEDDED_NODES: "0",
      ROUTING_TIMEOUT_MS: "600000",
      RATE_LIMIT_PER_MINUTE: "0",
      ACCOUNT_RATE_PER_MINUTE: "0",
    };
    // Each instance's own origin (this process's APP_ORIGIN, inherited otherwise, is the in-process server's).
    const ports = await Promise.all([freePort(), freePort()]);
    const origin = (port: number) => `http://127.0.0.1:${port}`;
    const own = (port: number) => ({
      ...env,
      PORT: String(port),
      APP_ORIGIN: origin(port),
      EXECUTION_API_URL: origin(port),
    });
    children.push(...(await Promise.all(ports.map((port) => startServerProcess(own(port))))));
    urls = children.map((c) => c.ready.baseUrl as string);
    dev = await signUpDeveloper(urls[0]);
    key = await dev.createApiKey();
    jobId = (await submit(dev, key, "token-count", { text: "held open" })).jobId;
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill()));
    await drop();
  });

  const openStream = async (url: string, signal?: AbortSignal) => {
    const res = await fetch(`${url}/api/developers/jobs/${jobId}/events`, { headers: { "x-api-key": key }, signal });
    // Keep reading so the server's side of the stream stays open and flowing.
    if (res.status === 200)
      res.body
        ?.getReader()
        .read()
        .catch(() => undefined);
    return res;
  };

  it(`share one cap of ${limits.streamsPerAccount} per account; a stream closed on one frees a place on the other`, async () => {
    const aborters = Array.from({ length: limits.streamsPerAccount }, () => new AbortController());
    // Half the streams on each instance: each alone is under the cap, together they reach it.
    const open = await Promise.all(aborters.map((a, i) => openStream(urls[i % 2], a.signal)));
    expect(open.map((r) => r.status)).toEqual(open.map(() => 200));
    for (const url of urls) {
      const refused = await openStream(url);
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("RATE_LIMITED");
    }

    aborters[0].abort(); // a stream on the first instance
    let status = 0;
    for (let delay = 50; status !== 200 && delay < 3_000; delay *= 1.5) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      const probe = new AbortController();
      aborters.push(probe);
      status = (await openStream(urls[1], probe.signal)).status;
    }
    expect(status).toBe(200);
    for (const a of aborters) a.abort();
  });
});
