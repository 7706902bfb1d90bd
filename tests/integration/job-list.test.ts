// Reading jobs back (CONTRACT §5): the paginated, filterable list and the full ExecutionJob of one job.
import { beforeAll, describe, expect, it } from "vitest";
import { signUpDeveloper } from "../support/developer";
import { executionJobFields, submit, waitForStatus, type JobView } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";
import { expectError, isoTime } from "../support/expect-error";

interface JobList {
  data: JobView[];
  pagination: { page: number; limit: number; total: number; totalPages: number; hasMore: boolean };
}

/** Blank text passes submission, and text-summarize refuses it as EMPTY_TEXT, a non-retryable failure. */
const blankText = "   ";

/** Every job of `dev`, oldest first, as it was once final. */
let jobs: JobView[];

const ctx = withDeveloper();

beforeAll(async () => {
  // One at a time, so creation order is submission order.
  const plan: [string, Record<string, unknown>][] = [
    ...Array.from({ length: 14 }, (_, i): [string, Record<string, unknown>] => [
      "token-count",
      { text: `Job number ${i + 1} counts its tokens.` },
    ]),
    ...Array.from({ length: 6 }, (_, i): [string, Record<string, unknown>] => [
      "language-detect",
      { text: `This sentence number ${i + 1} is plainly written in English.` },
    ]),
    ...Array.from({ length: 3 }, (): [string, Record<string, unknown>] => ["text-summarize", { text: blankText }]),
    ["text-sentiment", { text: "What a wonderful, delightful day." }],
  ];
  const submitted: JobView[] = [];
  for (const [serviceId, input] of plan) submitted.push(await submit(ctx.dev, ctx.key, serviceId, input));
  jobs = await Promise.all(submitted.map((job) => waitForStatus(ctx.dev, ctx.key, job.jobId)));
});

async function listJobs(
  query = "",
  fetchWith: (path: string) => Promise<Response> = (path) => ctx.dev.withKey(ctx.key, path),
) {
  const res = await fetchWith(`/api/developers/jobs${query ? `?${query}` : ""}`);
  return { status: res.status, body: (await res.json()) as JobList };
}

const idsOf = (list: { jobId: string }[]) => list.map((j) => j.jobId);
const newestFirst = (list: JobView[]) => [...list].reverse();
const createdMs = (job: JobView) => Date.parse(String(job.createdAt));

describe("GET /api/developers/jobs lists a developer's jobs", () => {
  it("shows the newest 20 on page 1 by default, with the totals", async () => {
    const { status, body } = await listJobs();
    expect(status).toBe(200);
    expect(idsOf(body.data)).toEqual(idsOf(newestFirst(jobs)).slice(0, 20));
    expect(body.pagination).toMatchObject({ page: 1, limit: 20, total: 24, totalPages: 2, hasMore: true });
  });

  it("pages through every job exactly once, newest first", async () => {
    const pages: JobList[] = [];
    for (let page = 1; page <= 5; page++) pages.push((await listJobs(`page=${page}&limit=5`)).body);

    expect(idsOf(pages.flatMap((p) => p.data))).toEqual(idsOf(newestFirst(jobs)));
    expect(pages.map((p) => p.data.length)).toEqual([5, 5, 5, 5, 4]);
    expect(pages.map((p) => p.pagination.hasMore)).toEqual([true, true, true, true, false]);
    for (const [i, p] of pages.entries())
      expect(p.pagination).toMatchObject({ page: i + 1, limit: 5, total: 24, totalPages: 5 });
  });

  it("answers a page past the end with no jobs and the same totals", async () => {
    const { status, body } = await listJobs("page=6&limit=5");
    expect(status).toBe(200);
    expect(body).toMatchObject({
      data: [],
      pagination: { page: 6, limit: 5, total: 24, totalPages: 5, hasMore: false },
    });
  });

  it("accepts a limit of 1 and of 100", async () => {
    const one = await listJobs("limit=1");
    expect(idsOf(one.body.data)).toEqual([jobs[jobs.length - 1].jobId]);
    expect(one.body.pagination).toMatchObject({ page: 1, limit: 1, total: 24, totalPages: 24, hasMore: true });

    const hundred = await listJobs("limit=100");
    expect(hundred.body.data).toHaveLength(24);
    expect(hundred.body.pagination).toMatchObject({ page: 1, limit: 100, total: 24, totalPages: 1, hasMore: false });
  });

  it.each(["limit=0", "limit=101", "limit=x", "limit=2.5", "page=0", "page=-1", "page=x"])(
    "refuses %s with 400 INVALID_REQUEST",
    async (query) => {
      await expectError(await ctx.dev.withKey(ctx.key, `/api/developers/jobs?${query}`), 400, "INVALID_REQUEST");
    },
  );
});

describe("filters of the job list", () => {
  it("by status", async () => {
    const failed = await listJobs("status=failed");
    expect(idsOf(failed.body.data)).toEqual(idsOf(newestFirst(jobs.filter((j) => j.serviceId === "text-summarize"))));
    expect(failed.body.pagination).toMatchObject({ total: 3, totalPages: 1, hasMore: false });

    const completed = await listJobs("status=completed&limit=100");
    expect(idsOf(completed.body.data)).toEqual(idsOf(newestFirst(jobs.filter((j) => j.status === "completed"))));
    expect(completed.body.pagination.total).toBe(21);

    const queued = await listJobs("status=queued");
    expect(queued.body.data).toEqual([]);
    expect(queued.body.pagination).toMatchObject({ page: 1, limit: 20, total: 0, hasMore: false });
  });

  it("refuses a status that does not exist with 400 INVALID_REQUEST", async () => {
    await expectError(await ctx.dev.withKey(ctx.key, "/api/developers/jobs?status=done"), 400, "INVALID_REQUEST");
  });

  it("by serviceId, and an unknown service simply matches nothing", async () => {
    const detections = await listJobs("serviceId=language-detect");
    expect(idsOf(detections.body.data)).toEqual(
      idsOf(newestFirst(jobs.filter((j) => j.serviceId === "language-detect"))),
    );
    expect(detections.body.pagination.total).toBe(6);

    const none = await listJobs("serviceId=no-such-service");
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);
  });

  it("by creation time with ISO-8601 bounds, inclusive at both ends", async () => {
    const from = jobs[5].createdAt as string;
    const to = jobs[12].createdAt as string;
    const { body } = await listJobs(`dateFrom=${encodeURIComponent(from)}&dateTo=${encodeURIComponent(to)}&limit=100`);
    const expected = jobs.filter((j) => createdMs(j) >= Date.parse(from) && createdMs(j) <= Date.parse(to));
    expect(idsOf(expected)).toEqual(expect.arrayContaining([jobs[5].jobId, jobs[12].jobId]));
    expect(idsOf(body.data)).toEqual(idsOf(newestFirst(expected)));
    expect(body.pagination.total).toBe(expected.length);
  });

  it("by creation time with epoch-millisecond bounds, inclusive at both ends", async () => {
    const from = createdMs(jobs[3]);
    const to = createdMs(jobs[20]);
    const { body } = await listJobs(`dateFrom=${from}&dateTo=${to}&limit=100`);
    const expected = jobs.filter((j) => createdMs(j) >= from && createdMs(j) <= to);
    expect(idsOf(expected)).toEqual(expect.arrayContaining([jobs[3].jobId, jobs[20].jobId]));
    expect(idsOf(body.data)).toEqual(idsOf(newestFirst(expected)));
  });

  it("finds a job by its own createdAt as both bounds", async () => {
    const job = jobs[8];
    const iso = await listJobs(
      `dateFrom=${encodeURIComponent(String(job.createdAt))}&dateTo=${encodeURIComponent(String(job.createdAt))}`,
    );
    expect(idsOf(iso.body.data)).toContain(job.jobId);
    const epoch = await listJobs(`dateFrom=${createdMs(job)}&dateTo=${createdMs(job)}`);
    expect(idsOf(epoch.body.data)).toContain(job.jobId);
  });

  it("one bound at a time: only dateFrom, only dateTo", async () => {
    const pivot = jobs[10];
    const after = await listJobs(`dateFrom=${encodeURIComponent(String(pivot.createdAt))}&limit=100`);
    expect(idsOf(after.body.data)).toEqual(idsOf(newestFirst(jobs.filter((j) => createdMs(j) >= createdMs(pivot)))));
    const before = await listJobs(`dateTo=${createdMs(pivot)}&limit=100`);
    expect(idsOf(before.body.data)).toEqual(idsOf(newestFirst(jobs.filter((j) => createdMs(j) <= createdMs(pivot)))));
  });

  it("reads each form the OpenAPI document declares: a date-time with any offset, a date (its start, UTC), epoch ms", async () => {
    const pivot = jobs[10];
    const atOffset = new Date(createdMs(pivot) + 2 * 3600_000).toISOString().replace("Z", "+02:00");
    const day = String(pivot.createdAt).slice(0, 10);
    const forms = [atOffset, atOffset.replace("T", "t"), String(createdMs(pivot))];
    for (const form of forms) {
      const { body } = await listJobs(`dateFrom=${encodeURIComponent(form)}&dateTo=${encodeURIComponent(form)}`);
      expect(idsOf(body.data), form).toContain(pivot.jobId);
    }
    const { body } = await listJobs(`dateFrom=${day}&limit=100`);
    expect(body.pagination.total).toBe(jobs.filter((j) => createdMs(j) >= Date.parse(`${day}T00:00:00Z`)).length);
  });

  it.each([
    "dateFrom=yesterday",
    "dateTo=2024-13-45T00:00:00Z",
    "dateFrom=",
    "dateTo=12abc",
    // Forms JavaScript's Date reads but no declared format describes: a time without its offset (read in the
    // server's own zone), prose, a day the calendar lacks (rolled over into March).
    "dateFrom=2026-11-01T10:00:00",
    "dateFrom=Nov%201%202026",
    "dateTo=2024-02-30",
    "dateTo=2024-02-30T00:00:00Z",
  ])("refuses a time it cannot read (%s) with 400 INVALID_REQUEST", async (query) => {
    await expectError(await ctx.dev.withKey(ctx.key, `/api/developers/jobs?${query}`), 400, "INVALID_REQUEST");
  });

  it("combines status, service, time and pagination", async () => {
    const from = jobs[4].createdAt as string;
    const to = createdMs(jobs[22]);
    const expected = newestFirst(
      jobs.filter(
        (j) =>
          j.status === "completed" &&
          j.serviceId === "token-count" &&
          createdMs(j) >= Date.parse(from) &&
          createdMs(j) <= to,
      ),
    );
    const query = `status=completed&serviceId=token-count&dateFrom=${encodeURIComponent(from)}&dateTo=${to}&limit=4`;
    const first = await listJobs(`${query}&page=1`);
    const second = await listJobs(`${query}&page=2`);
    const rest = await listJobs(`${query}&page=3`);
    expect(idsOf([...first.body.data, ...second.body.data, ...rest.body.data])).toEqual(idsOf(expected));
    expect(first.body.pagination).toMatchObject({
      page: 1,
      limit: 4,
      total: expected.length,
      totalPages: Math.ceil(expected.length / 4),
      hasMore: true,
    });
  });
});

describe("who may list jobs", () => {
  it("the dashboard, with the wallet session cookie, sees the same list as an API key", async () => {
    const withSession = await listJobs("limit=100", (path) => ctx.dev.session(path));
    const withKey = await listJobs("limit=100");
    expect(withSession.status).toBe(200);
    expect(withSession.body).toEqual(withKey.body);
  });

  it("an API key with only jobs:read", async () => {
    const readOnly = await ctx.dev.createApiKey(["jobs:read"]);
    const { status, body } = await listJobs("", (path) => ctx.dev.withKey(readOnly, path));
    expect(status).toBe(200);
    expect(body.pagination.total).toBe(24);
  });

  it("not an API key without jobs:read (403 naming the scope), nor nobody (401)", async () => {
    const executeOnly = await ctx.dev.createApiKey(["services:execute"]);
    const error = await expectError(
      await ctx.dev.withKey(executeOnly, "/api/developers/jobs"),
      403,
      "INSUFFICIENT_SCOPE",
    );
    expect(error.details).toEqual({ requiredScope: "jobs:read" });
    expect((await fetch(`${ctx.server.baseUrl}/api/developers/jobs`)).status).toBe(401);
  });

  it("another developer sees none of these jobs, neither listed nor by id", async () => {
    const other = await signUpDeveloper(ctx.server.baseUrl, { name: "Grace Other" });
    const otherKey = await other.createApiKey();
    const { body } = await listJobs("", (path) => other.withKey(otherKey, path));
    expect(body.data).toEqual([]);
    expect(body.pagination).toMatchObject({ total: 0, hasMore: false });
    await expectError(await other.withKey(otherKey, `/api/developers/jobs/${jobs[0].jobId}`), 404, "JOB_NOT_FOUND");
  });
});

describe("GET /api/developers/jobs/:jobId returns the full ExecutionJob", () => {
  const fields = [...executionJobFields].sort();

  async function readJob(
    jobId: string,
    fetchWith: (path: string) => Promise<Response> = (path) => ctx.dev.withKey(ctx.key, path),
  ) {
    const res = await fetchWith(`/api/developers/jobs/${jobId}`);
    expect(res.status).toBe(200);
    return (await res.json()) as JobView & Record<string, unknown>;
  }

  function expectTimesInOrder(job: JobView & Record<string, unknown>) {
    for (const field of ["createdAt", "updatedAt", "startedAt", "completedAt"]) expect(job[field]).toEqual(isoTime);
    expect(job.assignedNode?.assignedAt).toEqual(isoTime);
    const t = (v: unknown) => Date.parse(String(v));
    expect(t(job.createdAt)).toBeLessThanOrEqual(t(job.assignedNode?.assignedAt));
    expect(t(job.assignedNode?.assignedAt)).toBeLessThanOrEqual(t(job.startedAt));
    expect(t(job.startedAt)).toBeLessThanOrEqual(t(job.completedAt));
    expect(t(job.completedAt)).toBeLessThanOrEqual(t(job.updatedAt));
  }

  it("of a completed job: every field, a result and no error", async () => {
    const created = jobs[0];
    const job = await readJob(created.jobId);
    expect(Object.keys(job).sort()).toEqual(fields);
    expect(job).toMatchObject({
      jobId: created.jobId,
      workflowRunId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      serviceId: "token-count",
      status: "completed",
      progress: 100,
      input: { text: "Job number 1 counts its tokens." },
      creditCost: 1,
      attempt: 1,
      maxAttempts: 3,
      assignedNode: {
        nodeId: expect.any(String),
        name: expect.any(String),
        region: "embedded",
        assignedAt: expect.any(String),
      },
      result: { summary: expect.any(String), output: expect.objectContaining({ tokens: expect.any(Number) }) },
      error: null,
    });
    expect(Object.keys(job.assignedNode ?? {}).sort()).toEqual(["assignedAt", "name", "nodeId", "region"]);
    expect(Object.keys(job.result ?? {}).sort()).toEqual(["output", "summary"]);
    expectTimesInOrder(job);
  });

  it("of a failed job: every field, an error and no result", async () => {
    const created = jobs.find((j) => j.serviceId === "text-summarize") as JobView;
    const job = await readJob(created.jobId);
    expect(Object.keys(job).sort()).toEqual(fields);
    expect(job).toMatchObject({
      serviceId: "text-summarize",
      status: "failed",
      input: { text: blankText },
      creditCost: 2,
      attempt: 1,
      result: null,
      error: { category: "runtime", code: "EMPTY_TEXT", message: expect.any(String) },
    });
    expect(Object.keys(job.error ?? {}).sort()).toEqual(["category", "code", "message"]);
    expectTimesInOrder(job);
  });

  it("is the same object the list shows (short inputs are not cut), with the key or with the session", async () => {
    const { body } = await listJobs("limit=100");
    for (const { inputTruncated, ...listed } of body.data.slice(0, 5)) {
      expect(inputTruncated).toBe(false);
      expect(await readJob(listed.jobId)).toEqual(listed);
      expect(await readJob(listed.jobId, (path) => ctx.dev.session(path))).toEqual(listed);
    }
  });

  it.each(["not-a-uuid", "123", "00000000-0000-4000-8000-000000000000", "' or 1=1 --"])(
    "answers 404 JOB_NOT_FOUND for %s",
    async (jobId) => {
      await expectError(
        await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${encodeURIComponent(jobId)}`),
        404,
        "JOB_NOT_FOUND",
      );
    },
  );
});
