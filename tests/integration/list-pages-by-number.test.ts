// Pages by number (issue 43): `page` is an offset into a list, answered within the list's first
// limits.listOffsetCap rows (the rows it skips are read from the list's index, building none of them); a page
// starting deeper is a 400 INVALID_REQUEST that points to `after`, the cursor that costs the same at any depth.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { limits } from "@/lib/limits";
import { expectError } from "../support/expect-error";
import { rowsOf } from "../support/engine";
import { submit, waitForStatus } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

interface Listed {
  data: { jobId: string }[];
  pagination: { page: number; total: number; totalPages: number; hasMore: boolean; nextCursor: string | null };
}

const ctx = withDeveloper({ env: { WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" } });
/** Failed jobs seeded by SQL past the bound (the API would take minutes), three to a created_at: ids break ties. */
const many = limits.listOffsetCap + 30;

let accountId: string;
let jobId: string;

beforeAll(async () => {
  jobId = (
    await waitForStatus(ctx.dev, ctx.key, (await submit(ctx.dev, ctx.key, "token-count", { text: "one" })).jobId)
  ).jobId;
  [{ id: accountId }] = await rowsOf<{ id: string }>(
    sql`select id from accounts where lower(wallet_address) = lower(${ctx.dev.address})`,
  );
  await rowsOf(sql`
    insert into jobs (account_id, service_id, status, input, credit_cost, max_attempts, timeout_ms, created_at)
    select ${accountId}::uuid, 'token-count', 'failed', '{}'::jsonb, 1, 1, 60000,
      date_trunc('second', now()) - make_interval(secs => 10 + i / 3)
    from generate_series(1, ${many}::int) i`);
});

async function list(path: string): Promise<Listed> {
  const res = await ctx.dev.withKey(ctx.key, path);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Listed;
}

/** The ids `limit` rows from `offset` in the jobs list's order (newest first, ties by id), counted by SQL. */
async function idsAt(offset: number, limit: number, status?: string) {
  const found = await rowsOf<{ id: string }>(sql`select id from jobs where account_id = ${accountId}
    and (${status ?? null}::text is null or status = ${status ?? null}) order by created_at desc, id desc
    offset ${offset} limit ${limit}`);
  return found.map((r) => r.id);
}

describe("a page by number", () => {
  it("holds the rows at its offset, ties in created_at in the list's order, up to the last page the bound allows", async () => {
    for (const [page, limit] of [
      [2, 1],
      [3, 7],
      [50, 20],
      [limits.listOffsetCap / 20, 20],
      [Math.ceil(limits.listOffsetCap / 30), 30],
    ]) {
      const listed = await list(`/api/developers/jobs?page=${page}&limit=${limit}`);
      expect(
        listed.data.map((j) => j.jobId),
        `page ${page} of ${limit}`,
      ).toEqual(await idsAt((page - 1) * limit, limit));
      expect(listed.pagination).toMatchObject({ page, hasMore: true });
    }
    // A filtered list counted up to the bound: its last page by number, totalPages, is answered; the next is not.
    const capped = await list(`/api/developers/jobs?status=failed&limit=100`);
    expect(capped.pagination.totalPages).toBe(limits.listOffsetCap / 100);
    const last = await list(`/api/developers/jobs?status=failed&limit=100&page=${capped.pagination.totalPages}`);
    expect(last.data.map((j) => j.jobId)).toEqual(await idsAt(limits.listOffsetCap - 100, 100, "failed"));
    const res = await ctx.dev.withKey(
      ctx.key,
      `/api/developers/jobs?status=failed&limit=100&page=${capped.pagination.totalPages + 1}`,
    );
    await expectError(res, 400, "INVALID_REQUEST");
  });

  it("past a list's end, within the bound, is empty", async () => {
    const past = await list(`/api/developers/jobs/${jobId}/telemetry?page=40&limit=10`);
    expect(past).toMatchObject({ data: [], pagination: { page: 40, hasMore: false, nextCursor: null } });
  });

  it("starting past the bound is a 400 naming `page` and pointing to `after`, on every list", async () => {
    const endpoint = (await (
      await ctx.dev.session("/api/developers/webhooks", {
        method: "POST",
        body: JSON.stringify({ url: "http://127.0.0.1:9/hook", events: ["job.completed"] }),
      })
    ).json()) as { endpointId: string };
    const paths = [
      "/api/developers/jobs",
      "/api/credits/history",
      "/api/credits/top-ups",
      `/api/developers/webhooks/${endpoint.endpointId}/deliveries`,
      `/api/developers/jobs/${jobId}/telemetry`,
    ];
    const cap = limits.listOffsetCap;
    for (const path of paths) {
      for (const [page, limit] of [
        [cap / 20 + 1, 20],
        [cap / 100 + 1, 100],
        [cap + 1, 1],
        [1_000_000, 100],
      ]) {
        const error = await expectError(
          await ctx.dev.withKey(ctx.key, `${path}?page=${page}&limit=${limit}`),
          400,
          "INVALID_REQUEST",
        );
        const [issue] = (error.details as { issues: { path: string; message: string }[] }).issues;
        expect(issue.path).toBe("page");
        expect(issue.message).toContain(`page ${Math.ceil(cap / limit)} at most`);
        expect(issue.message).toContain("after=");
      }
      // Just inside the bound, and with a cursor (where `page` only labels the answer), the same pages are answered.
      expect((await ctx.dev.withKey(ctx.key, `${path}?page=${cap / 20}&limit=20`)).status).toBe(200);
    }
    const first = await list("/api/developers/jobs?limit=20");
    const labelled = await list(`/api/developers/jobs?limit=20&page=${cap}&after=${first.pagination.nextCursor}`);
    expect(labelled.pagination.page).toBe(cap);
    expect(labelled.data.map((j) => j.jobId)).toEqual(await idsAt(20, 20));
  });
});
