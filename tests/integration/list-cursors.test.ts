// Lists that cost the same at any depth (issue 43): every paged list takes `after=<cursor>` and answers the
// next cursor; unfiltered totals come from kept counters that equal a recount whatever work happened;
// filtered totals stop counting at limits.listCountCap (then a lower bound) while `hasMore` stays exact.
// Top-ups and deliveries keep theirs through triggers' deltas, folded by the sweeper (list-counts.ts).
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper, type Developer } from "../support/developer";
import { encodeCursor } from "@/lib/contract/list-cursor";
import { expectError } from "../support/expect-error";
import { submit, waitForStatus } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

interface Listed {
  data: Record<string, unknown>[];
  pagination: {
    page: number;
    limit: number;
    total: number;
    totalPages: number;
    hasMore: boolean;
    totalIsLowerBound: boolean;
    nextCursor: string | null;
    prevCursor: string | null;
  };
}

const ctx = withDeveloper({ env: { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" } });

async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const { db } = await import("@/lib/domain/database");
  return ((await (await db()).execute(query)) as unknown as { rows: T[] }).rows;
}

async function accountIdOf(dev: Developer): Promise<string> {
  const [{ id }] = await rows<{ id: string }>(
    sql`select id from accounts where lower(wallet_address) = lower(${dev.address})`,
  );
  return id;
}

async function grant(dev: Developer, amount: number) {
  const { grantCreditsToAddress } = await import("@/lib/domain/credits");
  await grantCreditsToAddress(dev.address, amount, "Test grant");
}

async function list(dev: Developer, key: string, path: string): Promise<Listed> {
  const res = await dev.withKey(key, path);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Listed;
}

/** Every item of a list, page after page by cursor, and the pages' answers. */
async function walk(dev: Developer, key: string, path: string, idOf: (item: Record<string, unknown>) => string) {
  const ids: string[] = [];
  const pages: Listed[] = [];
  for (let after: string | null = null; ;) {
    const page = await list(dev, key, `${path}${path.includes("?") ? "&" : "?"}${after ? `after=${after}` : ""}`);
    pages.push(page);
    ids.push(...page.data.map(idOf));
    after = page.pagination.nextCursor;
    if (!after) return { ids, pages };
  }
}

const jobIdOf = (j: Record<string, unknown>) => String(j.jobId);

/** A small seeded generator, so a failing run can be replayed with its seed. */
function randomFrom(seed: number) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

beforeAll(async () => {
  await grant(ctx.dev, 100_000);
});

describe("a list read by cursor", () => {
  it("shows every job that existed once, newest first, while new jobs keep arriving", async () => {
    // Submitted together, so several share a created_at: the id orders those.
    const existing = await Promise.all(
      Array.from({ length: 24 }, (_, i) => submit(ctx.dev, ctx.key, "token-count", { text: `existing ${i}` })),
    );
    // Each page is read while two new jobs are being submitted.
    const ids: string[] = [];
    let last: Listed | undefined;
    for (let after: string | null = null, n = 0; n === 0 || after; n++) {
      const [page]: [Listed, ...unknown[]] = await Promise.all([
        list(ctx.dev, ctx.key, `/api/developers/jobs?limit=5${after ? `&after=${after}` : ""}`),
        submit(ctx.dev, ctx.key, "token-count", { text: `new ${n}.a` }),
        submit(ctx.dev, ctx.key, "token-count", { text: `new ${n}.b` }),
      ]);
      ids.push(...page.data.map(jobIdOf));
      after = page.pagination.nextCursor;
      last = page;
    }

    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(existing.map((j) => j.jobId)));
    const order = await rows<{ id: string }>(
      sql`select id from jobs where id = any(${`{${ids.join(",")}}`}::uuid[]) order by created_at desc, id desc`,
    );
    expect(ids).toEqual(order.map((r) => r.id));
    expect(last?.pagination).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it("gives the page before it as prevCursor, and null when that page is the first", async () => {
    const first = await list(ctx.dev, ctx.key, "/api/developers/jobs?limit=3");
    const second = await list(ctx.dev, ctx.key, `/api/developers/jobs?limit=3&after=${first.pagination.nextCursor}`);
    const third = await list(ctx.dev, ctx.key, `/api/developers/jobs?limit=3&after=${second.pagination.nextCursor}`);
    expect(second.pagination.prevCursor).toBeNull();
    const back = await list(ctx.dev, ctx.key, `/api/developers/jobs?limit=3&after=${third.pagination.prevCursor}`);
    expect(back.data.map(jobIdOf)).toEqual(second.data.map(jobIdOf));
  });

  it("answers 400 INVALID_REQUEST for a cursor it did not give, on every list", async () => {
    const endpoint = (await (
      await ctx.dev.session("/api/developers/webhooks", {
        method: "POST",
        body: JSON.stringify({ url: "http://127.0.0.1:9/hook", events: ["job.completed"] }),
      })
    ).json()) as { endpointId: string };
    const [job] = (await list(ctx.dev, ctx.key, "/api/developers/jobs?limit=1")).data;
    const jobsCursor = (await list(ctx.dev, ctx.key, "/api/developers/jobs?limit=1")).pagination.nextCursor;
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const paths = [
      "/api/developers/jobs",
      "/api/credits/history",
      "/api/credits/top-ups",
      `/api/developers/webhooks/${endpoint.endpointId}/deliveries`,
      `/api/developers/jobs/${jobIdOf(job)}/telemetry`,
    ];
    const badCursors = [
      "not a cursor",
      "%%%",
      "x".repeat(500),
      forged(["jobs", "yesterday", "00000000-0000-4000-8000-000000000000"]),
      forged(["jobs", -1, "00000000-0000-4000-8000-000000000000"]),
      forged({ after: 1 }),
      Buffer.from("[1,2").toString("base64url"),
    ];
    for (const path of paths) {
      for (const bad of badCursors) {
        await expectError(
          await ctx.dev.withKey(ctx.key, `${path}?after=${encodeURIComponent(bad)}`),
          400,
          "INVALID_REQUEST",
        );
      }
    }
    // A real cursor of one list is refused by every other.
    for (const path of paths.slice(1)) {
      await expectError(await ctx.dev.withKey(ctx.key, `${path}?after=${jobsCursor}`), 400, "INVALID_REQUEST");
    }
  });

  it("positions only: another developer's cursor reads the caller's own rows, never theirs", async () => {
    const other = await signUpDeveloper(ctx.server.baseUrl);
    const otherKey = await other.createApiKey();
    for (const text of ["someone else's", "and another"]) await submit(other, otherKey, "token-count", { text });
    const theirs = await walk(other, otherKey, "/api/developers/jobs?limit=1", jobIdOf);
    expect(theirs.ids).toHaveLength(2);
    const theirCursor = (await list(other, otherKey, "/api/developers/jobs?limit=1")).pagination.nextCursor;
    const ledgerCursor = (await list(other, otherKey, "/api/credits/history?limit=1")).pagination.nextCursor;
    expect(theirCursor).toEqual(expect.any(String));

    const mine = await list(ctx.dev, ctx.key, `/api/developers/jobs?limit=100&after=${theirCursor}`);
    const myLedger = await list(ctx.dev, ctx.key, `/api/credits/history?limit=100&after=${ledgerCursor}`);
    const me = await accountIdOf(ctx.dev);
    expect(mine.data.map(jobIdOf)).not.toEqual(expect.arrayContaining([theirs.ids[1]]));
    const owners = await rows<{ account_id: string }>(
      sql`select distinct account_id from jobs where id = any(${`{${mine.data.map(jobIdOf).join(",")}}`}::uuid[])`,
    );
    expect(owners.map((o) => o.account_id)).toEqual(mine.data.length > 0 ? [me] : []);
    const ledgerOwners = await rows<{ account_id: string }>(
      sql`select distinct account_id from credit_ledger where id = any(${`{${myLedger.data.map((e) => String(e.entryId)).join(",")}}`}::uuid[])`,
    );
    expect(ledgerOwners.map((o) => o.account_id)).toEqual(myLedger.data.length > 0 ? [me] : []);
  });
});

describe("kept totals", () => {
  it("equal a recount of the rows after random work: concurrent submissions, failures and refunds, cancels, webhooks", async () => {
    const seed = Date.now();
    const random = randomFrom(seed);
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const key = await dev.createApiKey();
    await grant(dev, 10_000);
    const endpoints: string[] = [];
    const createEndpoint = async () => {
      const res = await dev.session("/api/developers/webhooks", {
        method: "POST",
        body: JSON.stringify({ url: "http://127.0.0.1:9/hook", events: ["job.status_changed", "job.failed"] }),
      });
      endpoints.push(((await res.json()) as { endpointId: string }).endpointId);
    };
    await createEndpoint();
    const jobs: string[] = [];
    for (let step = 0; step < 20; step++) {
      const r = random();
      if (r < 0.45) {
        const batch = 1 + Math.floor(random() * 3);
        const submitted = await Promise.all(
          Array.from({ length: batch }, () => submit(dev, key, "token-count", { text: `step ${step}` })),
        );
        jobs.push(...submitted.map((j) => j.jobId));
      } else if (r < 0.6) {
        // Blank text fails without retries: a final failure and its refund.
        jobs.push((await submit(dev, key, "text-summarize", { text: "   " })).jobId);
      } else if (r < 0.7 && jobs.length > 0) {
        await dev.withKey(key, `/api/developers/jobs/${jobs[Math.floor(random() * jobs.length)]}/cancel`, {
          method: "POST",
        });
      } else if (r < 0.8 && endpoints.length > 0) {
        await dev.session(`/api/developers/webhooks/${endpoints[Math.floor(random() * endpoints.length)]}/test`, {
          method: "POST",
        });
      } else if (r < 0.87 && endpoints.length > 1) {
        const [gone] = endpoints.splice(Math.floor(random() * endpoints.length), 1);
        await dev.session(`/api/developers/webhooks/${gone}`, { method: "DELETE" });
      } else if (endpoints.length < 4) {
        await createEndpoint();
      }
    }
    await Promise.all(jobs.map((jobId) => waitForStatus(dev, key, jobId)));

    const account = await accountIdOf(dev);
    // A kept total is its counter and the deltas not folded yet.
    const kept = await rows<{ scope_id: string; list: string; count: string }>(sql`
      select scope_id, list, sum(n) as count from (
        select scope_id, list, count as n from list_counts where scope_id = ${account}
        union all select scope_id, list, n from list_count_deltas where scope_id = ${account}) k
      group by scope_id, list`);
    const recount = await rows<{ scope_id: string; list: string; count: string }>(sql`
      select account_id as scope_id, 'jobs' as list, count(*) from jobs where account_id = ${account} group by 1
      union all
      select account_id, 'credit_entries', count(*) from credit_ledger where account_id = ${account} group by 1`);
    const asMap = (list: { scope_id: string; list: string; count: string }[]) =>
      Object.fromEntries(list.map((r) => [`${r.list}:${r.scope_id}`, Number(r.count)]));
    expect(asMap(kept), `seed ${seed}`).toEqual(asMap(recount));

    const counted = asMap(recount);
    expect((await list(dev, key, "/api/developers/jobs?limit=1")).pagination.total).toBe(counted[`jobs:${account}`]);
    expect((await list(dev, key, "/api/credits/history?limit=1")).pagination.total).toBe(
      counted[`credit_entries:${account}`],
    );
    // Deliveries are kept per endpoint by a trigger's deltas: the same before and after the sweeper folds them.
    const { foldListCountDeltas } = await import("@/lib/domain/list-counts");
    const { db } = await import("@/lib/domain/database");
    for (const folded of [false, true]) {
      if (folded) while ((await foldListCountDeltas(await db(), 7)) > 0);
      for (const endpointId of endpoints) {
        const [{ n }] = await rows<{ n: number }>(
          sql`select count(*)::int as n from webhook_deliveries where endpoint_id = ${endpointId}`,
        );
        const deliveries = await list(dev, key, `/api/developers/webhooks/${endpointId}/deliveries?limit=1`);
        expect(deliveries.pagination, `seed ${seed}, folded ${folded}`).toMatchObject({
          total: n,
          totalIsLowerBound: false,
        });
      }
    }
  });

  it("of top-ups follow every path that sets or clears their developer: insert, claim, deletion", async () => {
    const seed = Date.now();
    const random = randomFrom(seed);
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const key = await dev.createApiKey();
    const account = await accountIdOf(dev);
    const { foldListCountDeltas } = await import("@/lib/domain/list-counts");
    const { db } = await import("@/lib/domain/database");
    const payer = `0x${seed.toString(16).padStart(40, "0")}`;
    for (let step = 0; step < 30; step++) {
      const r = random();
      const hash = `0x${step.toString(16).padStart(8, "0")}${seed.toString(16).padStart(56, "0")}`;
      if (r < 0.4) {
        // A payment recorded for the developer, or (unattributed) for nobody yet.
        const owner = random() < 0.7 ? account : null;
        await rows(sql`insert into top_ups (chain_id, tx_hash, account_id, from_address, status, required_confirmations)
          values (31337, ${hash}, ${owner}::uuid, ${payer}, 'submitted', 1)`);
      } else if (r < 0.6) {
        // Claims: every unattributed payment of the payer at once (one statement, several rows).
        await rows(
          sql`update top_ups set account_id = ${account} where from_address = ${payer} and account_id is null`,
        );
      } else if (r < 0.7) {
        // An update that leaves the developer as it was moves nothing.
        await rows(sql`update top_ups set confirmations = confirmations + 1 where from_address = ${payer}`);
      } else if (r < 0.8) {
        await rows(sql`delete from top_ups where id = (select id from top_ups where from_address = ${payer} limit 1)`);
      } else {
        await foldListCountDeltas(await db(), 3);
      }
      const [{ n }] = await rows<{ n: number }>(
        sql`select count(*)::int as n from top_ups where account_id = ${account}`,
      );
      const listed = await list(dev, key, "/api/credits/top-ups?limit=1");
      expect(listed.pagination, `seed ${seed}, step ${step}`).toMatchObject({ total: n, totalIsLowerBound: false });
    }
  });
});

describe("a filtered list", () => {
  it(`counts up to the cap and no further (total a lower bound), with hasMore exact to the last page`, async () => {
    const { limits } = await import("@/lib/limits");
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const key = await dev.createApiKey();
    const account = await accountIdOf(dev);
    const many = limits.listCountCap + 30;
    // Failed jobs seeded by SQL (the cap is a database matter; the API would take minutes for 10 000 jobs).
    await rows(sql`
      insert into jobs (account_id, service_id, status, input, credit_cost, max_attempts, timeout_ms, created_at)
      select ${account}, 'token-count', 'failed', '{}'::jsonb, 1, 1, 60000, now() - make_interval(secs => i)
      from generate_series(1, ${many}) i`);

    const first = await list(dev, key, "/api/developers/jobs?status=failed&limit=100");
    expect(first.pagination).toMatchObject({
      total: limits.listCountCap,
      totalIsLowerBound: true,
      totalPages: limits.listCountCap / 100,
      hasMore: true,
    });
    // Deep in the list, past the cap: the row 50 from the end, as a cursor (what a walk would have reached).
    const [deep] = await rows<{ at: string; id: string }>(
      sql`select (extract(epoch from created_at) * 1000)::bigint as at, id from jobs
          where account_id = ${account} order by created_at desc, id desc offset ${many - 51} limit 1`,
    );
    const from = encodeCursor("jobs", [Number(deep.at), deep.id]);
    const { ids, pages } = await walk(dev, key, `/api/developers/jobs?status=failed&limit=30&after=${from}`, jobIdOf);
    expect(ids).toHaveLength(50);
    expect(pages.map((p) => p.pagination.hasMore)).toEqual([true, false]);
    expect(pages.at(-1)?.pagination).toMatchObject({ nextCursor: null, totalIsLowerBound: true });

    // Under the cap the count is exact, and so is hasMore on a page that ends exactly at the last row.
    const few = await list(dev, key, "/api/developers/jobs?status=completed&limit=5");
    expect(few.pagination).toMatchObject({ total: 0, totalIsLowerBound: false, hasMore: false });
    const [tenth] = await rows<{ at: string }>(
      sql`select (extract(epoch from created_at) * 1000)::bigint::text as at from jobs
          where account_id = ${account} order by created_at desc offset 9 limit 1`,
    );
    const dated = `/api/developers/jobs?status=failed&dateFrom=${tenth.at}`;
    const exact = await list(dev, key, `${dated}&limit=10`);
    expect(exact.pagination).toMatchObject({ total: 10, totalIsLowerBound: false, hasMore: false, totalPages: 1 });
    const short = await list(dev, key, `${dated}&limit=9`);
    expect(short.pagination).toMatchObject({ total: 10, hasMore: true });
    const last = await list(dev, key, `${dated}&limit=9&after=${short.pagination.nextCursor}`);
    expect(last.data).toHaveLength(1);
    expect(last.pagination).toMatchObject({ hasMore: false, nextCursor: null });
  });
});
