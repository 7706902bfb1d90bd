// Routing by owner and placement, and the price of a job on the developer's own node (CONTRACT §12). The
// nodes here speak the node protocol directly, so which node claims what is decided by the test, not a race.
import { describe, expect, it } from "vitest";
import { verifyReceipt, type ExecutionJob, type ExecutionReceipt } from "../../lib/client/src/index";
import { issueNodeToken } from "@/lib/network/coordinator";
import { signUpDeveloper, type Developer } from "../support/developer";
import { eventually, getJob, telemetry, typesOf, waitForStatus, type JobView } from "../support/jobs";
import { withDeveloper } from "../support/with-developer";

// text-summarize costs 2: on one's own node ceil(2 × 0.3) = 1.
const ctx = withDeveloper({
  embeddedNodes: 0,
  // Attempts time out after 2 s; a lease (and so the grace past a timeout) is 3 s.
  env: { OWN_NODE_CREDIT_SHARE: "0.3", ROUTING_TIMEOUT_MS: "2000", JOB_TIMEOUT_MS: "2000", NODE_LEASE_MS: "3000" },
});
const text = "The network routes jobs. Nodes run them. Developers bring their own nodes.";

interface ProtocolNode {
  token: string;
  claim(): Promise<string[]>;
  complete(jobId: string): Promise<Response>;
  /** The jobs the coordinator tells the node to stop. */
  heartbeat(activeJobIds: string[]): Promise<string[]>;
}

function protocolNode(token: string): ProtocolNode {
  const post = (path: string, body: unknown) =>
    fetch(`${ctx.server.baseUrl}/api/nodes/${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const attempts = new Map<string, number>();
  return {
    token,
    async claim() {
      const res = await post("claim", { max: 16, waitMs: 0, start: true });
      const { jobs } = (await res.json()) as { jobs: { jobId: string; attempt: number }[] };
      for (const job of jobs) attempts.set(job.jobId, job.attempt);
      return jobs.map((j) => j.jobId);
    },
    complete: (jobId) =>
      post(`jobs/${jobId}/complete`, { attempt: attempts.get(jobId), result: { summary: "done", output: {} } }),
    async heartbeat(activeJobIds) {
      const res = await post("heartbeat", { activeJobIds });
      return ((await res.json()) as { cancelJobIds: string[] }).cancelJobIds;
    },
  };
}

async function registered(token: string, serviceIds: string[]) {
  const res = await fetch(`${ctx.server.baseUrl}/api/nodes/register`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "node", serviceIds, concurrency: 16 }),
  });
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${await res.text()}`);
  return protocolNode(token);
}

async function ownNode(dev: Developer, serviceIds = ["text-summarize", "token-count"], offered = serviceIds) {
  const res = await dev.session("/api/developers/nodes", {
    method: "POST",
    body: JSON.stringify({ name: "own", serviceIds }),
  });
  const { nodeId, token } = (await res.json()) as { nodeId: string; token: string };
  return { nodeId, ...(await registered(token, offered)) };
}

async function networkNode() {
  const { token } = await issueNodeToken("network-node", { region: "test" });
  return registered(token, ["text-summarize", "token-count"]);
}

async function submit(dev: Developer, key: string, placement?: string, serviceId = "text-summarize") {
  const res = await dev.withKey(key, `/api/marketplace/services/${serviceId}/execute`, {
    method: "POST",
    body: JSON.stringify({ input: { text }, ...(placement ? { placement } : {}) }),
  });
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as JobView;
}

const balanceOf = async (dev: Developer) =>
  ((await (await dev.session("/api/credits/balance")).json()) as { balance: number }).balance;

async function ledgerOf(dev: Developer, jobId: string) {
  const { data } = (await (await dev.session("/api/credits/history?limit=100")).json()) as {
    data: { type: string; amount: number; jobId: string | null }[];
  };
  return data
    .filter((e) => e.jobId === jobId)
    .map((e) => [e.type, e.amount])
    .reverse();
}

/** The completed job's receipt (CONTRACT §13), once it verifies against the job and the deployment's signers. */
async function verifiedReceipt(dev: Developer, key: string, jobId: string) {
  const job = (await (await dev.withKey(key, `/api/developers/jobs/${jobId}`)).json()) as ExecutionJob;
  const receipt = (await (await dev.withKey(key, `/api/developers/jobs/${jobId}/receipt`)).json()) as ExecutionReceipt;
  const signers = (await (await fetch(`${ctx.server.baseUrl}/api/receipts/signers`)).json()) as { current: string };
  await verifyReceipt(job, receipt, { signers: [signers.current] });
  return receipt.message;
}

async function newDeveloper() {
  const dev = await signUpDeveloper(ctx.server.baseUrl);
  return { dev, key: await dev.createApiKey() };
}

describe("routing by owner", () => {
  it("an owned node never receives another developer's job, whatever its placement", async () => {
    const alice = await newDeveloper();
    const bob = await newDeveloper();
    const alicesNode = await ownNode(alice.dev);
    const jobs = [await submit(bob.dev, bob.key), await submit(bob.dev, bob.key, "network")];
    const owned = await submit(bob.dev, bob.key, "own");

    expect(await alicesNode.claim()).toEqual([]);
    const network = await networkNode();
    const claimed = await network.claim();
    expect(claimed).toEqual(expect.arrayContaining(jobs.map((j) => j.jobId)));
    expect(claimed).not.toContain(owned.jobId);
    for (const jobId of claimed) await network.complete(jobId);

    // Bob has no node of his own: his `own` job fails once the routing timeout passes, refunded.
    expect(await waitForStatus(bob.dev, bob.key, owned.jobId)).toMatchObject({
      status: "failed",
      placement: "own",
      error: { category: "routing" },
    });
    expect(await ledgerOf(bob.dev, owned.jobId)).toEqual([
      ["charge", -1],
      ["refund", 1],
    ]);
  });

  it("placement own runs only on the developer's own nodes and costs ceil(creditCost × share)", async () => {
    const alice = await newDeveloper();
    const node = await ownNode(alice.dev);
    const network = await networkNode();
    const job = await submit(alice.dev, alice.key, "own");
    expect(job).toMatchObject({ placement: "own", creditCost: 1 });

    expect(await network.claim()).not.toContain(job.jobId);
    expect(await node.claim()).toEqual([job.jobId]);
    expect((await node.complete(job.jobId)).status).toBe(204);
    expect(await getJob(alice.dev, alice.key, job.jobId)).toMatchObject({
      status: "completed",
      creditCost: 1,
      assignedNode: { nodeId: node.nodeId, name: "own" },
    });
    expect(await ledgerOf(alice.dev, job.jobId)).toEqual([["charge", -1]]);
  });

  it("placement network never runs on the developer's own node", async () => {
    const alice = await newDeveloper();
    const node = await ownNode(alice.dev);
    const job = await submit(alice.dev, alice.key, "network");
    expect(job).toMatchObject({ placement: "network", creditCost: 2 });
    expect(await node.claim()).toEqual([]);
    const network = await networkNode();
    expect(await network.claim()).toContain(job.jobId);
    await network.complete(job.jobId);
    expect(await getJob(alice.dev, alice.key, job.jobId)).toMatchObject({ status: "completed", creditCost: 2 });
  });

  it("placement any that completes on the developer's own node is refunded down to the own-node price", async () => {
    const alice = await newDeveloper();
    const node = await ownNode(alice.dev);
    const job = await submit(alice.dev, alice.key);
    expect(job).toMatchObject({ placement: "any", creditCost: 2 });
    expect(await node.claim()).toEqual([job.jobId]);
    expect((await getJob(alice.dev, alice.key, job.jobId)).creditCost).toBe(2);
    await node.complete(job.jobId);
    expect(await getJob(alice.dev, alice.key, job.jobId)).toMatchObject({ status: "completed", creditCost: 1 });
    expect(await ledgerOf(alice.dev, job.jobId)).toEqual([
      ["charge", -2],
      ["refund", 1],
    ]);
    expect(await balanceOf(alice.dev)).toBe(99); // Its receipt states the node was the developer's own and the price after the refund.
    expect(await verifiedReceipt(alice.dev, alice.key, job.jobId)).toMatchObject({
      nodeId: node.nodeId,
      ownNode: true,
      creditCost: 1,
    });
  });

  it("placement any that completes on the network's node costs the full price", async () => {
    const alice = await newDeveloper();
    await ownNode(alice.dev, ["token-count"]);
    const job = await submit(alice.dev, alice.key);
    const network = await networkNode();
    expect(await network.claim()).toContain(job.jobId);
    await network.complete(job.jobId);
    expect(await getJob(alice.dev, alice.key, job.jobId)).toMatchObject({ status: "completed", creditCost: 2 });
    expect(await ledgerOf(alice.dev, job.jobId)).toEqual([["charge", -2]]);
    expect(await verifiedReceipt(alice.dev, alice.key, job.jobId)).toMatchObject({ ownNode: false, creditCost: 2 });
  });

  it("a node offering more services than its owner declared claims only the declared ones", async () => {
    const alice = await newDeveloper();
    const node = await ownNode(alice.dev, ["token-count"], ["token-count", "text-summarize"]);
    const summary = await submit(alice.dev, alice.key, "own");
    const count = await submit(alice.dev, alice.key, "own", "token-count");
    expect(await node.claim()).toEqual([count.jobId]);
    await node.complete(count.jobId);
    expect(await waitForStatus(alice.dev, alice.key, summary.jobId)).toMatchObject({
      status: "failed",
      error: { category: "routing" },
    });
  });

  it("rejects a placement outside any, own and network: 400 INVALID_REQUEST", async () => {
    const res = await ctx.dev.withKey(ctx.key, "/api/marketplace/services/token-count/execute", {
      method: "POST",
      body: JSON.stringify({ input: { text }, placement: "elsewhere" }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("INVALID_REQUEST");
    const viaJobs = await ctx.dev.withKey(ctx.key, "/api/developers/jobs", {
      method: "POST",
      body: JSON.stringify({
        type: "developer_job",
        payload: { serviceId: "token-count", input: { text }, placement: "own" },
      }),
    });
    expect(viaJobs.status).toBe(202);
    expect(await viaJobs.json()).toMatchObject({ placement: "own", creditCost: 1 });
  });

  it("shows the own-node price beside the price of each service", async () => {
    const services = (await (await fetch(`${ctx.server.baseUrl}/api/marketplace/services`)).json()) as {
      serviceId: string;
      creditCost: number;
      ownNodeCreditCost: number;
    }[];
    expect(services.find((s) => s.serviceId === "text-summarize")).toMatchObject({
      creditCost: 2,
      ownNodeCreditCost: 1,
    });
  });
});

describe("revoking a node that is running a job", () => {
  it("gives the job back: a new attempt completes elsewhere, charged once", async () => {
    const alice = await newDeveloper();
    const node = await ownNode(alice.dev);
    const job = await submit(alice.dev, alice.key);
    expect(await node.claim()).toEqual([job.jobId]);
    expect((await getJob(alice.dev, alice.key, job.jobId)).status).toBe("running");

    const revoked = await alice.dev.session(`/api/developers/nodes/${node.nodeId}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect(await getJob(alice.dev, alice.key, job.jobId)).toMatchObject({ status: "routing", attempt: 1 });
    expect((await node.complete(job.jobId)).status).toBe(401);

    const network = await networkNode();
    expect(await network.claim()).toContain(job.jobId);
    await network.complete(job.jobId);
    expect(await getJob(alice.dev, alice.key, job.jobId)).toMatchObject({
      status: "completed",
      attempt: 2,
      creditCost: 2,
    });
    expect(typesOf(await telemetry(alice.dev, alice.key, job.jobId))).toEqual([
      "JOB_CREATED",
      "WORKFLOW_INITIALIZED",
      "ROUTING_STARTED",
      "NODE_ASSIGNED",
      "EXECUTION_STARTED",
      "NODE_LOST",
      "ROUTING_STARTED",
      "NODE_ASSIGNED",
      "EXECUTION_STARTED",
      "RESULT_STORED",
      "EXECUTION_COMPLETED",
    ]);
    expect(await ledgerOf(alice.dev, job.jobId)).toEqual([["charge", -2]]);
  });
});

describe("an attempt on a developer's node", () => {
  it("ends at its timeout plus one lease whatever the node says: not renewed past it, failed by the sweeper as TIMEOUT", async () => {
    const alice = await newDeveloper();
    const node = await ownNode(alice.dev);
    const job = await submit(alice.dev, alice.key, "own");
    const claimedAt = Date.now();
    expect(await node.claim()).toEqual([job.jobId]);

    // The node heart-beats the job as if it ran forever: from its deadline on, it is told to stop.
    let cancelled: string[] = [];
    while (cancelled.length === 0 && Date.now() - claimedAt < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      cancelled = await node.heartbeat([job.jobId]);
    }
    expect(cancelled).toEqual([job.jobId]);
    expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(2000 + 3000 - 250);

    const events = await eventually(
      () => telemetry(alice.dev, alice.key, job.jobId),
      (all) => all.some((e) => e.type === "EXECUTION_FAILED"),
      15_000,
    );
    expect(events.find((e) => e.type === "EXECUTION_FAILED")).toMatchObject({
      attempt: 1,
      data: { code: "TIMEOUT", retryable: true, attempt: 1 },
    });
    expect(typesOf(events)).not.toContain("NODE_LOST");
    expect(typesOf(events)).toContain("RETRY_SCHEDULED");
    expect((await node.complete(job.jobId)).status).toBe(409);
  });
});
