// Nodes you own, managed through the API (CONTRACT §12): a token shown once that reaches the node protocol,
// the scope nodes:manage, owner-only visibility, the limit of 20, rotation and revocation.
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { truncatedLogMessage } from "@/lib/engine/appended-log";
import { claimJobs } from "@/lib/engine/claims";
import { completeExecution } from "@/lib/engine/node-reports";
import { workWaiters } from "@/lib/engine/work-signals";
import { env } from "@/lib/env";
import { limits } from "@/lib/limits";
import { signUpDeveloper } from "../support/developer";
import { expectError, isoTime } from "../support/expect-error";
import { engineNode, rowsOf } from "../support/engine";
import { eventually, getJob, type JobView } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

const nodeRatePerMinute = 60;
const maxAttempts = 3;
const ctx = withDeveloper({
  embeddedNodes: 0,
  // No backoff between attempts: a released attempt is routed again as soon as the sweep sees it.
  env: {
    NODE_RATE_PER_MINUTE: String(nodeRatePerMinute),
    JOB_MAX_ATTEMPTS: String(maxAttempts),
    RETRY_BASE_DELAY_MS: "0",
  },
});

const addNode = (body: Record<string, unknown> = {}) =>
  ctx.dev.session("/api/developers/nodes", {
    method: "POST",
    body: JSON.stringify({ name: "gpu-box", region: "eu-west", serviceIds: ["token-count"], ...body }),
  });

/** A node protocol call with a node token. */
const asNode = (token: string, path: string, body: unknown) =>
  fetch(`${ctx.server.baseUrl}/api/nodes/${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const register = (token: string) =>
  asNode(token, "register", { name: "whatever", serviceIds: ["token-count"], concurrency: 2 });

describe("adding a node", () => {
  it("answers 201 with the node, pending until it registers, and its token once", async () => {
    const res = await addNode({ concurrency: 3 });
    expect(res.status).toBe(201);
    // The token is shown once: nothing on the way may keep a copy.
    expect(res.headers.get("cache-control")?.split(/,\s*/)).toContain("no-store");
    const created = await res.json();
    expect(created).toEqual({
      nodeId: expect.any(String),
      name: "gpu-box",
      region: "eu-west",
      serviceIds: ["token-count"],
      concurrency: 3,
      state: "pending",
      lastHeartbeatAt: null,
      runningJobs: 0,
      createdAt: isoTime,
      revokedAt: null,
      token: expect.stringMatching(/^node_[A-Za-z0-9_-]{43}$/),
    });
    const { token, ...node } = created;
    expect(await (await ctx.dev.session(`/api/developers/nodes/${node.nodeId}`)).json()).toEqual(node);

    expect((await register(token)).status).toBe(200);
    const live = await (await ctx.dev.session(`/api/developers/nodes/${node.nodeId}`)).json();
    expect(live).toMatchObject({ state: "live", lastHeartbeatAt: isoTime, name: "gpu-box", region: "eu-west" });
    expect(JSON.stringify(live)).not.toContain(token);
  });

  it("lists the developer's nodes newest first, without tokens", async () => {
    const first = await (await addNode({ name: "older" })).json();
    const second = await (await addNode({ name: "newer" })).json();
    const { data } = await (await ctx.dev.session("/api/developers/nodes")).json();
    expect(data.slice(0, 2).map((n: { nodeId: string }) => n.nodeId)).toEqual([second.nodeId, first.nodeId]);
    expect(data.every((n: Record<string, unknown>) => !("token" in n))).toBe(true);
  });

  it("refuses a service the catalog does not have: 400 INVALID_REQUEST", async () => {
    await expectError(await addNode({ serviceIds: ["token-count", "mine-bitcoin"] }), 400, "INVALID_REQUEST");
    await expectError(await addNode({ serviceIds: [] }), 400, "INVALID_REQUEST");
    await expectError(await addNode({ concurrency: 65 }), 400, "INVALID_REQUEST");
  });

  it("works with an API key holding nodes:manage, and refuses one without it: 403 INSUFFICIENT_SCOPE", async () => {
    const manager = await ctx.dev.createApiKey(["nodes:manage"]);
    const res = await ctx.dev.withKey(manager, "/api/developers/nodes", {
      method: "POST",
      body: JSON.stringify({ name: "from-a-key", serviceIds: ["token-count"] }),
    });
    expect(res.status).toBe(201);
    const executor = await ctx.dev.createApiKey(["services:execute", "jobs:read"]);
    const refused = await expectError(
      await ctx.dev.withKey(executor, "/api/developers/nodes"),
      403,
      "INSUFFICIENT_SCOPE",
    );
    expect(refused.details).toMatchObject({ requiredScope: "nodes:manage" });
  });

  it("allows at most 20 nodes per developer, even when added all at once: 409 LIMIT_REACHED", async () => {
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        dev.session("/api/developers/nodes", {
          method: "POST",
          body: JSON.stringify({ name: `n${i}`, serviceIds: ["token-count"] }),
        }),
      ),
    );
    expect(answers.filter((r) => r.status === 201)).toHaveLength(20);
    const refused = answers.filter((r) => r.status !== 201);
    for (const res of refused) await expectError(res, 409, "LIMIT_REACHED");
    const { data } = await (await dev.session("/api/developers/nodes")).json();
    expect(data).toHaveLength(20);
  });
});

describe("another developer's node", () => {
  it("is not found, whatever the route: 404 NODE_NOT_FOUND", async () => {
    const { nodeId } = await (await addNode()).json();
    const other = await signUpDeveloper(ctx.server.baseUrl);
    await expectError(await other.session(`/api/developers/nodes/${nodeId}`), 404, "NODE_NOT_FOUND");
    await expectError(
      await other.session(`/api/developers/nodes/${nodeId}/rotate-token`, { method: "POST" }),
      404,
      "NODE_NOT_FOUND",
    );
    await expectError(
      await other.session(`/api/developers/nodes/${nodeId}`, { method: "DELETE" }),
      404,
      "NODE_NOT_FOUND",
    );
    const { data } = await (await other.session("/api/developers/nodes")).json();
    expect(data).toEqual([]);
    await expectError(await other.session(`/api/developers/nodes/not-a-uuid`), 404, "NODE_NOT_FOUND");
    // Untouched by the attempts.
    expect(await (await ctx.dev.session(`/api/developers/nodes/${nodeId}`)).json()).toMatchObject({
      revokedAt: null,
    });
  });
});

describe("a node token", () => {
  it("reaches only the node protocol: the API's routes refuse it", async () => {
    const { token } = await (await addNode()).json();
    await expectError(await ctx.dev.withKey(token, "/api/developers/nodes"), 401, "INVALID_API_KEY");
    const res = await fetch(`${ctx.server.baseUrl}/api/developers/jobs`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await expectError(res, 401, "INVALID_API_KEY");
  });

  it("rotating it gives a new token, and the old one fails at once", async () => {
    const { nodeId, token: old } = await (await addNode()).json();
    expect((await register(old)).status).toBe(200);
    const res = await ctx.dev.session(`/api/developers/nodes/${nodeId}/rotate-token`, { method: "POST" });
    expect(res.status).toBe(200);
    const rotated = await res.json();
    expect(rotated).toMatchObject({ nodeId, name: "gpu-box", token: expect.stringMatching(/^node_/) });
    expect(rotated.token).not.toBe(old);
    await expectError(await asNode(old, "heartbeat", { activeJobIds: [] }), 401, "INVALID_NODE_TOKEN");
    expect((await asNode(rotated.token, "heartbeat", { activeJobIds: [] })).status).toBe(200);
  });

  it("revoking the node kills its token at once; repeating it answers the same node", async () => {
    const { nodeId, token } = await (await addNode()).json();
    expect((await register(token)).status).toBe(200);
    const res = await ctx.dev.session(`/api/developers/nodes/${nodeId}`, { method: "DELETE" });
    expect(res.status).toBe(200);
    const revoked = await res.json();
    expect(revoked).toMatchObject({ nodeId, state: "revoked", revokedAt: isoTime });
    await expectError(await asNode(token, "claim", { max: 1 }), 401, "INVALID_NODE_TOKEN");
    const again = await ctx.dev.session(`/api/developers/nodes/${nodeId}`, { method: "DELETE" });
    expect(await again.json()).toEqual(revoked);
    await expectError(
      await ctx.dev.session(`/api/developers/nodes/${nodeId}/rotate-token`, { method: "POST" }),
      409,
      "NODE_REVOKED",
    );
  });

  it("registers only what its owner declared: the node process cannot widen it", async () => {
    const { nodeId, token } = await (await addNode({ serviceIds: ["token-count"], concurrency: 2 })).json();
    const res = await asNode(token, "register", {
      name: "renamed",
      region: "elsewhere",
      serviceIds: ["token-count", "text-sentiment"],
      concurrency: 64,
    });
    expect(res.status).toBe(200);
    expect(await (await ctx.dev.session(`/api/developers/nodes/${nodeId}`)).json()).toMatchObject({
      name: "gpu-box",
      region: "eu-west",
      serviceIds: ["token-count"],
      concurrency: 2,
    });
  });
});

describe("a node's state after it stops", () => {
  const stateOf = async (nodeId: string) =>
    ((await (await ctx.dev.session(`/api/developers/nodes/${nodeId}`)).json()) as { state: string }).state;
  /** As if the node's last heartbeat were older than a lease: what silence looks like to the server. */
  const silentSinceALease = (nodeId: string) =>
    rowsOf(sql`update nodes set last_heartbeat_at = now() - interval '1 hour' where id = ${nodeId}`);

  it("is offline when it said it stopped, lost when it went silent, and live again once it registers", async () => {
    const stopped = await (await addNode()).json();
    const silent = await (await addNode()).json();
    for (const { token } of [stopped, silent]) expect((await register(token)).status).toBe(200);

    expect((await asNode(stopped.token, "drain", {})).status).toBe(204);
    expect(await stateOf(stopped.nodeId)).toBe("draining");
    expect((await asNode(stopped.token, "stop", {})).status).toBe(204);
    await Promise.all([silentSinceALease(stopped.nodeId), silentSinceALease(silent.nodeId)]);
    expect(await stateOf(stopped.nodeId)).toBe("offline");
    expect(await stateOf(silent.nodeId)).toBe("lost");

    expect((await register(stopped.token)).status).toBe(200);
    expect(await stateOf(stopped.nodeId)).toBe("live");
  });
});

describe("a claim already waiting when its node's token changes", () => {
  // A long poll authenticates once, at its start: what it may receive must be decided at each claim, by the
  // token that is current then, or a stolen (rotated away) or revoked token keeps receiving jobs and inputs.
  for (const change of ["rotated", "revoked"] as const) {
    it(`receives none of the jobs submitted after its token was ${change}`, async () => {
      const dev = await signUpDeveloper(ctx.server.baseUrl);
      const key = await dev.createApiKey(["services:execute", "jobs:read"]);
      const created = await dev.session("/api/developers/nodes", {
        method: "POST",
        body: JSON.stringify({ name: "stolen", serviceIds: ["token-count"] }),
      });
      const { nodeId, token: old } = (await created.json()) as { nodeId: string; token: string };
      expect((await register(old)).status).toBe(200);

      const waiters = await workWaiters();
      const earlier = new Set(waiters.waiting);
      const waiting = asNode(old, "claim", { max: 1, waitMs: 2500, start: true });
      // Once the claim waits for work it has passed authentication (asserted below: it answers 200); a fixed
      // pause for that was too short on a loaded machine, where the token changed before it was checked.
      await eventually(
        async () => waiters.waiting.some((w) => !earlier.has(w) && w.serviceIds.includes("token-count")),
        Boolean,
        10_000,
      );
      const changed =
        change === "rotated"
          ? await dev.session(`/api/developers/nodes/${nodeId}/rotate-token`, { method: "POST" })
          : await dev.session(`/api/developers/nodes/${nodeId}`, { method: "DELETE" });
      expect(changed.status).toBe(200);
      const { token: current } = (await changed.json()) as { token?: string };

      const res = await dev.withKey(key, "/api/marketplace/services/token-count/execute", {
        method: "POST",
        body: JSON.stringify({ input: { text: "for the current token only" }, placement: "own" }),
      });
      expect(res.status).toBe(202);
      const { jobId } = (await res.json()) as JobView;

      const stale = await waiting;
      expect(stale.status).toBe(200);
      expect(await stale.json()).toEqual({ jobs: [] });
      expect(await getJob(dev, key, jobId)).toMatchObject({ status: "routing", assignedNode: null });
      if (current) {
        // The node with its new token receives it.
        const claimed = await asNode(current, "claim", { max: 1, waitMs: 0 });
        const { jobs } = (await claimed.json()) as { jobs: { jobId: string; input: unknown }[] };
        expect(jobs).toEqual([expect.objectContaining({ jobId, input: { text: "for the current token only" } })]);
      }
    });
  }
});

describe("a node's report on a job it does not hold", () => {
  it("answers alike for another developer's job, a final job, an unknown id and a malformed one: 409 LEASE_LOST", async () => {
    const owner = await signUpDeveloper(ctx.server.baseUrl);
    const ownerKey = await owner.createApiKey(["services:execute", "jobs:read"]);
    const created = await owner.session("/api/developers/nodes", {
      method: "POST",
      body: JSON.stringify({ name: "curious", serviceIds: ["token-count"] }),
    });
    const { token } = (await created.json()) as { token: string };
    expect((await register(token)).status).toBe(200);
    const run = async (dev: typeof owner, key: string, text: string) => {
      const res = await dev.withKey(key, "/api/marketplace/services/token-count/execute", {
        method: "POST",
        body: JSON.stringify({ input: { text } }),
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as JobView).jobId;
    };
    // A job of the node's owner it ran to the end, and another developer's job waiting for a node.
    const finished = await run(owner, ownerKey, "ran to the end");
    const claimed = await asNode(token, "claim", { max: 1, waitMs: 0, start: true });
    expect((await claimed.json()).jobs).toEqual([expect.objectContaining({ jobId: finished, attempt: 1 })]);
    const done = await asNode(token, `jobs/${finished}/complete`, {
      attempt: 1,
      result: { summary: "ok", output: {} },
    });
    expect(done.status).toBe(204);
    const stranger = await signUpDeveloper(ctx.server.baseUrl);
    const foreign = await run(stranger, await stranger.createApiKey(["services:execute", "jobs:read"]), "not yours");

    const reports = {
      start: { attempt: 1 },
      progress: { attempt: 1, progress: 50, logs: [{ level: "info", message: "probing" }] },
      complete: { attempt: 1, result: { summary: "forged", output: {} } },
      fail: { attempt: 1, code: "PROBE", message: "probing", retryable: false },
      release: { attempt: 1 },
    };
    for (const [report, body] of Object.entries(reports)) {
      const answers: { status: number; code: string; message: string; details?: unknown }[] = [];
      for (const jobId of [foreign, finished, randomUUID(), "not-a-uuid"]) {
        const res = await asNode(token, `jobs/${jobId}/${report}`, body);
        const { error } = (await res.json()) as { error: { code: string; message: string; details?: unknown } };
        answers.push({ status: res.status, code: error.code, message: error.message, details: error.details });
      }
      expect(answers[0], report).toMatchObject({ status: 409, code: "LEASE_LOST" });
      expect(answers, report).toEqual(answers.map(() => answers[0]));
    }
    // Untouched by the attempts.
    expect(await getJob(stranger, await stranger.createApiKey(["jobs:read"]), foreign)).toMatchObject({
      status: "routing",
      attempt: 0,
      progress: 0,
    });
    expect(await getJob(owner, ownerKey, finished)).toMatchObject({ status: "completed", result: { summary: "ok" } });
  });
});

/** A job's log lines as stored; those a node reported; and the "logs truncated" lines among them. */
const linesOf = (jobId: string) =>
  rowsOf<{ sequence: number; source: string; message: string }>(
    sql`select sequence, source, message from job_logs where job_id = ${jobId} order by sequence`,
  );
const reported = <T extends { source: string }>(lines: T[]) => lines.filter((l) => l.source === "provider");
const truncations = (lines: { message: string }[]) => lines.filter((l) => l.message === truncatedLogMessage);

describe("what a developer's node reports of one job", () => {
  /** A node of a fresh developer's, holding one `own` job it claimed: what it reports is the test's. */
  async function nodeHoldingAJob({ start = true } = {}) {
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const key = await dev.createApiKey(["services:execute", "jobs:read"]);
    const created = await dev.session("/api/developers/nodes", {
      method: "POST",
      body: JSON.stringify({ name: "chatty", serviceIds: ["token-count"] }),
    });
    const { token } = (await created.json()) as { token: string };
    expect((await register(token)).status).toBe(200);
    const res = await dev.withKey(key, "/api/marketplace/services/token-count/execute", {
      method: "POST",
      body: JSON.stringify({ input: { text: "flooded" }, placement: "own" }),
    });
    const { jobId } = (await res.json()) as JobView;
    const claimed = await asNode(token, "claim", { max: 1, waitMs: 0, start });
    expect((await claimed.json()).jobs).toEqual([expect.objectContaining({ jobId })]);
    return { dev, key, token, jobId };
  }

  it('stores at most the byte cap of log lines, then one "logs truncated" line and nothing more; every report succeeds', async () => {
    const { token, jobId, dev, key } = await nodeHoldingAJob();
    // 200 lines of 4,000 characters a report (the most one report may carry): 800 KB each, 48 MB in 60 of them.
    const logs = Array.from({ length: 200 }, (_, i) => ({ level: "info", message: `${i}`.padEnd(4000, "x") }));
    for (let report = 0; report < 4; report++) {
      const res = await asNode(token, `jobs/${jobId}/progress`, { attempt: 1, progress: report, logs });
      expect(res.status).toBe(204);
    }
    const done = await asNode(token, `jobs/${jobId}/complete`, {
      attempt: 1,
      result: { summary: "done", output: {} },
      logs: [{ level: "info", message: "one more, past the cap" }],
    });
    expect(done.status).toBe(204);

    const lines = await linesOf(jobId);
    const kept = reported(lines);
    expect(kept.reduce((sum, l) => sum + Buffer.byteLength(l.message), 0)).toBeLessThanOrEqual(limits.jobReportedBytes);
    expect(kept.length).toBe(Math.floor(limits.jobReportedBytes / 4000));
    expect(truncations(lines)).toHaveLength(1);
    // The truncation line follows the last line kept; the platform's own lines go on (the completion).
    const at = lines.findIndex((l) => l.message === truncatedLogMessage);
    expect(lines[at - 1].source).toBe("provider");
    expect(lines.slice(at + 1).map((l) => l.source)).toEqual(["node"]);
    expect(lines.map((l) => l.sequence)).toEqual(lines.map((_, i) => i + 1));
    expect(await getJob(dev, key, jobId)).toMatchObject({ status: "completed", result: { summary: "done" } });
  });

  it("stores at most the cap of lines and provider requests together, exactly one truncation even when reports race", async () => {
    const { token, jobId } = await nodeHoldingAJob();
    const reports = Array.from({ length: 12 }, (_, r) => ({
      attempt: 1,
      providerRequests: [{ report: r }],
      logs: Array.from({ length: 199 }, (_, i) => ({ level: "info", message: `report ${r} line ${i}` })),
    }));
    const answers = await Promise.all(reports.map((body) => asNode(token, `jobs/${jobId}/progress`, body)));
    expect(answers.map((r) => r.status)).toEqual(reports.map(() => 204));

    const lines = await linesOf(jobId);
    const [{ events }] = await rowsOf<{ events: number }>(
      sql`select count(*)::int as events from job_events where job_id = ${jobId} and type = 'PROVIDER_REQUEST'`,
    );
    expect(reported(lines).length + events).toBe(limits.jobReportedItems);
    expect(truncations(lines)).toHaveLength(1);
    expect(lines.map((l) => l.sequence)).toEqual(lines.map((_, i) => i + 1));
    const sequences = await rowsOf<{ sequence: number }>(
      sql`select sequence from job_events where job_id = ${jobId} order by sequence`,
    );
    expect(sequences.map((e) => e.sequence)).toEqual(sequences.map((_, i) => i + 1));
  });
  it("gets no lease past its attempt's deadline when it starts just before it", async () => {
    const { token, jobId } = await nodeHoldingAJob({ start: false });
    // Its timeout and all but two seconds of the grace spent since the assignment: the deadline is two seconds away.
    const grace = env().NODE_LEASE_MS / 1000;
    await rowsOf(
      sql`update jobs set assigned_at = now() - make_interval(secs => timeout_ms / 1000.0 + ${grace} - 2) where id = ${jobId}`,
    );
    expect((await asNode(token, `jobs/${jobId}/start`, { attempt: 1 })).status).toBe(204);
    const [job] = await rowsOf<{ status: string; within: boolean }>(
      sql`select status, lease_expires_at <= now() + interval '2 seconds' as within from jobs where id = ${jobId}`,
    );
    expect(job).toEqual({ status: "running", within: true });
  });

  it("cannot keep its job alive by releasing and claiming it again: each release is an attempt, and the last fails the job, refunded", async () => {
    const { token, jobId } = await nodeHoldingAJob();
    // Charged at submission, as the ledger says (an own job's price may round to nothing; then nothing is owed).
    const [{ cost }] = await rowsOf<{ cost: number }>(sql`select credit_cost as cost from jobs where id = ${jobId}`);
    let attempt = 1;
    for (let cycle = 0; cycle < maxAttempts + 3; cycle++) {
      const released = await asNode(token, `jobs/${jobId}/release`, { attempt, reason: "again" });
      if (released.status !== 204) break;
      const claimed = (await (await asNode(token, "claim", { max: 1, waitMs: 1500, start: true })).json()) as {
        jobs: { attempt: number }[];
      };
      if (claimed.jobs.length === 0) break;
      attempt = claimed.jobs[0].attempt;
    }
    const [job] = await rowsOf<{ status: string; attempt: number; error: { code: string } }>(
      sql`select status, attempt, error from jobs where id = ${jobId}`,
    );
    expect(job).toMatchObject({ status: "failed", attempt: maxAttempts, error: { code: "RELEASED" } });
    const ledger = await rowsOf<{ type: string; amount: number }>(
      sql`select type, amount::int as amount from credit_ledger where job_id = ${jobId} order by seq`,
    );
    expect(ledger).toEqual(
      Number(cost) > 0
        ? [
            { type: "charge", amount: -cost },
            { type: "refund", amount: cost },
          ]
        : [],
    );
    // What it stored is bounded by the attempts, not by how often the node asked.
    const [{ rows }] = await rowsOf<{ rows: number }>(
      sql`select (select count(*) from job_events where job_id = ${jobId}) + (select count(*) from job_logs where job_id = ${jobId})::int as rows`,
    );
    expect(Number(rows)).toBeLessThanOrEqual(8 * maxAttempts + 4);
    // A release past the end is refused like any report on a job the node no longer holds.
    await expectError(await asNode(token, `jobs/${jobId}/release`, { attempt }), 409, "LEASE_LOST");
  });
});

describe("what the network's nodes report of a job", () => {
  it("is capped alike, in the completions its lane writes (one statement for those that wait together)", async () => {
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const key = await dev.createApiKey(["services:execute", "jobs:read"]);
    const submitted = [];
    for (const text of ["chatty", "terse"]) {
      const res = await dev.withKey(key, "/api/marketplace/services/token-count/execute", {
        method: "POST",
        body: JSON.stringify({ input: { text }, placement: "network" }),
      });
      submitted.push(((await res.json()) as JobView).jobId);
    }
    const node = await engineNode("network-reporter", ["token-count"], 16);
    const claimed = await claimJobs(node, 16, 0, undefined, { start: true });
    const [chatty, terse] = submitted.map((jobId) => claimed.find((c) => c.jobId === jobId));
    if (!chatty || !terse) throw new Error("the network's node did not claim both jobs");
    const lines = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ level: "info" as const, message: `line ${i}` }));
    const result = { summary: "done", output: {} };
    await Promise.all([
      completeExecution(node, chatty.jobId, 1, result, { logs: lines(limits.jobReportedItems + 100) }),
      completeExecution(node, terse.jobId, 1, result, { logs: lines(3) }),
    ]);
    const chattyLines = await linesOf(chatty.jobId);
    expect(reported(chattyLines)).toHaveLength(limits.jobReportedItems);
    expect(truncations(chattyLines)).toHaveLength(1);
    expect(chattyLines.at(-1)?.message).toBe("Completed: done");
    const terseLines = await linesOf(terse.jobId);
    expect(reported(terseLines)).toHaveLength(3);
    expect(truncations(terseLines)).toHaveLength(0);
    for (const all of [chattyLines, terseLines]) expect(all.map((l) => l.sequence)).toEqual(all.map((_, i) => i + 1));
    for (const jobId of submitted) expect(await getJob(dev, key, jobId)).toMatchObject({ status: "completed" });
  });

  it("that ran past the attempt's deadline, then died, was lost, not timed out: the job is routed again", async () => {
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const key = await dev.createApiKey(["services:execute", "jobs:read"]);
    const res = await dev.withKey(key, "/api/marketplace/services/token-count/execute", {
      method: "POST",
      body: JSON.stringify({ input: { text: "long" }, placement: "network" }),
    });
    const { jobId } = (await res.json()) as JobView;
    const node = await engineNode("network-long-runner", ["token-count"], 16);
    expect((await claimJobs(node, 16, 0, undefined, { start: true })).map((c) => c.jobId)).toContain(jobId);
    // The deployment's node renewed its lease well past the deadline a developer's node has (allowed), then stopped.
    await rowsOf(
      sql`update jobs set assigned_at = now() - make_interval(secs => timeout_ms / 1000.0 + 60),
        lease_expires_at = now() - interval '1 second' where id = ${jobId}`,
    );
    await expect
      .poll(async () => (await rowsOf<{ status: string }>(sql`select status from jobs where id = ${jobId}`))[0].status)
      .toBe("routing");
    const events = await rowsOf<{ type: string }>(
      sql`select type from job_events where job_id = ${jobId} order by sequence`,
    );
    expect(events.map((e) => e.type)).toContain("NODE_LOST");
    expect(events.map((e) => e.type)).not.toContain("EXECUTION_FAILED");
  });
});

describe("a developer's node's requests", () => {
  it("are limited per node: past NODE_RATE_PER_MINUTE, 429 RATE_LIMITED with Retry-After; its other nodes go on", async () => {
    const dev = await signUpDeveloper(ctx.server.baseUrl);
    const add = async (name: string) => {
      const res = await dev.session("/api/developers/nodes", {
        method: "POST",
        body: JSON.stringify({ name, serviceIds: ["token-count"] }),
      });
      return ((await res.json()) as { token: string }).token;
    };
    const [busy, quiet] = [await add("busy"), await add("quiet")];
    const answers = [];
    for (let i = 0; i < nodeRatePerMinute + 5; i++) answers.push(await asNode(busy, "heartbeat", { activeJobIds: [] }));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(nodeRatePerMinute);
    const limited = answers.at(-1) as Response;
    const error = await expectError(limited, 429, "RATE_LIMITED");
    expect(error.details).toEqual({ limit: nodeRatePerMinute });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    // Every route of the protocol counts, and each node has its own count.
    await expectError(await asNode(busy, "claim", { max: 1 }), 429, "RATE_LIMITED");
    expect((await asNode(quiet, "heartbeat", { activeJobIds: [] })).status).toBe(200);
  });
});
