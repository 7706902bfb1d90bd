// A job's record (CONTRACT §5): telemetry pages, the shape of every event, logs oldest first, and a final
// job that never changes afterwards.
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { isUniqueViolation } from "@/lib/domain/idempotency";
import { rowsOf } from "../support/engine";
import { submit, waitForStatus, type JobView } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";
import { expectError, isoTime } from "../support/expect-error";

interface TelemetryEvent {
  eventId: string;
  jobId: string;
  sequence: number;
  type: string;
  timestamp: string;
  attempt: number;
  nodeId?: string;
  data?: Record<string, unknown>;
}
interface TelemetryPage {
  data: TelemetryEvent[];
  pagination: { page: number; limit: number; total: number; totalPages: number; hasMore: boolean };
}
interface LogLine {
  sequence: number;
  timestamp: string;
  level: string;
  source: string;
  message: string;
  nodeId?: string;
}

const platformEvents = ["JOB_CREATED", "WORKFLOW_INITIALIZED", "ROUTING_STARTED"];
const nodeEvents = [
  "NODE_ASSIGNED",
  "EXECUTION_STARTED",
  "PROVIDER_REQUEST",
  "RESULT_STORED",
  "EXECUTION_COMPLETED",
  "EXECUTION_FAILED",
];

const article = [
  "Solar panels turn sunlight into electricity without moving parts.",
  "Their price has fallen sharply over the last decade, and solar power is now among the cheapest sources of electricity.",
  "Storage remains the hard part, because the sun does not shine at night.",
  "Batteries, pumped hydro and better grids help to move solar electricity to the hours when it is needed.",
].join(" ");

let completed: JobView;
let failed: JobView;

const ctx = withDeveloper();

beforeAll(async () => {
  const summary = await submit(ctx.dev, ctx.key, "text-summarize", { text: article, sentences: 2 });
  // Blank text passes submission; the provider refuses it (EMPTY_TEXT), a non-retryable failure on the node.
  const broken = await submit(ctx.dev, ctx.key, "text-summarize", { text: "   " });
  [completed, failed] = await Promise.all([
    waitForStatus(ctx.dev, ctx.key, summary.jobId),
    waitForStatus(ctx.dev, ctx.key, broken.jobId),
  ]);
});

async function telemetryPage(
  jobId: string,
  query = "",
  fetchWith: (path: string) => Promise<Response> = (path) => ctx.dev.withKey(ctx.key, path),
) {
  const res = await fetchWith(`/api/developers/jobs/${jobId}/telemetry${query ? `?${query}` : ""}`);
  expect(res.status).toBe(200);
  return (await res.json()) as TelemetryPage;
}

async function allTelemetry(jobId: string) {
  return (await telemetryPage(jobId, "limit=100")).data;
}

async function logsOf(
  jobId: string,
  fetchWith: (path: string) => Promise<Response> = (path) => ctx.dev.withKey(ctx.key, path),
) {
  const res = await fetchWith(`/api/developers/jobs/${jobId}/logs`);
  expect(res.status).toBe(200);
  return (await res.json()) as LogLine[];
}

async function readJob(jobId: string) {
  const res = await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${jobId}`);
  expect(res.status).toBe(200);
  return (await res.json()) as JobView;
}

const isNonDecreasing = (values: number[]) => values.every((v, i) => i === 0 || v >= values[i - 1]);

describe("GET /api/developers/jobs/:jobId/telemetry", () => {
  it("pages of a completed job's events concatenate to sequences 1..n without gaps", async () => {
    const everything = await telemetryPage(completed.jobId, "limit=100");
    const n = everything.data.length;
    expect(n).toBeGreaterThanOrEqual(8);
    expect(everything.data.map((e) => e.sequence)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(everything.pagination).toMatchObject({ page: 1, limit: 100, total: n, totalPages: 1, hasMore: false });

    const totalPages = Math.ceil(n / 3);
    const pages: TelemetryPage[] = [];
    for (let page = 1; page <= totalPages; page++)
      pages.push(await telemetryPage(completed.jobId, `page=${page}&limit=3`));
    expect(pages.flatMap((p) => p.data)).toEqual(everything.data);
    for (const [i, p] of pages.entries()) {
      expect(p.pagination).toMatchObject({ page: i + 1, limit: 3, total: n, totalPages, hasMore: i + 1 < totalPages });
    }
    expect(pages.slice(0, -1).every((p) => p.data.length === 3)).toBe(true);
  });

  it("uses page 1 and 20 events per page by default, and answers an empty page past the end", async () => {
    const first = await telemetryPage(completed.jobId);
    expect(first.pagination).toMatchObject({ page: 1, limit: 20 });
    const beyond = await telemetryPage(completed.jobId, "page=9&limit=5");
    expect(beyond.data).toEqual([]);
    expect(beyond.pagination).toMatchObject({ page: 9, limit: 5, total: first.pagination.total, hasMore: false });
  });

  it("gives every event its id, job, sequence, type, timestamp and attempt; node events name the node", async () => {
    const events = await allTelemetry(completed.jobId);
    const nodeId = completed.assignedNode?.nodeId;
    expect(nodeId).toEqual(expect.any(String));
    for (const event of events) {
      expect(event).toMatchObject({
        eventId: expect.any(String),
        jobId: completed.jobId,
        sequence: expect.any(Number),
        type: expect.any(String),
        timestamp: isoTime,
        attempt: expect.any(Number),
      });
      expect(
        Object.keys(event).every((k) =>
          ["eventId", "jobId", "sequence", "type", "timestamp", "attempt", "nodeId", "data"].includes(k),
        ),
      ).toBe(true);
      if (nodeEvents.includes(event.type)) expect(event.nodeId).toBe(nodeId);
      if (platformEvents.includes(event.type)) expect(event.nodeId).toBeUndefined();
    }
    expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    expect(isNonDecreasing(events.map((e) => Date.parse(e.timestamp)))).toBe(true);
    // Each event carries the attempt it belongs to: none yet before the first assignment, then the first.
    expect(completed.attempt).toBe(1);
    for (const event of events) expect(event.attempt).toBe(platformEvents.includes(event.type) ? 0 : 1);
    expect(events.find((e) => e.type === "PROVIDER_REQUEST")?.data).toMatchObject({ provider: "wink-nlp" });
  });

  it("records a non-retryable failure on the node, then the job's final failure", async () => {
    const events = await allTelemetry(failed.jobId);
    const types = events.map((e) => e.type);
    expect(types).toEqual([
      "JOB_CREATED",
      "WORKFLOW_INITIALIZED",
      "ROUTING_STARTED",
      "NODE_ASSIGNED",
      "EXECUTION_STARTED",
      "EXECUTION_FAILED",
      "JOB_FAILED",
    ]);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    const failure = events.find((e) => e.type === "EXECUTION_FAILED");
    expect(failure).toMatchObject({
      nodeId: failed.assignedNode?.nodeId,
      data: expect.objectContaining({ code: "EMPTY_TEXT", retryable: false }),
    });
  });

  it.each(["limit=0", "limit=101", "page=0", "page=abc"])("refuses %s with 400 INVALID_REQUEST", async (query) => {
    await expectError(
      await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${completed.jobId}/telemetry?${query}`),
      400,
      "INVALID_REQUEST",
    );
  });

  it("answers 404 JOB_NOT_FOUND for an unknown job", async () => {
    await expectError(
      await ctx.dev.withKey(ctx.key, "/api/developers/jobs/00000000-0000-4000-8000-000000000000/telemetry"),
      404,
      "JOB_NOT_FOUND",
    );
    await expectError(await ctx.dev.withKey(ctx.key, "/api/developers/jobs/nope/telemetry"), 404, "JOB_NOT_FOUND");
  });

  it("needs telemetry:read from a key; the wallet session reads it too", async () => {
    const jobsOnly = await ctx.dev.createApiKey(["jobs:read"]);
    const error = await expectError(
      await ctx.dev.withKey(jobsOnly, `/api/developers/jobs/${completed.jobId}/telemetry`),
      403,
      "INSUFFICIENT_SCOPE",
    );
    expect(error.details).toEqual({ requiredScope: "telemetry:read" });

    const telemetryOnly = await ctx.dev.createApiKey(["telemetry:read"]);
    const withScope = await telemetryPage(completed.jobId, "limit=100", (path) => ctx.dev.withKey(telemetryOnly, path));
    const withSession = await telemetryPage(completed.jobId, "limit=100", (path) => ctx.dev.session(path));
    expect(withScope.data).toEqual(await allTelemetry(completed.jobId));
    expect(withSession.data).toEqual(withScope.data);
  });
});

describe("GET /api/developers/jobs/:jobId/logs", () => {
  it("lists a completed job's log lines oldest first, each with sequence, timestamp, level, source and message", async () => {
    const logs = await logsOf(completed.jobId);
    expect(logs.length).toBeGreaterThanOrEqual(2);
    expect(logs.map((l) => l.sequence)).toEqual(logs.map((_, i) => i + 1));
    expect(isNonDecreasing(logs.map((l) => Date.parse(l.timestamp)))).toBe(true);
    for (const line of logs) {
      expect(line).toMatchObject({
        sequence: expect.any(Number),
        timestamp: isoTime,
        level: expect.stringMatching(/^(debug|info|warn|error)$/),
        source: expect.stringMatching(/^(platform|node|provider)$/),
        message: expect.any(String),
      });
      expect(line.message.length).toBeGreaterThan(0);
      expect(
        Object.keys(line).every((k) => ["sequence", "timestamp", "level", "source", "message", "nodeId"].includes(k)),
      ).toBe(true);
      if (line.nodeId !== undefined) expect(line.nodeId).toBe(completed.assignedNode?.nodeId);
    }
    expect(logs[0]).toMatchObject({ source: "platform", message: expect.stringContaining("text-summarize") });
    expect(logs.map((l) => l.source)).toContain("node");
  });

  it("tells why a failed job failed, at error level", async () => {
    const logs = await logsOf(failed.jobId);
    expect(logs).toContainEqual(
      expect.objectContaining({ level: "error", message: expect.stringContaining("EMPTY_TEXT") }),
    );
  });

  it("needs jobs:read from a key; the wallet session reads them too", async () => {
    const telemetryOnly = await ctx.dev.createApiKey(["telemetry:read"]);
    const error = await expectError(
      await ctx.dev.withKey(telemetryOnly, `/api/developers/jobs/${completed.jobId}/logs`),
      403,
      "INSUFFICIENT_SCOPE",
    );
    expect(error.details).toEqual({ requiredScope: "jobs:read" });
    const jobsOnly = await ctx.dev.createApiKey(["jobs:read"]);
    expect(await logsOf(completed.jobId, (path) => ctx.dev.withKey(jobsOnly, path))).toEqual(
      await logsOf(completed.jobId),
    );
    expect(await logsOf(completed.jobId, (path) => ctx.dev.session(path))).toEqual(await logsOf(completed.jobId));
  });

  it("answers 404 JOB_NOT_FOUND for an unknown job", async () => {
    await expectError(
      await ctx.dev.withKey(ctx.key, "/api/developers/jobs/00000000-0000-4000-8000-000000000000/logs"),
      404,
      "JOB_NOT_FOUND",
    );
  });
});

describe("a long log, page by page", () => {
  // A job whose node wrote far more than one page: 2,345 lines after the platform's own.
  const extraLines = 2_345;
  let long: JobView;
  let total: number;
  beforeAll(async () => {
    long = await submit(ctx.dev, ctx.key, "text-sentiment", { text: "A long log follows." });
    long = await waitForStatus(ctx.dev, ctx.key, long.jobId);
    const [{ last }] = await rowsOf<{ last: number }>(
      sql`select coalesce(max(sequence), 0)::int as last from job_logs where job_id = ${long.jobId}`,
    );
    await rowsOf(sql`insert into job_logs (job_id, sequence, level, source, message)
      select ${long.jobId}, ${last} + n, 'info', 'provider', 'line ' || n from generate_series(1, ${extraLines}) n`);
    total = last + extraLines;
  });

  const pageOf = async (query: string) => {
    const res = await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${long.jobId}/logs${query}`);
    expect(res.status).toBe(200);
    return {
      lines: (await res.json()) as LogLine[],
      hasMore: res.headers.get("x-has-more"),
      link: res.headers.get("link"),
    };
  };

  it("answers at most 1,000 lines, the oldest, and says there are more (X-Has-More, Link rel=next)", async () => {
    const first = await pageOf("");
    expect(first.lines.map((l) => l.sequence)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(first.hasMore).toBe("true");
    expect(first.link).toBe(`</api/developers/jobs/${long.jobId}/logs?after=1000&limit=1000>; rel="next"`);
  });

  it("walks every line once, oldest first, by `after` (the last sequence read) and `limit`", async () => {
    const sequences: number[] = [];
    const pages: string[] = [];
    for (let after = 0; ;) {
      const page = await pageOf(`?after=${after}&limit=700`);
      sequences.push(...page.lines.map((l) => l.sequence));
      pages.push(`${page.lines.length}:${page.hasMore}`);
      if (page.hasMore !== "true") {
        expect(page.link).toBeNull();
        break;
      }
      expect(page.link).toContain(`after=${page.lines.at(-1)?.sequence}&limit=700`);
      after = page.lines.at(-1)?.sequence ?? Number.NaN;
    }
    expect(sequences).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(pages.at(-1)).toBe(`${total - 700 * (pages.length - 1)}:false`);
    // Past the end: an empty page, no more.
    expect(await pageOf(`?after=${total}`)).toEqual({ lines: [], hasMore: "false", link: null });
  });

  it("refuses a limit outside 1–1000 or an `after` that is not a whole number, with 400 INVALID_REQUEST", async () => {
    for (const query of ["limit=0", "limit=1001", "after=-1", "after=1.5", "after=abc", "limit=1e3"]) {
      await expectError(
        await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${long.jobId}/logs?${query}`),
        400,
        "INVALID_REQUEST",
      );
    }
  });

  it("reads a page by the log's key (job_id, sequence): the only index of job_logs", async () => {
    const indexes = await rowsOf<{ indexdef: string }>(
      sql`select indexdef from pg_indexes where schemaname = 'public' and tablename = 'job_logs'`,
    );
    expect(indexes.map((i) => i.indexdef.replace(/^.* USING btree /, ""))).toEqual(["(job_id, sequence)"]);
  });
});

describe("a final job", () => {
  it("never changes afterwards: the job, its telemetry and its logs read the same after later work", async () => {
    const snapshot = async (job: JobView) => ({
      job: await readJob(job.jobId),
      telemetry: await allTelemetry(job.jobId),
      logs: await logsOf(job.jobId),
    });
    const before = [await snapshot(completed), await snapshot(failed)];

    // Later, unrelated work runs through the same node and the sweeper keeps sweeping.
    const later = await submit(ctx.dev, ctx.key, "text-sentiment", { text: "The later job is a pleasant one." });
    expect((await waitForStatus(ctx.dev, ctx.key, later.jobId)).status).toBe("completed");
    // Nor can its owner cancel it.
    for (const job of [completed, failed]) {
      await expectError(
        await ctx.dev.withKey(ctx.key, `/api/developers/jobs/${job.jobId}/cancel`, { method: "POST" }),
        409,
        "JOB_FINAL",
      );
    }

    const after = [await snapshot(completed), await snapshot(failed)];
    expect(after).toEqual(before);
    expect(after[0].job).toMatchObject({ status: "completed", progress: 100, error: null });
    expect(after[1].job).toMatchObject({ status: "failed", result: null });
  });
});

describe("an event's identity", () => {
  it("keeps the eventId it was given, on every read, distinct from every other event's", async () => {
    const [first, second] = [await allTelemetry(completed.jobId), await allTelemetry(completed.jobId)];
    expect(second.map((e) => e.eventId)).toEqual(first.map((e) => e.eventId));
    const ids = [...first, ...(await allTelemetry(failed.jobId))].map((e) => e.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("is its job and its place in the job's sequence: a second event at a taken place is refused", async () => {
    const insert = rowsOf(
      sql`insert into job_events (job_id, sequence, type, attempt) values (${completed.jobId}, 1, 'JOB_CREATED', 0)`,
    );
    await expect(insert).rejects.toSatisfy(isUniqueViolation);
  });

  it("keeps one index, that key: nothing looks an event up by its eventId, so no B-tree of random UUIDs grows", async () => {
    const indexes = await rowsOf<{ indexdef: string }>(
      sql`select indexdef from pg_indexes where schemaname = 'public' and tablename = 'job_events'`,
    );
    expect(indexes.map((i) => i.indexdef.replace(/^.* USING btree /, ""))).toEqual(["(job_id, sequence)"]);
  });
});
