// What wakes a waiting claim (lib/engine/work-signals.ts): a signal on the work channel from the database, or,
// for jobs this process creates on PostgreSQL, the creation itself as soon as it commits. Of a creation's two
// signals, only the first wakes a claim, whichever comes first; the other would run a claim for nothing. A
// network node's waiting claim is handed a creation's jobs: set aside for them, its statement sent on the
// creation's connection right behind the creation's (PostgreSQL; PGlite wakes it at the commit), and the
// creation sends no NOTIFY of their service.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/domain/database";
import { signal, workChannel } from "@/lib/domain/signals";
import { sql, type SQL } from "drizzle-orm";
import type { Tx } from "@/lib/db/database";
import { claimedFull, createdWork, sendHandingOver, waitForWork, workWaiters } from "@/lib/engine/work-signals";
import { usePostgres } from "../support/postgres";
import { startTestServer, type TestServer } from "../support/test-server";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ embeddedNodes: 0 });
  await workWaiters();
});
afterAll(() => server?.close());

/** Sends `payload` on the work channel through the database (NOTIFY; PGlite's bus), as a writer does. */
const notify = async (payload: string) => signal(await db(), workChannel, payload);

/**
 * A claim of `serviceId`, once it waits (up to 10 s, or `ms`); `woken` says whether a signal ended its wait.
 * A developer's node's unless `network`.
 */
async function waitingClaim(serviceId: string, { network = false, ms = 10_000 } = {}) {
  const started = Date.now();
  const woken = waitForWork([serviceId], ms, undefined, { takesNetworkJobs: network }).then(
    () => Date.now() - started < ms - 1_000,
  );
  const state = await workWaiters();
  while (!state.waiting.some((w) => w.serviceIds.includes(serviceId))) await new Promise((r) => setTimeout(r, 1));
  return { woken };
}

/** What this process still remembers of `serviceId`'s signals: waiting claims, unclaimed work, creations. */
async function remembered(serviceId: string) {
  const state = await workWaiters();
  return {
    waiting: state.waiting.filter((w) => w.serviceIds.includes(serviceId)).length,
    unclaimed: state.unclaimed.has(serviceId),
    creations: [...state.created.keys()].filter((payload) => payload.startsWith(`${serviceId} `)).length,
  };
}

/** The first row `query` answers on `on`. */
const firstRow = async <Row>(on: Tx, query: SQL) => ((await on.execute(query)) as unknown as { rows: Row[] }).rows[0];

/** Long enough for a NOTIFY to be delivered to this process's LISTEN connection. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe("a waiting claim", () => {
  it("is woken by a signal of its service from the database", async () => {
    const serviceId = `svc-${randomUUID()}`;
    const claim = await waitingClaim(serviceId);
    await notify(serviceId);
    expect(await claim.woken).toBe(true);
  });

  it("is woken by this process's own creation as soon as it commits; the creation's NOTIFY after it wakes nobody", async () => {
    const serviceId = `svc-${randomUUID()}`;
    const first = await waitingClaim(serviceId);
    const work = await createdWork([{ serviceId, placement: "any" }]);
    await work.committed();
    expect(await first.woken).toBe(true);

    const second = await waitingClaim(serviceId);
    await notify(`${serviceId} ${work.tag}`);
    // Until the NOTIFY arrives the creation is remembered (creations: 1); once it has, it is forgotten and the
    // claim still waits. Polled, not read after a fixed pause: a loaded machine can take longer than one.
    await expect
      .poll(() => remembered(serviceId), { timeout: 10_000 })
      .toEqual({ waiting: 1, unclaimed: false, creations: 0 });
    await notify(serviceId); // an untagged signal (another writer's) still wakes it
    expect(await second.woken).toBe(true);
  });

  it("is woken by a creation's NOTIFY when it comes first; the creation's commit after it wakes nobody", async () => {
    const serviceId = `svc-${randomUUID()}`;
    const first = await waitingClaim(serviceId);
    const work = await createdWork([{ serviceId, placement: "any" }]);
    await notify(`${serviceId} ${work.tag}`);
    expect(await first.woken).toBe(true);

    const second = await waitingClaim(serviceId);
    await work.committed();
    expect(await remembered(serviceId)).toEqual({ waiting: 1, unclaimed: false, creations: 0 });
    await notify(serviceId);
    expect(await second.woken).toBe(true);
  });

  it("woken by a creation, has sent its statement before the creator goes on (answering its request, say)", async () => {
    const serviceId = `svc-${randomUUID()}`;
    let sent = false;
    // A claim's way from its wake to its statement: a few promise callbacks (the database, the statement's shape).
    const claim = waitForWork([serviceId], 10_000).then(async () => {
      for (let i = 0; i < 10; i++) await Promise.resolve();
      sent = true;
    });
    const state = await workWaiters();
    while (!state.waiting.some((w) => w.serviceIds.includes(serviceId))) await new Promise((r) => setTimeout(r, 1));
    const work = await createdWork([{ serviceId, placement: "any" }]);
    await work.committed();
    expect(sent).toBe(true);
    await claim;
  });

  it("is not woken by a creation that wrote nothing, and forgets it", async () => {
    const serviceId = `svc-${randomUUID()}`;
    const claim = await waitingClaim(serviceId);
    const work = await createdWork([{ serviceId, placement: "any" }]);
    work.abandoned();
    await settle();
    expect(await remembered(serviceId)).toEqual({ waiting: 1, unclaimed: false, creations: 0 });
    await notify(serviceId);
    expect(await claim.woken).toBe(true);
  });
});

describe("a network node's waiting claim", () => {
  it("is handed a creation's jobs: set aside until the commit wakes it, with no NOTIFY of their service", async () => {
    const serviceId = `svc-${randomUUID()}`;
    const claim = await waitingClaim(serviceId, { network: true });
    const work = await createdWork([{ serviceId, placement: "any" }]);
    expect(work.handedOver).toEqual([serviceId]);
    // Set aside: another signal meanwhile does not take it from the creation; it is remembered for the next claim.
    await notify(serviceId);
    await expect.poll(() => remembered(serviceId)).toEqual({ waiting: 0, unclaimed: true, creations: 0 });
    await work.committed();
    expect(await claim.woken).toBe(true);
    (await workWaiters()).unclaimed.delete(serviceId);
  });

  it("is handed a creation's jobs by its statement, sent on the creation's connection right behind it: it runs once the creation has committed, and its answer ends the wait", async () => {
    const serviceId = `svc-${randomUUID()}`;
    let answered = false;
    const claimSent: boolean[] = [];
    const claim = waitForWork([serviceId], 10_000, undefined, {
      takesNetworkJobs: true,
      claim: async (on) => {
        claimSent.push(!answered);
        return firstRow<{ pid: number; began: string }>(on, sql`select pg_backend_pid() as pid, now()::text as began`);
      },
    });
    const state = await workWaiters();
    while (!state.waiting.some((w) => w.serviceIds.includes(serviceId))) await new Promise((r) => setTimeout(r, 1));
    const work = await createdWork([{ serviceId, placement: "any" }]);
    // A creation that takes a while (the claim leaves before its answer comes back), and a while to leave: the
    // claim still goes out behind it.
    const created = await sendHandingOver(await db(), work, async (on) => {
      for (let i = 0; i < 50; i++) await Promise.resolve();
      const row = await firstRow<{ pid: number; done: string }>(
        on,
        sql`select pg_sleep(0.1), pg_backend_pid() as pid, clock_timestamp()::text as done`,
      );
      answered = true;
      return row;
    });
    await work.committed();
    const claimed = await claim;
    if (!usePostgres()) return expect(claimed).toBeUndefined(); // woken at the commit, it claims on its own
    expect(claimSent).toEqual([true]);
    expect(claimed?.pid).toBe(created.pid);
    expect(Date.parse(claimed?.began ?? "")).toBeGreaterThanOrEqual(Date.parse(created.done));
  });

  it("handed a creation that fails, still gets its claim's answer, and the connection goes back to the pool", async () => {
    const serviceId = `svc-${randomUUID()}`;
    const claim = waitForWork([serviceId], 10_000, undefined, {
      takesNetworkJobs: true,
      claim: (on) => firstRow<{ n: number }>(on, sql`select 1 as n`),
    });
    const state = await workWaiters();
    while (!state.waiting.some((w) => w.serviceIds.includes(serviceId))) await new Promise((r) => setTimeout(r, 1));
    const work = await createdWork([{ serviceId, placement: "any" }]);
    await expect(sendHandingOver(await db(), work, (on) => on.execute(sql`select 1 / 0`))).rejects.toThrow();
    work.abandoned();
    if (usePostgres()) expect(await claim).toEqual({ n: 1 });
    else {
      expect(await remembered(serviceId)).toEqual({ waiting: 1, unclaimed: false, creations: 0 });
      await notify(serviceId);
      expect(await claim).toBeUndefined();
    }
    // One that fails before it is even sent fails its caller, not the process (no unhandled rejection).
    const again = waitForWork([serviceId], 10_000, undefined, {
      takesNetworkJobs: true,
      claim: (on) => firstRow<{ n: number }>(on, sql`select 2 as n`),
    });
    while (!state.waiting.some((w) => w.serviceIds.includes(serviceId))) await new Promise((r) => setTimeout(r, 1));
    const early = await createdWork([{ serviceId, placement: "any" }]);
    expect(early.handedOver).toEqual([serviceId]);
    await expect(
      sendHandingOver(await db(), early, async () => {
        throw new Error("refused before it was sent");
      }),
    ).rejects.toThrow("refused before it was sent");
    early.abandoned();
    if (usePostgres()) expect(await again).toEqual({ n: 2 });
    else {
      await notify(serviceId);
      expect(await again).toBeUndefined();
    }
    // Every connection of the pool is still usable: ten statements at once all answer.
    await Promise.all(Array.from({ length: 10 }, async () => (await db()).execute(sql`select pg_sleep(0.05)`)));
  });

  it("is handed the jobs of all its services in a creation, and woken once for them", async () => {
    const [a, b] = [`svc-${randomUUID()}`, `svc-${randomUUID()}`];
    const claim = waitForWork([a, b], 10_000, undefined, { takesNetworkJobs: true });
    const state = await workWaiters();
    while (!state.waiting.some((w) => w.serviceIds.includes(a))) await new Promise((r) => setTimeout(r, 1));
    const work = await createdWork([
      { serviceId: a, placement: "any" },
      { serviceId: b, placement: "network" },
    ]);
    expect(work.handedOver).toEqual([a, b]);
    await work.committed();
    await claim;
    expect([await remembered(a), await remembered(b)]).toEqual([
      { waiting: 0, unclaimed: false, creations: 0 },
      { waiting: 0, unclaimed: false, creations: 0 },
    ]);
  });

  it("is not handed jobs that ask for their owner's nodes, nor a developer's node's claim any", async () => {
    const serviceId = `svc-${randomUUID()}`;
    const network = await waitingClaim(serviceId, { network: true });
    const own = await createdWork([
      { serviceId, placement: "any" },
      { serviceId, placement: "own" },
    ]);
    expect(own.handedOver).toEqual([]);
    own.abandoned();
    await notify(serviceId);
    expect(await network.woken).toBe(true);

    const developers = await waitingClaim(serviceId);
    const work = await createdWork([{ serviceId, placement: "any" }]);
    expect(work.handedOver).toEqual([]);
    work.abandoned();
    await notify(serviceId);
    expect(await developers.woken).toBe(true);
  });

  it("is not handed the jobs of a creation inside a caller's transaction (woken by its commit's NOTIFY)", async () => {
    const serviceId = `svc-${randomUUID()}`;
    const claim = await waitingClaim(serviceId, { network: true });
    const work = await createdWork([{ serviceId, placement: "any" }], { handOver: false });
    expect(work.handedOver).toEqual([]);
    work.abandoned();
    expect(await remembered(serviceId)).toEqual({ waiting: 1, unclaimed: false, creations: 0 });
    await notify(serviceId);
    expect(await claim.woken).toBe(true);
  });

  it("is given back, still waiting, when the creation wrote nothing", async () => {
    const serviceId = `svc-${randomUUID()}`;
    const claim = await waitingClaim(serviceId, { network: true });
    const work = await createdWork([{ serviceId, placement: "any" }]);
    work.abandoned();
    expect(await remembered(serviceId)).toEqual({ waiting: 1, unclaimed: false, creations: 0 });
    await notify(serviceId);
    expect(await claim.woken).toBe(true);
  });

  it("whose wait ended before the commit leaves the jobs to the next claim", async () => {
    const serviceId = `svc-${randomUUID()}`;
    const claim = await waitingClaim(serviceId, { network: true, ms: 1_200 });
    const work = await createdWork([{ serviceId, placement: "any" }]);
    expect(work.handedOver).toEqual([serviceId]);
    expect(await claim.woken).toBe(false);
    await work.committed();
    expect(await remembered(serviceId)).toEqual({ waiting: 0, unclaimed: true, creations: 0 });
    (await workWaiters()).unclaimed.delete(serviceId);
  });

  it("whose wait ended before the creation was sent is not run on its connection: the jobs go to the next claim", async () => {
    const serviceId = `svc-${randomUUID()}`;
    let runs = 0;
    const claim = waitForWork([serviceId], 300, undefined, {
      takesNetworkJobs: true,
      claim: async () => void (runs += 1),
    });
    const state = await workWaiters();
    while (!state.waiting.some((w) => w.serviceIds.includes(serviceId))) await new Promise((r) => setTimeout(r, 1));
    const work = await createdWork([{ serviceId, placement: "any" }]);
    expect(work.handedOver).toEqual([serviceId]);
    expect(await claim).toBeUndefined(); // timed out: its caller claims on its own
    await sendHandingOver(await db(), work, (on) => firstRow(on, sql`select 1`));
    await work.committed();
    expect(runs).toBe(0);
    expect(await remembered(serviceId)).toEqual({ waiting: 0, unclaimed: true, creations: 0 });
    state.unclaimed.delete(serviceId);
  });

  it("that comes back full wakes one more waiting claim of its services", async () => {
    const serviceId = `svc-${randomUUID()}`;
    const [first, second] = [await waitingClaim(serviceId), await waitingClaim(serviceId)];
    claimedFull(await workWaiters(), [serviceId]);
    expect(await first.woken).toBe(true);
    expect(await remembered(serviceId)).toEqual({ waiting: 1, unclaimed: false, creations: 0 });
    await notify(serviceId);
    expect(await second.woken).toBe(true);
  });
});
