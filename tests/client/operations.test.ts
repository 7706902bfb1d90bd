// Each operation sends the contract's method, path, query and body, and returns the parsed answer;
// the iterators walk every page.
import { afterEach, describe, expect, it } from "vitest";
import { ExecutionClient, type Pagination } from "@/lib/client/src/index";
import { jobFixture, startFakeApi, type FakeApi, type RecordedRequest, type Reply } from "./fake-api";

let api: FakeApi;
afterEach(() => api?.close());

async function call(
  reply: Reply | ((r: RecordedRequest, n: number) => Reply),
  run: (client: ExecutionClient) => Promise<unknown>,
) {
  api = await startFakeApi(typeof reply === "function" ? reply : () => reply);
  const result = await run(new ExecutionClient({ apiKey: "dev_test", baseUrl: api.baseUrl, maxRetries: 0 }));
  return { result, request: api.requests[0] as RecordedRequest };
}

const pagination = (page: number, totalPages: number): Pagination => ({
  page,
  limit: 2,
  total: totalPages * 2,
  totalPages,
  hasMore: page < totalPages,
  // A server before cursors: the iterators go on by page number.
  totalIsLowerBound: false,
  nextCursor: null,
  prevCursor: null,
});
const page = <T>(data: T[], p: number, of: number) => ({ status: 200, body: { data, pagination: pagination(p, of) } });

describe("operations", () => {
  it("listServices: GET /api/marketplace/services", async () => {
    const { result, request } = await call({ status: 200, body: [{ serviceId: "token-count" }] }, (c) =>
      c.listServices(),
    );
    expect(request).toMatchObject({ method: "GET", url: "/api/marketplace/services", body: "" });
    expect(result).toEqual([{ serviceId: "token-count" }]);
  });

  it("execute: POST /api/marketplace/services/:id/execute with { input } as JSON", async () => {
    const { result, request } = await call({ status: 202, body: jobFixture() }, (c) =>
      c.execute("token count/é", { text: "hi" }),
    );
    expect(request).toMatchObject({
      method: "POST",
      url: "/api/marketplace/services/token%20count%2F%C3%A9/execute",
      body: '{"input":{"text":"hi"}}',
    });
    expect(request.headers["content-type"]).toBe("application/json");
    expect(result).toMatchObject({ jobId: "job_1", workflowRunId: "wfr_1", status: "queued" });
  });

  it("createJob: POST /api/developers/jobs with { type, payload }", async () => {
    const params = { type: "developer_job", payload: { serviceId: "token-count", input: { text: "hi" } } } as const;
    const { request } = await call({ status: 202, body: jobFixture() }, (c) => c.createJob(params));
    expect(request).toMatchObject({ method: "POST", url: "/api/developers/jobs" });
    expect(JSON.parse(request.body)).toEqual(params);
  });

  it("listJobs: filters as query parameters, dates sent as ISO whatever form they are given in", async () => {
    const { request } = await call(page([], 1, 1), (c) =>
      c.listJobs({
        page: 2,
        limit: 5,
        status: "failed",
        serviceId: "token-count",
        dateFrom: 1_735_689_600_000,
        dateTo: new Date("2025-01-31T12:00:00Z"),
      }),
    );
    const url = new URL(request.url, "http://x");
    expect(url.pathname).toBe("/api/developers/jobs");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      page: "2",
      limit: "5",
      status: "failed",
      serviceId: "token-count",
      dateFrom: "2025-01-01T00:00:00.000Z",
      dateTo: "2025-01-31T12:00:00.000Z",
    });
    const { request: second } = await call(page([], 1, 1), (c) =>
      c.listJobs({ dateFrom: "2025-01-01T01:00:00+01:00" }),
    );
    expect(second.url).toBe("/api/developers/jobs?dateFrom=2025-01-01T00%3A00%3A00.000Z");
  });

  it("getJob, getJobLogs, cancelJob: the job's own paths", async () => {
    const { request: get } = await call({ status: 200, body: jobFixture() }, (c) => c.getJob("job_1"));
    expect(get).toMatchObject({ method: "GET", url: "/api/developers/jobs/job_1" });
    const { request: logs, result } = await call({ status: 200, body: [{ sequence: 1, message: "queued" }] }, (c) =>
      c.getJobLogs("job_1"),
    );
    expect(logs).toMatchObject({ method: "GET", url: "/api/developers/jobs/job_1/logs" });
    expect(result).toEqual([{ sequence: 1, message: "queued" }]);
    const { request: cancel } = await call({ status: 200, body: jobFixture({ status: "failed" }) }, (c) =>
      c.cancelJob("job_1"),
    );
    expect(cancel).toMatchObject({ method: "POST", url: "/api/developers/jobs/job_1/cancel", body: "" });
    expect(cancel.headers["idempotency-key"]).toBeTruthy();
  });

  it("listJobLogs: one page when awaited; every line when iterated, following X-Has-More with after = the last sequence", async () => {
    const lines = [1, 2, 3, 4, 5].map((sequence) => ({ sequence, message: `line ${sequence}` }));
    const { result } = await call(
      (r) => {
        const url = new URL(r.url, "http://x");
        const after = Number(url.searchParams.get("after") ?? 0);
        const limit = Number(url.searchParams.get("limit") ?? 1000);
        const body = lines.filter((l) => l.sequence > after).slice(0, limit);
        const hasMore = (body.at(-1)?.sequence ?? after) < lines.length;
        return { status: 200, headers: { "x-has-more": String(hasMore) }, body };
      },
      async (c) => {
        const logs = c.listJobLogs("job/1", { limit: 2 });
        const first = await logs;
        const all: number[] = [];
        for await (const line of logs) all.push(line.sequence);
        const fromThree: number[] = [];
        for await (const line of c.listJobLogs("job/1", { after: 3 })) fromThree.push(line.sequence);
        return { first: first.map((l) => l.sequence), all, fromThree };
      },
    );
    expect(result).toEqual({ first: [1, 2], all: [1, 2, 3, 4, 5], fromThree: [4, 5] });
    expect(api.requests.map((r) => r.url)).toEqual([
      "/api/developers/jobs/job%2F1/logs?limit=2",
      "/api/developers/jobs/job%2F1/logs?after=2&limit=2",
      "/api/developers/jobs/job%2F1/logs?after=4&limit=2",
      "/api/developers/jobs/job%2F1/logs?after=3",
    ]);
  });

  it("listJobLogs stops at a page without X-Has-More: true (a server before pages sent the whole log)", async () => {
    const { result } = await call({ status: 200, body: [{ sequence: 1 }, { sequence: 2 }] }, async (c) => {
      const all: number[] = [];
      for await (const line of c.listJobLogs("job_1")) all.push(line.sequence);
      return all;
    });
    expect(result).toEqual([1, 2]);
    expect(api.requests).toHaveLength(1);
  });

  it("getJobLogs resolves to the whole log, however many pages it takes", async () => {
    const lines = Array.from({ length: 2_500 }, (_, i) => ({ sequence: i + 1, message: `line ${i + 1}` }));
    const { result } = await call(
      (r) => {
        const after = Number(new URL(r.url, "http://x").searchParams.get("after") ?? 0);
        const body = lines.filter((l) => l.sequence > after).slice(0, 1_000);
        return { status: 200, headers: { "x-has-more": String((body.at(-1)?.sequence ?? 0) < lines.length) }, body };
      },
      async (c) => (await c.getJobLogs("job_1")).map((l) => l.sequence),
    );
    expect(result).toEqual(lines.map((l) => l.sequence));
    expect(api.requests).toHaveLength(3);
  });

  it("getJobTelemetry: page and limit", async () => {
    const { request } = await call(page([], 3, 3), (c) => c.getJobTelemetry("job_1", { page: 3, limit: 50 }));
    expect(request.url).toBe("/api/developers/jobs/job_1/telemetry?page=3&limit=50");
  });

  it("getUsageSummary and getMetrics: GET /api/developers/metrics, with and without a period", async () => {
    const { request } = await call({ status: 200, body: {} }, (c) =>
      c.getUsageSummary({ periodStart: "2025-01-01", periodEnd: new Date("2025-02-01T00:00:00Z") }),
    );
    expect(request.url).toBe(
      "/api/developers/metrics?periodStart=2025-01-01T00%3A00%3A00.000Z&periodEnd=2025-02-01T00%3A00%3A00.000Z",
    );
    const { request: metrics } = await call({ status: 200, body: {} }, (c) => c.getMetrics());
    expect(metrics.url).toBe("/api/developers/metrics");
  });

  it("getCreditBalance and getCreditHistory", async () => {
    const { request: balance } = await call({ status: 200, body: { balance: 99, currency: "credits" } }, (c) =>
      c.getCreditBalance(),
    );
    expect(balance.url).toBe("/api/credits/balance");
    const { request: history } = await call(page([], 1, 1), (c) => c.getCreditHistory({ limit: 10 }));
    expect(history.url).toBe("/api/credits/history?limit=10");
  });

  it("topUps.config, topUps.list (every top-up when iterated) and topUps.get with the id as one path segment", async () => {
    const { result: config, request: configRequest } = await call({ status: 200, body: { enabled: false } }, (c) =>
      c.topUps.config(),
    );
    expect(configRequest).toMatchObject({ method: "GET", url: "/api/credits/top-ups/config" });
    expect(config).toEqual({ enabled: false });
    const topUps = ["t1", "t2", "t3"].map((topUpId) => ({ topUpId }));
    const { result: all } = await call(
      (r) => {
        const p = Number(new URL(r.url, "http://x").searchParams.get("page") ?? 1);
        return page(topUps.slice((p - 1) * 2, p * 2), p, 2);
      },
      async (c) => {
        const seen: string[] = [];
        for await (const topUp of c.topUps.list({ limit: 2 })) seen.push(topUp.topUpId);
        return seen;
      },
    );
    expect(all).toEqual(["t1", "t2", "t3"]);
    const { request: one } = await call({ status: 200, body: { topUpId: "a/b" } }, (c) => c.topUps.get("a/b"));
    expect(one.url).toBe("/api/credits/top-ups/a%2Fb");
  });

  it("webhooks.deliveries: list (every delivery when iterated), retrieve and redeliver, each id one path segment", async () => {
    const deliveries = ["d1", "d2", "d3"].map((deliveryId) => ({ deliveryId }));
    const { result: all, request: first } = await call(
      (r) => {
        const p = Number(new URL(r.url, "http://x").searchParams.get("page") ?? 1);
        return page(deliveries.slice((p - 1) * 2, p * 2), p, 2);
      },
      async (c) => {
        const seen: string[] = [];
        for await (const d of c.webhooks.deliveries.list("e/1", { limit: 2 })) seen.push(d.deliveryId);
        return seen;
      },
    );
    expect(first).toMatchObject({ method: "GET", url: "/api/developers/webhooks/e%2F1/deliveries?limit=2&page=1" });
    expect(all).toEqual(["d1", "d2", "d3"]);
    const detail = { deliveryId: "d/1", request: { headers: {}, body: "{}" }, attempts: [] };
    const { result, request: one } = await call({ status: 200, body: detail }, (c) =>
      c.webhooks.deliveries.retrieve("e/1", "d/1"),
    );
    expect(one).toMatchObject({ method: "GET", url: "/api/developers/webhooks/e%2F1/deliveries/d%2F1" });
    expect(result).toEqual(detail);
    const { request: again } = await call({ status: 202, body: { deliveryId: "d/1" } }, (c) =>
      c.webhooks.deliveries.redeliver("e/1", "d/1"),
    );
    expect(again).toMatchObject({ method: "POST", url: "/api/developers/webhooks/e%2F1/deliveries/d%2F1/redeliver" });
  });

  it("a list is one page when awaited and every item when iterated, and an awaited first page is not fetched again", async () => {
    const entries = ["a", "b", "c"].map((entryId) => ({ entryId }));
    const { result } = await call(
      (r) => {
        const p = Number(new URL(r.url, "http://x").searchParams.get("page"));
        return page(entries.slice((p - 1) * 2, p * 2), p, 2);
      },
      async (c) => {
        const list = c.getCreditHistory({ page: 1, limit: 2 });
        const first = await list;
        const all: string[] = [];
        for await (const entry of list) all.push(entry.entryId);
        return { first: first.data.map((e) => e.entryId), all };
      },
    );
    expect(result).toEqual({ first: ["a", "b"], all: ["a", "b", "c"] });
    expect(api.requests.map((r) => r.url)).toEqual([
      "/api/credits/history?page=1&limit=2",
      "/api/credits/history?page=2&limit=2",
    ]);
  });

  it("iterateJobs walks every page with the same filters and stops when hasMore is false", async () => {
    const jobs = ["a", "b", "c", "d", "e"].map((jobId) => jobFixture({ jobId }));
    const { result } = await call(
      (r) => {
        const p = Number(new URL(r.url, "http://x").searchParams.get("page"));
        return page(jobs.slice((p - 1) * 2, p * 2), p, 3);
      },
      async (c) => {
        const seen: string[] = [];
        for await (const job of c.iterateJobs({ limit: 2, status: "completed" })) seen.push(job.jobId);
        return seen;
      },
    );
    expect(result).toEqual(["a", "b", "c", "d", "e"]);
    expect(api.requests.map((r) => r.url)).toEqual(
      [1, 2, 3].map((p) => `/api/developers/jobs?limit=2&status=completed&page=${p}`),
    );
  });

  it("iterating a list reads each next page after the last one's nextCursor, never by page number", async () => {
    const jobs = ["a", "b", "c"].map((jobId) => jobFixture({ jobId }));
    const at = { "": 0, "cur-b": 2 } as Record<string, number>;
    const { result } = await call(
      (r) => {
        const start = at[new URL(r.url, "http://x").searchParams.get("after") ?? ""];
        const data = jobs.slice(start, start + 2);
        const hasMore = start + 2 < jobs.length;
        return {
          status: 200,
          body: { data, pagination: { ...pagination(1, 2), hasMore, nextCursor: hasMore ? "cur-b" : null } },
        };
      },
      async (c) => {
        const seen: string[] = [];
        for await (const job of c.listJobs({ limit: 2, status: "completed" })) seen.push(job.jobId);
        return seen;
      },
    );
    expect(result).toEqual(["a", "b", "c"]);
    expect(api.requests.map((r) => r.url)).toEqual([
      "/api/developers/jobs?limit=2&status=completed&page=1",
      "/api/developers/jobs?limit=2&status=completed&after=cur-b",
    ]);
  });

  it("iterateJobs skips a job a shifting list shows twice", async () => {
    // A new job arrived between the two page reads and pushed "b" onto page 2.
    const pages = [
      ["a", "b"],
      ["b", "c"],
    ];
    const { result } = await call(
      (_, n) =>
        page(
          (pages[n] ?? []).map((jobId) => jobFixture({ jobId })),
          n + 1,
          2,
        ),
      async (c) => {
        const seen: string[] = [];
        for await (const job of c.iterateJobs({ limit: 2 })) seen.push(job.jobId);
        return seen;
      },
    );
    expect(result).toEqual(["a", "b", "c"]);
  });

  it("iterateJobTelemetry and iterateCreditHistory walk every page; breaking early stops fetching", async () => {
    const events = [1, 2, 3].map((sequence) => ({ eventId: `ev_${sequence}`, sequence }));
    const { result } = await call(
      (_, n) => page(events.slice(n * 2, n * 2 + 2), n + 1, 2),
      async (c) => {
        const sequences: number[] = [];
        for await (const event of c.iterateJobTelemetry("job_1", { limit: 2 })) sequences.push(event.sequence);
        return sequences;
      },
    );
    expect(result).toEqual([1, 2, 3]);

    await call(
      (_, n) => page([{ entryId: `e${n}a` }, { entryId: `e${n}b` }], n + 1, 5),
      async (c) => {
        for await (const entry of c.iterateCreditHistory({ limit: 2 })) if (entry.entryId === "e0a") break;
      },
    );
    expect(api.requests).toHaveLength(1);
  });
});
