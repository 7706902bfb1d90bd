// GET /api/metrics (CONTRACT §14): Prometheus text behind METRICS_TOKEN, with every series the contract names,
// values that match known work, cumulative histogram buckets, and no unbounded label.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accounts } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { createJobs } from "@/lib/engine/create-job";
import { checkSubmission } from "@/lib/engine/submit-job";
import { expectError } from "../support/expect-error";
import { eventually, submit, waitForStatus } from "../support/jobs";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver";
import { withDeveloper } from "../support/with-developer";

const token = "metrics-token-for-the-test-0123456789";
const ctx = withDeveloper({
  embeddedNodes: 1,
  env: {
    METRICS_TOKEN: token,
    // A job placed on the developer's own nodes (they have none) fails at the routing timeout.
    ROUTING_TIMEOUT_MS: "1000",
    WEBHOOK_ALLOWED_HOSTS: "127.0.0.1",
    // One attempt per delivery within the test: a failed one is retried only much later.
    WEBHOOK_RETRY_SCHEDULE_MS: "600000",
  },
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The exposition's samples (comments and blank lines skipped). */
function parse(text: string): Sample[] {
  return text
    .split("\n")
    .filter((line) => line && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      );
      return { name: match[1] ?? "", labels, value: Number(match[3]) };
    });
}

const scrape = async () => {
  const res = await fetch(`${ctx.server.baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  return { text, samples: parse(text) };
};

const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver((path) => (path === "/ok" ? 200 : 500));
});
afterAll(() => receiver?.close());

describe("GET /api/metrics", () => {
  it("answers 401 in the envelope without the bearer token or with a wrong one", async () => {
    const url = `${ctx.server.baseUrl}/api/metrics`;
    await expectError(await fetch(url), 401, "UNAUTHENTICATED");
    await expectError(await fetch(url, { headers: { authorization: `Bearer ${token}x` } }), 401, "UNAUTHENTICATED");
    await expectError(await fetch(url, { headers: { authorization: token } }), 401, "UNAUTHENTICATED");
  });

  it("counts known work: submissions, finishes by status, credits, webhook outcomes, cumulative histograms", async () => {
    for (const path of ["/ok", "/bad"]) {
      const res = await ctx.dev.session("/api/developers/webhooks", {
        method: "POST",
        body: JSON.stringify({ url: receiver.url(path), events: ["job.completed"] }),
      });
      expect(res.status).toBe(201);
    }
    const before = (await scrape()).samples;

    const completed = await Promise.all(
      ["one", "two", "three"].map((text) => submit(ctx.dev, ctx.key, "token-count", { text })),
    );
    const ownRes = await ctx.dev.withKey(ctx.key, "/api/marketplace/services/token-count/execute", {
      method: "POST",
      body: JSON.stringify({ input: { text: "nowhere to run" }, placement: "own" }),
    });
    expect(ownRes.status).toBe(202);
    const failed = (await ownRes.json()) as { jobId: string };
    for (const job of completed) expect((await waitForStatus(ctx.dev, ctx.key, job.jobId)).status).toBe("completed");
    expect((await waitForStatus(ctx.dev, ctx.key, failed.jobId)).status).toBe("failed");
    // Each attempt is counted once recorded, just after the receiver has answered it.
    const deliveries = (samples: Sample[]) =>
      valueOf(samples, "execution_webhook_deliveries_total") - valueOf(before, "execution_webhook_deliveries_total");
    const { text, samples } = await eventually(scrape, (scraped) => deliveries(scraped.samples) >= 6);
    const delta = (name: string, labels: Record<string, string> = {}) =>
      valueOf(samples, name, labels) - valueOf(before, name, labels);
    const service = { service: "token-count" };
    expect(delta("execution_jobs_submitted_total", service)).toBe(4);
    expect(delta("execution_jobs_finished_total", { ...service, status: "completed" })).toBe(3);
    expect(delta("execution_jobs_finished_total", { ...service, status: "failed" })).toBe(1);
    // token-count costs 1; a job on one's own nodes costs nothing (OWN_NODE_CREDIT_SHARE 0).
    expect(delta("execution_credits_charged_total")).toBe(3);
    expect(delta("execution_job_queue_seconds_count", service)).toBe(3);
    expect(delta("execution_job_run_seconds_count", service)).toBe(3);
    expect(delta("execution_webhook_deliveries_total", { outcome: "succeeded" })).toBe(3);
    expect(delta("execution_webhook_deliveries_total", { outcome: "retried" })).toBe(3);
    expect(valueOf(samples, "execution_webhook_deliveries_total", { outcome: "failed" })).toBe(0);

    for (const histogram of ["execution_job_queue_seconds", "execution_job_run_seconds"]) {
      const buckets = samples.filter((s) => s.name === `${histogram}_bucket` && s.labels.service === "token-count");
      expect(buckets.map((b) => b.labels.le).at(-1)).toBe("+Inf");
      const counts = buckets.map((b) => b.value);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));
      expect(counts.at(-1)).toBe(valueOf(samples, `${histogram}_count`, service));
    }

    // Deployment-wide gauges: one series per non-final status (nothing is left running) and the embedded node.
    const active = samples.filter((s) => s.name === "execution_jobs_active");
    expect(Object.fromEntries(active.map((s) => [s.labels.status, s.value]))).toEqual({
      queued: 0,
      routing: 0,
      assigned: 0,
      running: 0,
      retrying: 0,
    });
    expect(valueOf(samples, "execution_nodes_live")).toBe(1);

    // Requests by method, route pattern and status; the Node.js process metrics of the Prometheus client.
    expect(
      valueOf(samples, "http_server_request_duration_seconds_count", {
        http_request_method: "POST",
        http_route: "/api/marketplace/services/{id}/execute",
        http_response_status_code: "202",
      }),
    ).toBeGreaterThanOrEqual(4);
    expect(
      valueOf(samples, "http_server_request_duration_seconds_count", {
        http_request_method: "GET",
        http_route: "/api/developers/jobs/{jobId}",
        http_response_status_code: "200",
      }),
    ).toBeGreaterThan(0);
    expect(valueOf(samples, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(valueOf(samples, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0);

    // No label carries an id, a key or an address.
    for (const secret of [...completed.map((j) => j.jobId), failed.jobId, ctx.key, ctx.dev.address]) {
      expect(text.toLowerCase()).not.toContain(secret.toLowerCase());
    }
  });
});

describe("counted after commit", () => {
  it("a submission whose transaction rolls back is not counted; one that commits is, once", async () => {
    const d = await db();
    const [account] = await d
      .select({ id: accounts.id })
      .from(accounts)
      .where(sql`lower(${accounts.walletAddress}) = ${ctx.dev.address.toLowerCase()}`);
    const submission = {
      accountId: account.id,
      apiKeyId: null,
      serviceId: "token-count",
      input: { text: "counted after commit" },
    };
    const submitted = async () =>
      valueOf((await scrape()).samples, "execution_jobs_submitted_total", { service: "token-count" });
    const before = await submitted();
    // Built before each transaction: the catalog is read outside it.
    const rolledBack = await checkSubmission(d, submission, undefined);
    await expect(
      d.transaction(async (tx) => {
        await createJobs(tx, [rolledBack], { inTransaction: true });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await submitted()).toBe(before);
    const committed = await checkSubmission(d, submission, undefined);
    await d.transaction(async (tx) => createJobs(tx, [committed], { inTransaction: true }));
    expect(await submitted()).toBe(before + 1);
  });
});
