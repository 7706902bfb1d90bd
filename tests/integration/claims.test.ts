// A node's claim: several jobs in one call, the oldest first, never more than the node's free slots; started
// in the same step when the node asks for it (embedded nodes), also for a developer whose webhooks must hear
// of every status the job passes.
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { compiledTexts } from "@/lib/db/prepared-statements";
import { webhookDeliveries } from "@/lib/db/schema";
import { db } from "@/lib/domain/database";
import { applyJobChangeAtOnce } from "@/lib/engine/apply-change";
import { claimJobs } from "@/lib/engine/claims";
import { authenticateNode, issueNodeToken, registerNode } from "@/lib/network/coordinator";
import { signUpDeveloper } from "../support/developer";
import { getJob, submit, telemetry } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

// No embedded node: the tests' own nodes are the only ones that claim.
const ctx = withDeveloper({
  embeddedNodes: 0,
  env: { ROUTING_TIMEOUT_MS: "600000", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1" },
});

async function node(name: string, concurrency: number) {
  const { token } = await issueNodeToken(name, { region: "test" });
  const registration = { name, region: "test", serviceIds: ["token-count"], concurrency };
  await registerNode(await authenticateNode(token), registration);
  return authenticateNode(token);
}

const submitTokenCount = (text: string) => submit(ctx.dev, ctx.key, "token-count", { text });

describe("a node's claim", () => {
  it("takes the oldest routing jobs in one call, up to its free slots and no more", async () => {
    const jobs = [];
    for (const text of ["first", "second", "third"]) jobs.push(await submitTokenCount(text));
    const claimer = await node("claims-two-slots", 2);

    const claimed = await claimJobs(claimer, 5, 0);
    expect(claimed.map((c) => c.jobId)).toEqual([jobs[0].jobId, jobs[1].jobId]);
    expect(claimed.map((c) => c.attempt)).toEqual([1, 1]);
    expect(await claimJobs(claimer, 5, 0)).toEqual([]);

    const first = await getJob(ctx.dev, ctx.key, jobs[0].jobId);
    expect(first).toMatchObject({ status: "assigned", attempt: 1 });
    expect((await telemetry(ctx.dev, ctx.key, jobs[0].jobId)).at(-1)).toMatchObject({
      type: "NODE_ASSIGNED",
      attempt: 1,
    });
    expect(await getJob(ctx.dev, ctx.key, jobs[2].jobId)).toMatchObject({ status: "routing", attempt: 0 });
    expect((await claimJobs(await node("takes-the-rest", 1), 5, 0)).map((c) => c.jobId)).toEqual([jobs[2].jobId]);
  });

  it("started at once: assigned and running in one step, EXECUTION_STARTED with the attempt it begins", async () => {
    const starter = await node("starts-on-claim", 1);
    const job = await submitTokenCount("started by its claim");
    const [claimed] = await claimJobs(starter, 1, 0, undefined, { start: true });
    expect(claimed).toMatchObject({ jobId: job.jobId, attempt: 1 });

    expect(await getJob(ctx.dev, ctx.key, job.jobId)).toMatchObject({ status: "running", attempt: 1 });
    const events = await telemetry(ctx.dev, ctx.key, job.jobId);
    expect(events.slice(-2)).toMatchObject([
      { type: "NODE_ASSIGNED", attempt: 1 },
      { type: "EXECUTION_STARTED", attempt: 1, data: { attempt: 1 } },
    ]);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
  });

  it("of a job whose developer has webhooks takes it too, announcing assigned and running in order", async () => {
    // Another developer, so that no other test's job waits for this one's node.
    const dev = await signUpDeveloper(ctx.server.baseUrl, { name: "Webhook Owner" });
    const key = await dev.createApiKey();
    const endpoint = await dev.session("/api/developers/webhooks", {
      method: "POST",
      body: JSON.stringify({ url: "http://127.0.0.1:9/hooks", events: ["job.status_changed"] }),
    });
    expect(endpoint.status).toBe(201);
    const starter = await node("starts-with-webhooks", 1);
    const job = await submit(dev, key, "token-count", { text: "heard by a webhook" });

    const claimed = await claimJobs(starter, 1, 0, undefined, { start: true });
    expect(claimed.map((c) => c.jobId)).toEqual([job.jobId]);
    const deliveries = await (
      await db()
    )
      .select({ body: webhookDeliveries.body })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.jobId, job.jobId));
    const announced = deliveries
      .map((d) => JSON.parse(d.body) as { data: { job: { status: string }; sequence: number } })
      .sort((a, b) => a.data.sequence - b.data.sequence);
    const statuses = announced.map((a) => a.data.job.status);
    expect(statuses.slice(-2)).toEqual(["assigned", "running"]);
    const [assigned, running] = announced.slice(-2);
    expect(running.data.sequence).toBe(assigned.data.sequence + 1);
  });

  it("over HTTP starts the claimed jobs when the node asks (start: true), and only then", async () => {
    const { token } = await issueNodeToken("claims-over-http", { region: "test" });
    await registerNode(await authenticateNode(token), {
      name: "claims-over-http",
      region: "test",
      serviceIds: ["token-count"],
      concurrency: 2,
    });
    const claim = async (body: unknown) => {
      const res = await fetch(`${ctx.server.baseUrl}/api/nodes/claim`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { jobs: { jobId: string }[] }).jobs;
    };
    const started = await submitTokenCount("started over HTTP");
    expect((await claim({ max: 1, start: true })).map((j) => j.jobId)).toEqual([started.jobId]);
    expect(await getJob(ctx.dev, ctx.key, started.jobId)).toMatchObject({ status: "running", attempt: 1 });
    expect((await telemetry(ctx.dev, ctx.key, started.jobId)).slice(-2).map((e) => e.type)).toEqual([
      "NODE_ASSIGNED",
      "EXECUTION_STARTED",
    ]);

    const assigned = await submitTokenCount("only assigned over HTTP");
    expect((await claim({ max: 1 })).map((j) => j.jobId)).toEqual([assigned.jobId]);
    expect(await getJob(ctx.dev, ctx.key, assigned.jobId)).toMatchObject({ status: "assigned", attempt: 1 });
  });
});

/**
 * The plan a connection keeps for a prepared statement: after five runs PostgreSQL settles on a generic
 * plan, made with the table sizes of that moment and kept while the table grows.
 */
async function genericPlan(text: string): Promise<string> {
  const parameters = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  return (await db()).transaction(async (tx) => {
    await tx.execute(sql`set local plan_cache_mode = force_generic_plan`);
    await tx.execute(sql.raw(`prepare plan_under_test as ${text}`));
    try {
      const args = parameters ? `(${Array(parameters).fill("null").join(", ")})` : "";
      const plan = await tx.execute(sql.raw(`explain execute plan_under_test${args}`));
      return (plan as unknown as { rows: { "QUERY PLAN": string }[] }).rows.map((r) => r["QUERY PLAN"]).join("\n");
    } finally {
      // In a transaction the failed EXPLAIN aborted, this fails too: the EXPLAIN's error is the one to see.
      await tx.execute(sql`deallocate plan_under_test`).catch(() => undefined);
    }
  });
}

describe("a claim's plan", () => {
  it("made while the jobs table is small reads jobs only through indexes, so it stays cheap as the table grows", async () => {
    const claimer = await node("claims-for-its-plan", 1);
    await submitTokenCount("claimed for its plan");
    expect(await claimJobs(claimer, 1, 0, undefined, { start: true })).toHaveLength(1);
    const claims = compiledTexts("job_change").filter((text) => text.includes("for update skip locked"));
    expect(claims.length).toBeGreaterThan(0);
    for (const text of claims) expect(await genericPlan(text)).not.toMatch(/Seq Scan on jobs/);
  });
});

describe("a job change", () => {
  it("the state machine forbids is refused every time it is asked, and writes nothing", async () => {
    const job = await submitTokenCount("never assigned by hand");
    const before = await telemetry(ctx.dev, ctx.key, job.jobId);
    // routing → running skips assigned; the statement of this shape is compiled once, the check must still hold.
    for (let i = 0; i < 2; i++) {
      await expect(
        applyJobChangeAtOnce(job.jobId, { to: "running", from: ["routing"], events: [{ type: "EXECUTION_STARTED" }] }),
      ).rejects.toThrow(/cannot become running/);
    }
    expect(await getJob(ctx.dev, ctx.key, job.jobId)).toMatchObject({ status: "routing" });
    expect(await telemetry(ctx.dev, ctx.key, job.jobId)).toEqual(before);
  });
});
